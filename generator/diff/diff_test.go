package diff

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

const (
	haOld = "../../testdata/homeassistant-tools-list.json"
	haNew = "../../testdata/golden/homeassistant/new.json"
)

func readTools(t *testing.T, path string) []runtime.Tool {
	t.Helper()
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s.RuntimeTools()
}

func TestSelfDiffIsEmpty(t *testing.T) {
	var all []runtime.Tool
	for _, tc := range ruleCases {
		mk := inTool
		if tc.output {
			mk = outTool
		}
		for _, s := range []string{tc.old, tc.new} {
			all = append(all, mk(s))
		}
	}
	for i, tool := range all {
		changes, err := Tools([]runtime.Tool{tool}, []runtime.Tool{tool})
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 0 {
			t.Errorf("diff of schema %d with itself:%s", i, fmtWants(wants(changes)))
		}
	}
	ha := readTools(t, haOld)
	if changes, err := Tools(ha, ha); err != nil || len(changes) != 0 {
		t.Errorf("diff of the Home Assistant snapshot with itself: %v%s", err, fmtWants(wants(changes)))
	}
}

// TestSwapAddition checks that a pure addition, read backwards, is the
// matching removal with the severity the rules give it.
func TestSwapAddition(t *testing.T) {
	cases := []struct {
		name            string
		output          bool
		base, added     string
		forward, backwd want
	}{
		{"required property", false,
			obj(`"a":{"type":"string"}`),
			obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"required":["b"]`),
			want{PropertyAddedRequired, "/properties/b", Err, false},
			want{PropertyRemoved, "/properties/b", Warn, true}},
		{"optional property under additionalProperties false", false,
			obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"additionalProperties":false`),
			want{PropertyAdded, "/properties/b", Info, false},
			want{PropertyRemoved, "/properties/b", Err, true}},
		{"enum value", false,
			obj(`"c":{"enum":["a"]}`),
			obj(`"c":{"enum":["a","b"]}`),
			want{EnumValueAdded, "/properties/c/enum", Info, false},
			want{EnumValueRemoved, "/properties/c/enum", Err, true}},
		{"union branch", false,
			obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
			obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}`),
			want{BranchAdded, "/properties/v/anyOf/2", Info, false},
			want{BranchRemoved, "/properties/v/anyOf/2", Err, true}},
		{"nullable", false,
			obj(`"v":{"type":"string"}`, `"required":["v"]`),
			obj(`"v":{"type":["string","null"]}`, `"required":["v"]`),
			want{NullableAdded, "/properties/v", Info, true},
			want{NullableRemoved, "/properties/v", Err, true}},
		{"type in a list", false,
			obj(`"v":{"type":"string"}`),
			obj(`"v":{"type":["string","integer"]}`),
			want{TypeWidened, "/properties/v/type", Info, true},
			want{TypeNarrowed, "/properties/v/type", Err, true}},
		{"output required property", true,
			obj(`"a":{"type":"string"}`, `"required":["a"]`),
			obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"required":["a","b"]`),
			want{PropertyAddedRequired, "/properties/b", Info, false},
			want{PropertyRemoved, "/properties/b", Err, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mk := inTool
			if tc.output {
				mk = outTool
			}
			fwd, err := Tools([]runtime.Tool{mk(tc.base)}, []runtime.Tool{mk(tc.added)})
			if err != nil {
				t.Fatal(err)
			}
			back, err := Tools([]runtime.Tool{mk(tc.added)}, []runtime.Tool{mk(tc.base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := wants(fwd); !sameWants(got, []want{tc.forward}) {
				t.Errorf("forward:%s\nwant:%s", fmtWants(got), fmtWants([]want{tc.forward}))
			}
			if got := wants(back); !sameWants(got, []want{tc.backwd}) {
				t.Errorf("backward:%s\nwant:%s", fmtWants(got), fmtWants([]want{tc.backwd}))
			}
		})
	}

	// A whole tool.
	a := runtime.Tool{Name: "a", InputSchema: []byte(`{"type":"object"}`)}
	b := runtime.Tool{Name: "b", InputSchema: []byte(`{"type":"object","properties":{"x":{"type":"string"}}}`)}
	fwd, _ := Tools([]runtime.Tool{a}, []runtime.Tool{a, b})
	back, _ := Tools([]runtime.Tool{a, b}, []runtime.Tool{a})
	if len(fwd) != 1 || fwd[0].Rule != ToolAdded || fwd[0].Severity != Info {
		t.Errorf("tool added:%s", fmtWants(wants(fwd)))
	}
	if len(back) != 1 || back[0].Rule != ToolRemoved || back[0].Severity != Err || !back[0].GoAPI {
		t.Errorf("tool removed:%s", fmtWants(wants(back)))
	}
}

// TestLayoutIsNotAChange checks that tool order, key order and whitespace
// never make a change.
func TestLayoutIsNotAChange(t *testing.T) {
	old := readTools(t, haOld)

	var shuffled []runtime.Tool
	for i := len(old) - 1; i >= 0; i-- {
		tool := old[i]
		tool.InputSchema = reorderKeys(t, tool.InputSchema)
		tool.Raw = reorderKeys(t, tool.Raw)
		shuffled = append(shuffled, tool)
	}
	changes, err := Tools(old, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 0 {
		t.Errorf("reordered tools and keys gave changes:%s", fmtWants(wants(changes)))
	}

	spaced := append([]runtime.Tool(nil), old...)
	for i := range spaced {
		var b bytes.Buffer
		if err := json.Indent(&b, spaced[i].InputSchema, "\t", " \t "); err != nil {
			t.Fatal(err)
		}
		spaced[i].InputSchema = b.Bytes()
	}
	if changes, _ := Tools(old, spaced); len(changes) != 0 {
		t.Errorf("whitespace gave changes:%s", fmtWants(wants(changes)))
	}

	// The canonical form of the same snapshot is no change either.
	s, err := snapshot.ReadFile(haOld)
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapshot.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := snapshot.Read("canonical.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if changes, _ := Tools(old, canonical.RuntimeTools()); len(changes) != 0 {
		t.Errorf("canonical form gave changes:%s", fmtWants(wants(changes)))
	}
}

// reorderKeys reverses the key order of every object in a JSON document.
func reorderKeys(t *testing.T, raw []byte) []byte {
	t.Helper()
	if len(raw) == 0 {
		return raw
	}
	n, err := jsontree.ParseUnique(raw)
	if err != nil {
		t.Fatal(err)
	}
	var rev func(n *jsontree.Node)
	rev = func(n *jsontree.Node) {
		for _, it := range n.Items {
			rev(it)
		}
		for i, j := 0, len(n.Members)-1; i < j; i, j = i+1, j-1 {
			n.Members[i], n.Members[j] = n.Members[j], n.Members[i]
		}
		for _, m := range n.Members {
			rev(m.Value)
		}
	}
	rev(n)
	return []byte(n.String())
}

func TestHomeAssistantGolden(t *testing.T) {
	changes, err := Tools(readTools(t, haOld), readTools(t, haNew))
	if err != nil {
		t.Fatal(err)
	}
	// The golden case testdata/golden/homeassistant pins the reports.
	r := &Report{Changes: changes}

	must := []want{
		{ToolRemoved, "", Err, true},
		{PropertyBecameRequired, "/properties/volume_level", Err, true},
		{EnumValueRemoved, "/properties/media_class/enum", Err, true},
	}
	for _, m := range must {
		found := false
		for _, c := range changes {
			if (want{c.Rule, c.Pointer, c.Severity, c.GoAPI}) == m {
				found = true
			}
		}
		if !found {
			t.Errorf("missing change %s in:%s", m, fmtWants(wants(changes)))
		}
	}
	if !r.Fails(Err) || r.Count(Err) != 3 {
		t.Errorf("report has %d ERR, want 3", r.Count(Err))
	}
}
