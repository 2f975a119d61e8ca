package generator

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

// nested returns an input schema whose property a nests levels objects deep.
func nested(levels int) string {
	s := `{"type":"string"}`
	for range levels {
		s = `{"type":"object","properties":{"a":` + s + `}}`
	}
	return s
}

// toolList returns a tool-list snapshot of n tools with the given input
// schema.
func toolList(n int, schema string) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","inputSchema":%s}`, i, schema)
	}
	b.WriteString("]}")
	return b.String()
}

// generateText runs the whole generator on the snapshot text.
func generateText(doc string, lim ir.Limits, parts ...string) ([]emit.File, error) {
	snap, err := snapshot.Read("hostile.json", []byte(doc))
	if err != nil {
		return nil, err
	}
	return Generate(Config{From: snap, Options: Options{Package: "hostile", Limits: lim, Parts: parts}})
}

// TestHostileSchemas feeds the generator the schemas of a hostile server:
// each is generated into code that parses, or rejected with an error that
// says what is wrong and where.
func TestHostileSchemas(t *testing.T) {
	cycle := `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/z"},"z":{"$ref":"#/$defs/x"}}}`
	var chain strings.Builder
	chain.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 1000 {
		fmt.Fprintf(&chain, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	chain.WriteString(`"d1000":{"type":"string"}}}`)
	recursive := `{"type":"object","properties":{"node":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`
	huge := strings.Repeat("x", 100_000)
	cases := []struct {
		name string
		doc  string
		lim  ir.Limits
		// want is a substring of the error; empty means the generated code
		// must parse.
		want string
	}{
		{"depth at the limit", toolList(1, nested(ir.DefaultMaxSchemaDepth-1)), ir.Limits{}, ""},
		{"depth over the limit", toolList(1, nested(ir.DefaultMaxSchemaDepth)), ir.Limits{}, "nests more than 64 levels"},
		{"depth 1000", toolList(1, nested(1000)), ir.Limits{}, "nests more than 64 levels"},
		{"depth 10000", toolList(1, nested(10000)), ir.Limits{}, "exceeded max depth"},
		{"raised depth limit", toolList(1, nested(100)), ir.Limits{MaxSchemaDepth: 200}, ""},
		// An optional property that no value reaches the end of: the
		// tool's schema checks the field (TestPureRefCycleGenerates).
		{"cycle of bare refs", toolList(1, cycle), ir.Limits{}, ""},
		{"self ref", toolList(1, `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`), ir.Limits{}, ""},
		{"long ref chain", toolList(1, chain.String()), ir.Limits{}, ""},
		{"recursive type", toolList(1, recursive), ir.Limits{}, ""},
		{"network ref", toolList(1, `{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:9/evil.json#/x"}}}`), ir.Limits{}, "which mcpgen does not fetch"},
		{"enormous names", `{"tools":[{"name":"` + huge + `","inputSchema":{"type":"object","properties":{"` + huge + `":{"type":"string","enum":["` + huge + `"]}}}}]}`, ir.Limits{}, ""},
		{"tools over the limit", toolList(ir.DefaultMaxTools+1, `{"type":"object"}`), ir.Limits{}, "10001 tools, more than the limit of 10000"},
		{"tools over a lowered limit", toolList(11, `{"type":"object"}`), ir.Limits{MaxTools: 10}, "11 tools, more than the limit of 10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The Gemini declarations keep their own depth limit of 64.
			files, err := generateText(c.doc, c.lim, ir.PartTypes, ir.PartClient)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error = %.300v, want one containing %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("generating: %.300v", err)
			}
			for _, f := range goFiles(t, files) {
				if _, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.SkipObjectResolution); err != nil {
					t.Errorf("%s does not parse: %.300v", f.Name, err)
				}
			}
		})
	}
}

// TestTooManyToolsError checks that the tool-count error can be told apart.
func TestTooManyToolsError(t *testing.T) {
	_, err := generateText(toolList(3, `{"type":"object"}`), ir.Limits{MaxTools: 2})
	var tm *ir.TooManyToolsError
	if !errors.As(err, &tm) || tm.Count != 3 || tm.Limit != 2 {
		t.Fatalf("error = %v, want a *ir.TooManyToolsError for 3 tools over 2", err)
	}
}

// TestNetworkRefNeverFetched points a $ref at a server that fails the test
// when reached, and runs every piece of mcpgen that reads schemas: the
// snapshot reader, the generator and the runtime validator.
func TestNetworkRefNeverFetched(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the schema's $ref was fetched: %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	for _, ref := range []string{srv.URL + "/schema.json", srv.URL + "/schema.json#/$defs/x", "//" + srv.Listener.Addr().String() + "/x"} {
		schema := `{"type":"object","properties":{"a":{"$ref":"` + ref + `"}}}`
		if _, err := generateText(toolList(1, schema), ir.Limits{}); err == nil || !strings.Contains(err.Error(), "does not fetch") {
			t.Errorf("generating with $ref %s: error = %v, want a refusal", ref, err)
		}
		s := runtime.NewSchema("t", []byte(schema))
		if err := s.Validate([]byte(`{"a":1}`)); err == nil || !strings.Contains(err.Error(), "not fetched") {
			t.Errorf("validating with $ref %s: error = %v, want a refusal", ref, err)
		}
	}
}

// TestHostileLongNamesStayBounded: identifiers are made of several names
// (a nested type of its tool's and properties', an enum constant of its
// type's and value's), so a name of a megabyte came back in every
// identifier built on it, and in the origin every enum value's name is
// ranked by. A 1 MB snapshot made 1.1 GB of allocations (a 73 KB one, 189
// MB of Go); two such names that differ only at their ends must still get
// identifiers of their own.
func TestHostileLongNamesStayBounded(t *testing.T) {
	long := "p" + strings.Repeat("x", 1<<20)
	var enum []string
	for i := range 1000 {
		enum = append(enum, fmt.Sprintf("%q", fmt.Sprintf("v%d", i)))
	}
	schema := fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","enum":[%s]},%q:{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}}}}}`,
		long+"1", strings.Join(enum, ","), long+"2")
	doc := fmt.Sprintf(`{"tools":[{"name":%q,"inputSchema":%s}]}`, strings.Repeat("t", 64<<10), schema)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	files, err := generateText(doc, ir.Limits{})
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 400<<20 {
		t.Errorf("generating a snapshot of %d bytes allocated %d", len(doc), n)
	}
	total := 0
	for _, f := range files {
		total += len(f.Data)
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.SkipObjectResolution); err != nil {
			t.Fatalf("%s does not parse: %v", f.Name, err)
		}
	}
	// The names are in the JSON texts, the struct tags and the pointers
	// of validation errors, a few times each; the Go identifiers must not
	// multiply them.
	if total > 16<<20 {
		t.Errorf("the package is %d bytes for a snapshot of %d", total, len(doc))
	}
}
