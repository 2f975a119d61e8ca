package generator

import (
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// headingTools have descriptions that go/doc/comment would read as section
// headings where the generator puts them between paragraphs of its own: a
// one-line description without a final period (as the filesystem server's
// sortBy and Google Calendar's enums have), one that starts with "# ", and
// such lines inside a longer description.
const headingTools = `{"tools":[
{"name":"list_directory_with_sizes","description":"Get a listing.\n\nSort entries by name or size\n\n# Returns the thing\n\nThe end.",
 "inputSchema":{"type":"object","properties":{
  "path":{"type":"string"},
  "sortBy":{"type":"string","enum":["name","size"],"description":"Sort entries by name or size","default":"name"},
  "order":{"type":"string","enum":["asc","desc"],"description":"# Order of the entries","default":"asc"},
  "mode":{"type":"string","enum":["a","b"],"description":"First line\n\nSecond Line Of It\n\nthird line"}
 },"required":["path"]},
 "outputSchema":{"type":"object","description":"Entries sorted by name or size","properties":{"n":{"type":"integer"}}}},
{"name":"get_structured_content","description":"Returns structured content along with an output schema for client data validation",
 "inputSchema":{"type":"object","properties":{}},
 "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}
]}`

// TestServerTextNeverBecomesAHeading generates headingTools and parses the
// doc comment of every top-level declaration as go doc does: none holds a
// heading, and the one-line descriptions are kept, as sentences.
func TestServerTextNeverBecomesAHeading(t *testing.T) {
	snap, err := snapshot.Read("headings.json", []byte(headingTools))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(Config{From: snap, Snapshot: "headings.json", Options: Options{Package: "headings", Parts: allParts}})
	if err != nil {
		t.Fatal(err)
	}
	checkGofmt(t, "headings.json", files)
	var all strings.Builder
	for _, f := range goFiles(t, files) {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f.Name, f.Data, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		docs := []*ast.CommentGroup{}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				docs = append(docs, d.Doc)
			case *ast.GenDecl:
				docs = append(docs, d.Doc)
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						docs = append(docs, ts.Doc)
					}
				}
			}
		}
		for _, doc := range docs {
			if doc == nil {
				continue
			}
			text := doc.Text()
			all.WriteString(text)
			var p comment.Parser
			for _, b := range p.Parse(text).Content {
				if h, ok := b.(*comment.Heading); ok {
					t.Errorf("%s: a doc comment has the heading %q:\n%s", f.Name, (&comment.Printer{}).Text(&comment.Doc{Content: []comment.Block{h}}), text)
				}
			}
		}
	}
	for _, want := range []string{"Sort entries by name or size.", "# Order of the entries", "# Returns the thing", "Second Line Of It.", "Returns structured content along with an output schema for client data validation."} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no doc comment says %q", want)
		}
	}
}
