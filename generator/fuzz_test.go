package generator

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// fuzzSnapshot returns a snapshot of one tool with the given name,
// description and input schema, or false when the input cannot be one.
func fuzzSnapshot(name, desc, schema string) (*snapshot.Snapshot, bool) {
	n, _ := json.Marshal(name)
	d, _ := json.Marshal(desc)
	doc := `{"tools":[{"name":` + string(n) + `,"description":` + string(d) + `,"inputSchema":` + schema + `}]}`
	snap, err := snapshot.Read("fuzz.json", []byte(doc))
	return snap, err == nil
}

// fuzzSeeds returns the seed inputs of FuzzGenerate: the tools of the
// checked-in snapshots and a few schemas of the shapes that went wrong
// before.
func fuzzSeeds() [][3]string {
	var out [][3]string
	add := func(name, desc, schema string) { out = append(out, [3]string{name, desc, schema}) }
	for _, path := range []string{"../testdata/homeassistant-tools-list.json", "../testdata/golden/hostile/snapshot.json", "../testdata/golden/outputs/snapshot.json"} {
		snap, err := snapshot.ReadFile(path)
		if err != nil {
			continue
		}
		for _, t := range snap.Tools {
			add(t.Name, t.Description, string(t.InputSchema))
		}
	}
	add("t", "*/ func Evil() {} /*", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0},{"type":"null"}]}}}`)
	add("t", "", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`)
	add("t", "", `{"type":"object","properties":{"n":{"$ref":"#"}}}`)
	add("t", "", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":["string","null"]},"patternProperties":{"^a":{"type":"integer"}}}}}`)
	add("t", "", `{"type":"object","properties":{"e":{"enum":["a","A",1,null,true,{"x":1}]},"c":{"const":"x"}},"required":["e","missing"]}`)
	add("t", "", `{"type":"object","properties":{"a":{"allOf":[{"type":"string","pattern":"^a"},{"maxLength":3,"pattern":"b$"}]}}}`)
	return out
}

// FuzzGenerate generates a package from one tool with an arbitrary name,
// description and input schema. Generation never panics, and its output is
// either Go source that parses, holds only its own package's declarations and
// keeps the description out of the code, or an error.
func FuzzGenerate(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, name, desc, schema string) {
		snap, ok := fuzzSnapshot(name, desc, schema)
		if !ok {
			return
		}
		files, err := Generate(Config{From: snap, Options: Options{Package: "fuzz"}})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for _, file := range goFiles(t, files) {
			parsed, err := parser.ParseFile(token.NewFileSet(), file.Name, file.Data, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("%s does not parse: %v\nschema: %s", file.Name, err, schema)
			}
			if parsed.Name.Name != "fuzz" {
				t.Fatalf("%s declares package %s", file.Name, parsed.Name.Name)
			}
			if !strings.HasPrefix(string(file.Data), emit.Header+"\n") {
				t.Fatalf("%s lacks the generated-code header", file.Name)
			}
		}
	})
}
