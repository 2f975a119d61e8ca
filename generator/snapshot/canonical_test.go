package snapshot

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestMarshalIsStable(t *testing.T) {
	s, err := ReadFile("../../testdata/homeassistant-tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	s.Server = Server{Name: "Home Assistant", Version: "2025.7.0"}
	first, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Read("canonical.json", first)
	if err != nil {
		t.Fatalf("reading the canonical form back: %v", err)
	}
	second, err := Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("Marshal is not stable through Read:\n%s\n---\n%s", first, second)
	}
	if !bytes.HasSuffix(first, []byte("}\n")) || bytes.Contains(first, []byte("\t")) {
		t.Errorf("canonical form lacks the trailing newline or has tabs")
	}
	var names []string
	for _, tool := range again.Tools {
		names = append(names, tool.Name)
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("tools are not sorted by name: %v", names)
			break
		}
	}
	if runtime.ToolsHash(s.RuntimeTools()) != runtime.ToolsHash(again.RuntimeTools()) {
		t.Errorf("the canonical form changes the tools hash")
	}
}

// TestCheckedInSnapshotIsCanonical checks a snapshot written in the
// canonical format by hand: reading and writing it gives the same bytes.
func TestCheckedInSnapshotIsCanonical(t *testing.T) {
	const path = "../../testdata/golden/homeassistant/new.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Server.Name != "Home Assistant" || s.ProtocolVersion != "2025-06-18" || !strings.HasPrefix(s.Source, "http://") {
		t.Errorf("header = %+v %q %q", s.Server, s.ProtocolVersion, s.Source)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Errorf("%s is not in canonical form; Marshal gives:\n%s", path, out)
	}
}

func TestMarshalKeepsKeyOrderAndText(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "zeta", Raw: []byte(`{"inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}},"required":["b"]},"name":"zeta","x-extra":{"k":1}}`)},
		{Name: "alpha", Description: "Says <hello> & \"bye\" — é\u2028", InputSchema: []byte(`{"type":"object"}`),
			Annotations: []byte(`{"readOnlyHint":true}`)},
	}
	got, err := Marshal(FromRuntime(Server{Name: "srv", Version: "1.0"}, "2026-07-28", "npx -y srv", tools))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "server": {
    "name": "srv",
    "version": "1.0"
  },
  "protocolVersion": "2026-07-28",
  "source": "npx -y srv",
  "tools": [
    {
      "name": "alpha",
      "description": "Says <hello> & \"bye\" — é\u2028",
      "inputSchema": {
        "type": "object"
      },
      "annotations": {
        "readOnlyHint": true
      }
    },
    {
      "inputSchema": {
        "type": "object",
        "properties": {
          "b": {
            "type": "string"
          },
          "a": {
            "type": "string"
          }
        },
        "required": [
          "b"
        ]
      },
      "name": "zeta",
      "x-extra": {
        "k": 1
      }
    }
  ]
}
`
	if string(got) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}

	empty, err := Marshal(&Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(empty), "\"tools\": []\n}\n") {
		t.Errorf("empty snapshot = %s", empty)
	}
}

func TestMarshalRejectsBadTool(t *testing.T) {
	bad := []runtime.Tool{{Name: "broken", Raw: []byte(`{"name":"broken",`)}}
	_, err := Marshal(FromRuntime(Server{}, "", "", bad))
	if err == nil || !strings.Contains(err.Error(), `encoding tool "broken"`) {
		t.Errorf("Marshal of a broken tool: %v", err)
	}
	var b bytes.Buffer
	if err := Write(&b, FromRuntime(Server{}, "", "", bad)); err == nil || b.Len() != 0 {
		t.Errorf("Write of a broken tool: %v, wrote %d bytes", err, b.Len())
	}
}
