package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOlderSnapshotsStayValid reads the checked-in snapshots written before
// prompts and resource templates were captured: they read without any, and
// write back byte for byte.
func TestOlderSnapshotsStayValid(t *testing.T) {
	for _, path := range []string{"../../testdata/homeassistant-tools-list.json", "../../testdata/golden/hostile/snapshot.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(filepath.Base(path), data)
		if err != nil {
			t.Fatal(err)
		}
		if s.Prompts != nil || s.ResourceTemplates != nil {
			t.Errorf("%s: prompts %v, templates %v, want nil", path, s.Prompts, s.ResourceTemplates)
		}
		out, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), `"prompts"`) || strings.Contains(string(out), `"resourceTemplates"`) {
			t.Errorf("%s: written back with prompts or templates:\n%s", path, out)
		}
	}
}

const listings = `{"server":{"name":"srv","version":"1"},"protocolVersion":"2025-11-25","source":"x","tools":[],` +
	`"prompts":[{"name":"z","arguments":[{"name":"a","required":true}],"x-extra":true},{"name":"b","title":"B"}],` +
	`"resourceTemplates":[{"uriTemplate":"demo://{id}","name":"t","mimeType":"text/plain"}]}`

func TestPromptsAndTemplatesRoundTrip(t *testing.T) {
	s, err := Read("s.json", []byte(listings))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Prompts) != 2 || s.Prompts[0].Name != "z" || !s.Prompts[0].Arguments[0].Required || s.Prompts[0].Pointer != "/prompts/0" {
		t.Fatalf("prompts = %+v", s.Prompts)
	}
	if len(s.ResourceTemplates) != 1 || s.ResourceTemplates[0].URITemplate != "demo://{id}" || s.ResourceTemplates[0].MIMEType != "text/plain" {
		t.Fatalf("templates = %+v", s.ResourceTemplates)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `  "tools": [],
  "prompts": [
    {
      "name": "b",
      "title": "B"
    },
    {
      "name": "z",
      "arguments": [
        {
          "name": "a",
          "required": true
        }
      ],
      "x-extra": true
    }
  ],
  "resourceTemplates": [
    {
      "uriTemplate": "demo://{id}",
      "name": "t",
      "mimeType": "text/plain"
    }
  ]
}
`
	if !strings.HasSuffix(string(out), want) {
		t.Errorf("Marshal =\n%s\nwant it to end with\n%s", out, want)
	}
	again, err := Read("s.json", out)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := Marshal(again)
	if string(out2) != string(out) {
		t.Errorf("second round trip differs:\n%s", out2)
	}
	// Captured but empty lists are kept apart from lists never captured.
	s.Prompts, s.ResourceTemplates = []Prompt{}, nil
	out, _ = Marshal(s)
	if !strings.HasSuffix(string(out), "  \"tools\": [],\n  \"prompts\": []\n}\n") {
		t.Errorf("empty prompts written as\n%s", out)
	}
	// In a JSON-RPC response, the result holds them.
	r, err := Read("r.json", []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"prompts":[{"name":"p"}]}}`))
	if err != nil || len(r.Prompts) != 1 || r.Prompts[0].Pointer != "/result/prompts/0" {
		t.Errorf("response shape: %+v, %v", r, err)
	}
}

func TestPromptAndTemplateErrors(t *testing.T) {
	head := `{"tools":[],`
	for _, tc := range []struct{ name, doc, want string }{
		{"prompts not array", head + `"prompts":{}}`, `s.json: /prompts: prompts is a JSON object, want an array`},
		{"prompt no name", head + `"prompts":[{"name":"a"},{}]}`, `s.json: /prompts/1: prompt has no name`},
		{"prompt dup", head + `"prompts":[{"name":"a"},{"name":"a"}]}`, `s.json: /prompts/1/name: duplicate prompt name "a" (first at /prompts/0)`},
		{"arg not object", head + `"prompts":[{"name":"a","arguments":[1]}]}`, `s.json: /prompts/0/arguments/0: argument of prompt "a" is a JSON number, want an object`},
		{"arg dup", head + `"prompts":[{"name":"a","arguments":[{"name":"x"},{"name":"x"}]}]}`, `s.json: /prompts/0/arguments/1/name: duplicate argument "x" of prompt "a"`},
		{"arg required", head + `"prompts":[{"name":"a","arguments":[{"name":"x","required":"yes"}]}]}`, `s.json: /prompts/0/arguments/0/required: required of argument "x" of prompt "a" is a JSON string, want a boolean`},
		{"description", head + `"prompts":[{"name":"a","description":3}]}`, `s.json: /prompts/0/description: description of prompt "a" is a JSON number, want a string`},
		{"template no uri", head + `"resourceTemplates":[{"name":"t"}]}`, `s.json: /resourceTemplates/0: resource template "t" has no uriTemplate`},
		{"template bad uri", head + `"resourceTemplates":[{"name":"t","uriTemplate":"x://{a"}]}`, `s.json: /resourceTemplates/0/uriTemplate: uriTemplate "x://{a" of resource template "t" is not an RFC 6570 URI template`},
		{"template dup", head + `"resourceTemplates":[{"name":"t","uriTemplate":"x://{a}"},{"name":"t","uriTemplate":"y://{a}"}]}`, `s.json: /resourceTemplates/1/name: duplicate resource template name "t"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("s.json", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
