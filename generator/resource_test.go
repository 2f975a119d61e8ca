package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

// embeddedTools are tools whose $refs sit in subschemas with a $id of
// their own, embedded resources: JSON Schema resolves "#/$defs/y" there
// against that subschema, as the runtime's validator does, not against the
// tool's root. In emb, a.y is the embedded string while z, at the root,
// is the root's integer; in rel, "#" inside a is a itself; in d4 (draft-04's
// id), b is the embedded string.
const embeddedTools = `{"tools":[
{"name":"emb","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"z":{"$ref":"#/$defs/y"}},"$defs":{"x":{"$id":"http://example.com/x.json","type":"object","properties":{"y":{"$ref":"#/$defs/y"}},"$defs":{"y":{"type":"string"}}},"y":{"type":"integer"}}}},
{"name":"rel","inputSchema":{"type":"object","properties":{"a":{"type":"object","$id":"a.json","properties":{"n":{"type":"integer"},"b":{"$ref":"#"}}}}}},
{"name":"d4","inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://example.com/a","type":"object","properties":{"b":{"$ref":"#/definitions/c"}},"definitions":{"c":{"type":"string"}}}},"definitions":{"c":{"type":"integer"}}}}]}`

// embeddedAgreeTest runs inside the package generated from embeddedTools:
// for each value, decoding into the arguments type and Validate accept it
// exactly when ValidateArguments, which reads the tool's own schema, does.
const embeddedAgreeTest = `package embedded

import (
	"encoding/json"
	"testing"
)

func TestEmbeddedResourceRefs(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"emb", ` + "`" + `{"a":{"y":"s"},"z":1}` + "`" + `, true},
		{"emb", ` + "`" + `{"a":{"y":1}}` + "`" + `, false},
		{"emb", ` + "`" + `{"z":"s"}` + "`" + `, false},
		{"rel", ` + "`" + `{"a":{"n":1,"b":{"n":2,"b":{}}}}` + "`" + `, true},
		{"rel", ` + "`" + `{"a":{"b":{"n":"x"}}}` + "`" + `, false},
		{"d4", ` + "`" + `{"a":{"b":"s"}}` + "`" + `, true},
		{"d4", ` + "`" + `{"a":{"b":1}}` + "`" + `, false},
	} {
		schemaErr := ValidateArguments(c.tool, []byte(c.args))
		if (schemaErr == nil) != c.ok {
			t.Fatalf("%s %s: ValidateArguments = %v, want ok %v", c.tool, c.args, schemaErr, c.ok)
		}
		var err error
		switch c.tool {
		case "emb":
			var a EmbArgs
			if err = json.Unmarshal([]byte(c.args), &a); err == nil {
				err = a.Validate()
			}
		case "rel":
			var a RelArgs
			if err = json.Unmarshal([]byte(c.args), &a); err == nil {
				err = a.Validate()
			}
		case "d4":
			var a D4Args
			if err = json.Unmarshal([]byte(c.args), &a); err == nil {
				err = a.Validate()
			}
		}
		if (err == nil) != c.ok {
			t.Errorf("%s %s: the generated types say %v, the tool's schema %v", c.tool, c.args, err, schemaErr)
		}
	}
}
`

// TestRefInEmbeddedResource generates from schemas whose $refs sit in
// embedded resources. The generator resolved them against the tool's root,
// which gave a.y the root's integer where the schema wants a string, and
// then refused them; it now reads them through schema.StaticRefs, as every
// other consumer does, and the generated types and validators agree with
// the tool's own schema on each side of the difference.
func TestRefInEmbeddedResource(t *testing.T) {
	snap, err := snapshot.Read("embedded.json", []byte(embeddedTools))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(Config{From: snap, Snapshot: "embedded.json", Options: Options{Package: "embedded"}})
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	var types string
	for _, f := range files {
		if f.Name == "types.go" {
			types = string(f.Data)
		}
	}
	for _, want := range []string{"Y *string `json:\"y,omitempty\"`", "Z *int64 `json:\"z,omitempty\"`", "B *string `json:\"b,omitempty\"`"} {
		if !strings.Contains(types, want) {
			t.Errorf("types.go has no field %s:\n%s", want, types)
		}
	}
	if testing.Short() {
		return
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "embedded-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, _, err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "embedded_test.go"), []byte(embeddedAgreeTest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "test", "-v", "-run", "TestEmbeddedResourceRefs", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestEmbeddedResourceRefs") {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}

// TestCountsBeyondInt32 generates from a schema whose maxLength is
// 4294967295 (the largest uint32), and whose other counts are beyond what
// a Go int holds on 32-bit platforms. Each was refused ("maxLength is
// 4294967295, want a non-negative integer"), and the whole package with
// it; the tool's own schema now checks them, and the generated code holds
// no constant that a 32-bit int cannot.
func TestCountsBeyondInt32(t *testing.T) {
	schema := `{"type":"object","properties":{"s":{"type":"string","maxLength":4294967295},"t":{"type":"string","minLength":1e20},` +
		`"l":{"type":"array","items":{"type":"integer"},"maxItems":2147483648,"minItems":99999999999999999999},` +
		`"m":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":4294967296}}}`
	files, err := generateLive(runtime.Tool{Name: "t", InputSchema: []byte(schema)})
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	var validate string
	for _, f := range files {
		if f.Name == "validate.go" {
			validate = string(f.Data)
		}
	}
	if !strings.Contains(validate, "mcpimpl.ValidateEncoded(") || !strings.Contains(validate, "maxLength") {
		t.Errorf("Validate does not check the counts against the schema:\n%s", validate)
	}
	for _, n := range []string{"4294967295", "2147483648", "4294967296", "1e20", "99999999999999999999"} {
		if strings.Contains(validate, n) {
			t.Errorf("validate.go holds the constant %s:\n%s", n, validate)
		}
	}
	if testing.Short() {
		return
	}
	vetFiles(t, "counts-", files)
}
