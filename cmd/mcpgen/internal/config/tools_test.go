package config

import (
	"slices"
	"strings"
	"testing"
)

// TestConfigTools reads a server's tools selection, with the line of each
// pattern, and rejects malformed ones at their line.
func TestConfigTools(t *testing.T) {
	head := "servers:\n  ha:\n    snapshot: ha.json\n    out: ha\n    command: [srv]\n"
	f, err := Parse("mcpgen.yaml", []byte(head+"    tools:\n      include: [\"Hass*\", GetLiveContext]\n      exclude:\n        - HassCancel*\n"))
	if err != nil {
		t.Fatal(err)
	}
	tools := f.Servers[0].Tools
	filter := tools.Filter()
	if !slices.Equal(filter.Include, []string{"Hass*", "GetLiveContext"}) || !slices.Equal(filter.Exclude, []string{"HassCancel*"}) {
		t.Errorf("filter %+v", filter)
	}
	if tools.Line("include", "GetLiveContext") != 7 || tools.Line("exclude", "HassCancel*") != 9 || tools.Line("exclude", "Hass*") != 0 {
		t.Errorf("lines: %+v", tools)
	}
	for _, tc := range []struct{ tools, want string }{
		{"    tools: [Hass*]\n", "mcpgen.yaml:6: server ha: tools must be a mapping with include and/or exclude"},
		{"    tools:\n      only: [a]\n", `mcpgen.yaml:7: server ha: tools: unknown key "only" (want include or exclude)`},
		{"    tools:\n      include: Hass*\n", "mcpgen.yaml:7: server ha: tools: include must be a list of tool name patterns"},
		{"    tools:\n      include: [a, \"[b\"]\n", `mcpgen.yaml:7: server ha: tools: include pattern "[b": syntax error in pattern`},
		{"    tools:\n      exclude:\n        - a\n        - \"\"\n", `mcpgen.yaml:9: server ha: tools: exclude pattern "": empty pattern`},
		{"    tools:\n      include: [[a]]\n", "mcpgen.yaml:7: server ha: tools: each pattern of include must be a string"},
		{"    tools: {}\n", "mcpgen.yaml:6: server ha: tools names no pattern"},
	} {
		_, err := Parse("mcpgen.yaml", []byte(head+tc.tools))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.tools, err, tc.want)
		}
	}
}

// TestConfigPinned reads a server's pinned list, with the line of each
// glob, and rejects a malformed or empty one at its line.
func TestConfigPinned(t *testing.T) {
	head := "servers:\n  ha:\n    snapshot: ha.json\n    out: ha\n"
	f, err := Parse("mcpgen.yaml", []byte(head+"    pinned:\n      - HassTurnOn\n      - \"Get*\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers[0]
	if !slices.Equal(s.PinnedGlobs(), []string{"HassTurnOn", "Get*"}) || s.Pinned[0].Line != 6 || s.Pinned[1].Line != 7 {
		t.Errorf("pinned %+v", s.Pinned)
	}
	f, err = Parse("mcpgen.yaml", []byte(head))
	if err != nil || f.Servers[0].PinnedGlobs() != nil {
		t.Errorf("no pinned key: %v, %v", f.Servers[0].PinnedGlobs(), err)
	}
	for _, tc := range []struct{ pinned, want string }{
		{"    pinned: HassTurnOn\n", "mcpgen.yaml:5: server ha: pinned must be a list of tool name patterns"},
		{"    pinned: []\n", "mcpgen.yaml:5: server ha: pinned must be a list of tool name patterns"},
		{"    pinned: [a, \"[b\"]\n", `mcpgen.yaml:5: server ha: pinned pattern "[b" is malformed: syntax error in pattern`},
		{"    pinned:\n      - a\n      - \"\"\n", `mcpgen.yaml:7: server ha: pinned pattern "" is malformed: empty pattern`},
		{"    pinned: [[a]]\n", "mcpgen.yaml:5: server ha: each pattern of pinned must be a string"},
	} {
		_, err := Parse("mcpgen.yaml", []byte(head+tc.pinned))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.pinned, err, tc.want)
		}
	}
}
