package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// refCycleTools are tools whose schemas hold a $ref that leads back to
// itself through bare $refs, never to a schema: the validator refuses
// every value there. In loop, the optional a is such a cycle (x → y → x),
// b an ordinary string; in branch, a union branch and an allOf part are;
// in needs, the cycle is required, so no call of it can succeed.
const refCycleTools = `{"tools":[
{"name":"loop","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}},
{"name":"branch","inputSchema":{"type":"object","properties":{"u":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"string"}]},"p":{"allOf":[{"$ref":"#/$defs/x"},{"type":"string"}]}},"$defs":{"x":{"$ref":"#/$defs/x"}}}},
{"name":"needs","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"required":["a"],"$defs":{"x":{"$ref":"#/$defs/x"}}}}]}`

// refCycleAgreeTest runs inside the package generated from refCycleTools:
// for each value, decoding into the arguments type and Validate accept it
// exactly when ValidateArguments, which reads the tool's own schema, does.
const refCycleAgreeTest = `package refcycle

import (
	"encoding/json"
	"testing"
)

func TestRefCycles(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"loop", ` + "`" + `{"b":"s"}` + "`" + `, true},
		{"loop", ` + "`" + `{"a":1,"b":"s"}` + "`" + `, false},
		{"loop", ` + "`" + `{"a":{}}` + "`" + `, false},
		{"branch", ` + "`" + `{"u":"s"}` + "`" + `, true},
		{"branch", ` + "`" + `{"u":1}` + "`" + `, false},
		{"branch", ` + "`" + `{"p":"s"}` + "`" + `, false},
	} {
		schemaErr := ValidateArguments(c.tool, []byte(c.args))
		if (schemaErr == nil) != c.ok {
			t.Fatalf("%s %s: ValidateArguments = %v, want ok %v", c.tool, c.args, schemaErr, c.ok)
		}
		var err error
		switch c.tool {
		case "loop":
			var a LoopArgs
			if err = json.Unmarshal([]byte(c.args), &a); err == nil {
				err = a.Validate()
			}
		case "branch":
			var a BranchArgs
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

// TestPureRefCycleGenerates generates from tools with a loop of bare
// $refs. The generator refused the whole tool list ("leads back to itself
// through other bare $refs, never to a schema"), though the validator
// compiles such a schema and refuses only the values that reach the loop:
// a tool whose loop is optional is generated, its field checked by the
// tool's schema as a false schema's is, and the Gemini declaration leaves
// it out; a tool whose loop is required is left out, with a warning naming
// it and the pointer, as a tool no call of which can succeed.
func TestPureRefCycleGenerates(t *testing.T) {
	snap, err := snapshot.Read("refcycle.json", []byte(refCycleTools))
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	files, err := Generate(Config{From: snap, Snapshot: "refcycle.json", Options: Options{Package: "refcycle"}, Warn: func(w Warning) { warnings = append(warnings, w.Msg) }})
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	if want := `tool "needs" is left out of the package, since no call of it can succeed: /inputSchema/properties/a/$ref: $ref "#/$defs/x" leads back to itself through bare $refs and never to a schema: validators refuse every value there`; len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
		t.Errorf("warnings %q, want one starting %s", warnings, want)
	}
	var gemini string
	for _, f := range files {
		if f.Name == "gemini.jsonl" {
			gemini = string(f.Data)
		}
	}
	if want := `"name":"loop","parameters":{"description":"Do not send \"a\".","properties":{"b":{"type":"STRING"}}`; !strings.Contains(gemini, want) {
		t.Errorf("gemini.jsonl does not declare loop without a (%s):\n%s", want, gemini)
	}
	if testing.Short() {
		return
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "refcycle-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, _, err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "refcycle_test.go"), []byte(refCycleAgreeTest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "test", "-v", "-run", "TestRefCycles", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRefCycles") {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}
