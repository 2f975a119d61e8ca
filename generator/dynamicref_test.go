package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// dynamicTree is a recursive tree whose children refer back to the node
// through $dynamicRef and $dynamicAnchor (JSON Schema 2020-12).
const dynamicTree = `{"tools":[{"name":"plant","description":"Plants a tree.","inputSchema":{
	"$schema":"https://json-schema.org/draft/2020-12/schema",
	"type":"object","properties":{"tree":{"$dynamicRef":"#node"}},"required":["tree"],
	"$defs":{"node":{"$dynamicAnchor":"node","type":"object",
		"properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$dynamicRef":"#node"}}},
		"required":["label"]}}}}]}`

// TestDynamicRefTree resolves a $dynamicRef to its $dynamicAnchor in every
// schema consumer: the Go types recurse and compile, the Gemini
// declaration describes the nested nodes, the provider schemas keep the
// reference resolvable, and diff follows it.
func TestDynamicRefTree(t *testing.T) {
	snap, err := snapshot.Read("tree.json", []byte(dynamicTree))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := ir.BuildOptions(snap.Tools, ir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree := pkg.Tools[0].Args.Fields[0].Type
	if tree.Kind != ir.Struct || len(tree.Fields) != 2 {
		t.Fatalf("tree is %v with %d fields, want a struct of label and children", tree.Kind, len(tree.Fields))
	}
	children := tree.Fields[1].Type
	if children.Kind != ir.Slice || children.Elem != tree {
		t.Errorf("children is %v of %v, want a slice of the tree's own type", children.Kind, children.Elem)
	}

	rt := snap.RuntimeTools()
	decls, _, err := gemini.Declarations(rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := decls[0].Parameters.Properties["tree"]
	if g == nil || g.Properties["children"] == nil || g.Properties["children"].Items == nil ||
		g.Properties["children"].Items.Properties["label"] == nil {
		t.Errorf("the Gemini declaration does not describe the children's labels: %+v", g)
	}

	root, _, err := provschema.Root(rt[0].Name, rt[0].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if strict, reason := provschema.Strict(root); reason != "" {
		t.Errorf("no strict OpenAI schema: %s", reason)
	} else if !strings.Contains(strict.String(), `"items":{"$ref":"#/$defs/node"}`) {
		t.Errorf("the strict schema does not refer to the node definition: %s", strict)
	}

	// Changing the node changes the children too: diff follows the
	// reference to the definition.
	changed := []byte(strings.Replace(string(rt[0].InputSchema), `"label":{"type":"string"}`, `"label":{"type":"integer"}`, 1))
	newTools := []snapshot.Tool{snap.Tools[0]}
	old := snap.RuntimeTools()
	cur := (&snapshot.Snapshot{Tools: newTools}).RuntimeTools()
	cur[0].InputSchema = changed
	changes, err := diff.Tools(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range changes {
		if strings.Contains(c.Pointer, "label") {
			found = true
		}
	}
	if !found {
		t.Errorf("diff reports no change of the node's label: %+v", changes)
	}

	if testing.Short() {
		return
	}
	files, err := Generate(Config{From: snap, Snapshot: "tree.json", Options: Options{Package: "tree"}})
	if err != nil {
		t.Fatal(err)
	}
	vetFiles(t, "dynamicref-", files)
}

// vetFiles writes files to a new directory under testdata, whose name
// starts with prefix, runs go vet on the package, and removes it.
func vetFiles(t *testing.T, prefix string, files []emit.File) {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, _, err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
}
