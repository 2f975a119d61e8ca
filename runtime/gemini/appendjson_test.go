package gemini

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/internal/testing/providertest"
)

// TestAppendJSONIsEncodingJSON checks, over every server of the corpus in
// testdata/servers and in both forms, that the JSON geminidecl writes of a
// declaration, which generated packages embed (gemini.jsonl), is byte for
// byte what encoding/json, with HTML escaping off, writes of the
// genai.FunctionDeclaration Declarations makes of it.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	files, err := filepath.Glob("../../testdata/servers/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	n := 0
	for _, file := range files {
		tools, err := providertest.LoadTools(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, jsonSchema := range []bool{false, true} {
			decls, _, err := geminidecl.Declare(tools, nil, jsonSchema)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			out, _, err := Declarations(tools, &DeclarationOptions{JSONSchema: jsonSchema})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for i, d := range decls {
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(out[i]); err != nil {
					t.Fatal(err)
				}
				if got := d.AppendJSON(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
					t.Errorf("%s, tool %s (JSON Schema form %v):\n got %s\nwant %s", filepath.Base(file), d.Name, jsonSchema, got, want.Bytes())
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Errorf("compared %d declarations; the corpus should give more than 1,000", n)
	}
}
