package emit

import (
	"errors"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// TestGenerateRefusesRedeclaredNames generates a package in which a
// type derived from a tool takes an identifier a part declares, as
// happened when the IR did not know the provider parts' identifiers (a
// tool anthropic with an object property declared_names): Generate
// returns a *RedeclaredError naming both files instead of code that does
// not compile.
func TestGenerateRefusesRedeclaredNames(t *testing.T) {
	saved := ir.Declared[ir.PartAnthropic]
	ir.Declared[ir.PartAnthropic] = slices.DeleteFunc(slices.Clone(saved), func(s string) bool { return s == "AnthropicDeclaredNames" })
	defer func() { ir.Declared[ir.PartAnthropic] = saved }()
	snap, err := snapshot.Read("t.json", []byte(`{"tools":[{"name":"anthropic","inputSchema":{"type":"object","properties":{
		"declared_names":{"type":"object","properties":{"a":{"type":"string"}}}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(snap, ir.Options{Package: "p", Parts: []string{ir.PartTypes, ir.PartAnthropic}})
	var re *RedeclaredError
	if !errors.As(err, &re) || re.Name != "AnthropicDeclaredNames" || !slices.Equal(re.Files, []string{"anthropic.go", "types.go"}) {
		t.Fatalf("got files %d, error %v; want a RedeclaredError for AnthropicDeclaredNames in anthropic.go and types.go", len(files), err)
	}
	// With the name registered, the type gives way.
	ir.Declared[ir.PartAnthropic] = saved
	if _, err := generate(snap, ir.Options{Package: "p", Parts: []string{ir.PartTypes, ir.PartAnthropic}}); err != nil {
		t.Fatal(err)
	}
}

// generate builds the IR of snap's tools and renders it, as the generator's
// pipeline does.
func generate(snap *snapshot.Snapshot, opts ir.Options) ([]File, error) {
	pkg, err := ir.BuildOptions(snap.Tools, opts)
	if err != nil {
		return nil, err
	}
	return Render(pkg, opts)
}

// TestDeclarations lists the package-level declarations of a file,
// methods by their receiver's type, and finds one declared twice.
func TestDeclarations(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "a.go", `package p
type T struct{}
type (
	U int
	V[K comparable] map[K]int
)
var a, _, b = 1, 2, 3
const c = 1
func init() {}
func F() { type Local int }
func (t *T) M() {}
func (V[K]) N() {}
`, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := declared(f)
	if want := []string{"T", "U", "V", "a", "b", "c", "F", "T.M", "V.N"}; !slices.Equal(got, want) {
		t.Errorf("declarations = %v, want %v", got, want)
	}
	err = checkDeclarations(map[string][]string{"a.go": {"T", "T.M"}, "b.go": {"T.M", "U", "U"}})
	var re *RedeclaredError
	if !errors.As(err, &re) || re.Name != "T.M" || !slices.Equal(re.Files, []string{"a.go", "b.go"}) {
		t.Errorf("got %v", err)
	}
}
