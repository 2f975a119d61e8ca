package generator

import (
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// handWrittenTools exercise what types.go and validate.go, which the
// generator writes in gofmt's form itself, must lay out as gofmt does:
// columns of field names and types with accented and wide runes, doc
// comments gofmt reformats (headings,
// lists, code blocks, link definitions, directives), fields whose comments
// break the columns, enums of numbers with upper-case exponents, floats
// that print with exponents, unions with checked branches, maps with key
// patterns, more than nine patterns, one that only the ECMAScript engine
// reads, and a union branch of untyped items, whose check needs
// encoding/json in validate.go.
const handWrittenTools = `{"tools":[
{"name":"layout","description":"Lays out.\n\n# Returns the thing\n\nA list:\n  - one\n  - two\n\n\tcode block\n\tmore code\n\nSee [the docs].\n\n[the docs]: https://example.com/docs\n\n//go:generate echo hi",
 "inputSchema":{"type":"object","properties":{
  "a":{"type":"string"},
  "ключ_длинный":{"type":"integer","minimum":-3,"maximum":1e21},
  "é_wide_日本":{"type":"number","exclusiveMinimum":1e-7,"maximum":12345678.125},
  "back tick":{"type":"boolean"},
  "documented":{"type":"string","description":"A documented field\nover two lines.","default":"x"},
  "after_doc":{"type":"array","items":{"type":"string","minLength":2,"maxLength":9},"minItems":1},
  "very_long_property_name_for_columns":{"type":"object","additionalProperties":{"type":"integer","multipleOf":3},"propertyNames":{"pattern":"^[a-z]+$"}},
  "nums":{"enum":[1E3,2,30],"type":"integer"},
  "floats":{"enum":[1.5,2.5E-3],"type":"number"},
  "flag":{"const":"on\"\\\n"},
  "either":{"anyOf":[{"type":"string","minLength":1,"description":"The text form."},{"type":"integer","minimum":0},{"type":"null"}]},
  "anylist":{"anyOf":[{"type":"array","minItems":1},{"type":"string","minLength":2}]},
  "p1":{"type":"string","pattern":"^a1$"},"p2":{"type":"string","pattern":"^a2$"},"p3":{"type":"string","pattern":"^a3$"},
  "p4":{"type":"string","pattern":"^a4$"},"p5":{"type":"string","pattern":"^a5$"},"p6":{"type":"string","pattern":"^a6$"},
  "p7":{"type":"string","pattern":"^a7$"},"p8":{"type":"string","pattern":"^a8$"},"p9":{"type":"string","pattern":"^a9$"},
  "p10":{"type":"string","pattern":"^(?=a)a10$"},
  "extra":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":{"type":"string","format":"date-time"}}
 },"required":["a","ключ_длинный"]}},
{"name":"one","inputSchema":{"type":"object","properties":{"only":{"type":"string","format":"email"}}}}
]}`

// TestHandWrittenFilesAreGofmtOutputAndCompile generates handWrittenTools,
// checks every file against gofmt and vets the package.
func TestHandWrittenFilesAreGofmtOutputAndCompile(t *testing.T) {
	snap, err := snapshot.Read("handwritten.json", []byte(handWrittenTools))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(Config{From: snap, Snapshot: "handwritten.json", Options: Options{Package: "handwritten", Parts: allParts}})
	if err != nil {
		t.Fatal(err)
	}
	checkGofmt(t, "handwritten.json", files)
	if testing.Short() {
		return
	}
	vetFiles(t, "handwritten-", files)
}
