package ir

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// mediaTool is a tool with Home Assistant's media domain and device_class
// enums, and a nested selection object.
func mediaTool(name, classes string) string {
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{
		"domain":{"type":"array","items":{"type":"string","enum":["media_player"]}},
		"device_class":{"type":"array","items":{"type":"string","enum":[%s]}},
		"selection":{"type":"object","properties":{"area":{"type":"string"},"how":{"enum":["any","all"]}}}}}}`, name, classes)
}

const mediaClasses = `"tv","speaker","receiver"`

func buildSharing(t *testing.T, opts Options, tools ...string) *Package {
	t.Helper()
	s, err := snapshot.Read("t.json", []byte("["+strings.Join(tools, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := BuildOptions(s.Tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// goIdentifiers lists the package-level identifiers of pkg and the fields of
// its structs, each with the type it has.
func goIdentifiers(pkg *Package) map[string]string {
	out := map[string]string{}
	var name func(t *Type) string
	name = func(t *Type) string {
		switch {
		case t.IsNamed():
			return t.Name
		case t.Kind == Slice:
			return "[]" + name(t.Elem)
		case t.Kind == Nullable:
			return "*" + name(t.Elem)
		}
		return kindWord(t.Kind)
	}
	for _, t := range pkg.Types {
		out["type "+t.Name] = kindWord(t.Kind)
		for _, v := range t.Values {
			out["const "+v.GoName] = t.Name
		}
		for _, f := range t.Fields {
			out["field "+t.Name+"."+f.GoName] = name(f.Type)
		}
	}
	return out
}

func fieldType(t *testing.T, pkg *Package, tool, field string) *Type {
	t.Helper()
	for _, tl := range pkg.Tools {
		if tl.Name != tool {
			continue
		}
		for _, f := range tl.Args.Fields {
			if f.JSONName == field {
				return f.Type.Underlying()
			}
		}
	}
	t.Fatalf("tool %s has no field %s", tool, field)
	return nil
}

func TestIdenticalEnumsAcrossToolsAreOneType(t *testing.T) {
	pkg := buildSharing(t, Options{}, mediaTool("HassMediaNext", mediaClasses), mediaTool("HassMediaPause", mediaClasses))
	next, pause := fieldType(t, pkg, "HassMediaNext", "device_class"), fieldType(t, pkg, "HassMediaPause", "device_class")
	if next.Elem != pause.Elem || next.Elem.Name != "DeviceClass" {
		t.Errorf("device_class items are %s and %s, want one type DeviceClass", next.Elem.Name, pause.Elem.Name)
	}
	if got := next.Elem.SharedBy; !slices.Equal(got, []string{"HassMediaNext", "HassMediaPause"}) {
		t.Errorf("SharedBy = %v", got)
	}
	ids := goIdentifiers(pkg)
	for _, want := range []string{"type Domain", "type DeviceClass", "const DeviceClassTv", "type Selection", "type How", "const HowAny", "field Selection.How"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no %s among %v", want, ids)
		}
	}
	if n := len(pkg.Types); n != 6 {
		t.Errorf("%d types, want 6: two Args, Domain, DeviceClass, Selection, How", n)
	}
}

// TestAddingToolThatReusesEnumKeepsIdentifiers checks that a new tool using
// the shared types renames nothing, and that a tool of its own keeps its
// per-tool names however many tools there are.
func TestAddingToolThatReusesEnumKeepsIdentifiers(t *testing.T) {
	light := `{"name":"HassLightSet","inputSchema":{"type":"object","properties":{"domain":{"type":"array","items":{"enum":["light"]}}}}}`
	before := goIdentifiers(buildSharing(t, Options{}, mediaTool("HassMediaNext", mediaClasses), mediaTool("HassMediaPause", mediaClasses), light))
	after := goIdentifiers(buildSharing(t, Options{}, mediaTool("HassMediaNext", mediaClasses), mediaTool("HassMediaPause", mediaClasses), light,
		mediaTool("HassMediaAAA", mediaClasses)))
	for id, typ := range before {
		if after[id] != typ {
			t.Errorf("%s (%s) became %q after adding a tool", id, typ, after[id])
		}
	}
	if _, ok := before["type HassLightSetDomain"]; !ok {
		t.Errorf("the light domain, used by one tool, is not HassLightSetDomain: %v", before)
	}
	if _, ok := after["type HassMediaAAADeviceClass"]; ok {
		t.Error("the new tool got a device class of its own")
	}
}

// TestEnumDifferingByOneValueGetsOwnType checks that a tool whose enum has
// one more value keeps a type of its own, and that the enums of the others
// are still shared.
func TestEnumDifferingByOneValueGetsOwnType(t *testing.T) {
	pkg := buildSharing(t, Options{}, mediaTool("HassMediaNext", mediaClasses), mediaTool("HassMediaPause", mediaClasses),
		mediaTool("HassMediaStop", mediaClasses+`,"soundbar"`))
	stop := fieldType(t, pkg, "HassMediaStop", "device_class").Elem
	if stop.Name != "HassMediaStopDeviceClass" || len(stop.Values) != 4 {
		t.Errorf("HassMediaStop's device class is %s with %d values, want HassMediaStopDeviceClass with 4", stop.Name, len(stop.Values))
	}
	if got := fieldType(t, pkg, "HassMediaNext", "device_class").Elem.Name; got != "DeviceClass" {
		t.Errorf("the shared device class is %s, want DeviceClass", got)
	}
	// Its domain and selection are the same as the others': still shared.
	if got := fieldType(t, pkg, "HassMediaStop", "domain").Elem.Name; got != "Domain" {
		t.Errorf("HassMediaStop's domain is %s, want Domain", got)
	}
}

// TestSharedNamesCollide checks that two shapes several tools share under
// one name are told apart by a suffix from the hash of their shape: the
// one more tools use keeps the name, and the order of the tools decides
// nothing.
func TestSharedNamesCollide(t *testing.T) {
	tools := []string{
		mediaTool("a", mediaClasses), mediaTool("b", mediaClasses), mediaTool("c", mediaClasses),
		mediaTool("d", `"garage","door"`), mediaTool("e", `"garage","door"`),
	}
	pkg := buildSharing(t, Options{}, tools...)
	if got := fieldType(t, pkg, "a", "device_class").Elem.Name; got != "DeviceClass" {
		t.Errorf("the device class of three tools is %s, want DeviceClass", got)
	}
	other := fieldType(t, pkg, "d", "device_class").Elem.Name
	if !strings.HasPrefix(other, "DeviceClass_") || len(other) != len("DeviceClass_")+4 {
		t.Errorf("the device class of two tools is %s, want DeviceClass_ and four hex digits", other)
	}
	slices.Reverse(tools)
	if got := fieldType(t, buildSharing(t, Options{}, tools...), "d", "device_class").Elem.Name; got != other {
		t.Errorf("in reverse order the device class of two tools is %s, want %s", got, other)
	}
}

// TestOverrideSplitsSharedType checks that a go_name override on a property
// of a shared object applies to the one tool it names: that tool's object
// gets a type of its own, the others keep sharing theirs.
func TestOverrideSplitsSharedType(t *testing.T) {
	pkg := buildSharing(t, Options{Overrides: map[string]Override{"c#/inputSchema/properties/selection/properties/how": {GoName: "Match"}}},
		mediaTool("a", mediaClasses), mediaTool("b", mediaClasses), mediaTool("c", mediaClasses))
	a, c := fieldType(t, pkg, "a", "selection"), fieldType(t, pkg, "c", "selection")
	if a.Name != "Selection" || c.Name != "CSelection" {
		t.Fatalf("selections are %s and %s, want Selection and CSelection", a.Name, c.Name)
	}
	if c.Fields[1].GoName != "Match" || a.Fields[1].GoName != "How" {
		t.Errorf("the how fields are %s and %s, want How and Match", a.Fields[1].GoName, c.Fields[1].GoName)
	}
	// The enum inside is the same for all three.
	if a.Fields[1].Type != c.Fields[1].Type || a.Fields[1].Type.Name != "How" {
		t.Errorf("the how enums are %s and %s, want one How", a.Fields[1].Type.Name, c.Fields[1].Type.Name)
	}
}

func TestSharingOptOut(t *testing.T) {
	tools := []string{mediaTool("a", mediaClasses), mediaTool("b", mediaClasses)}
	perTool := goIdentifiers(buildSharing(t, Options{Sharing: Sharing{PerTool: true}}, tools...))
	for _, want := range []string{"type ADeviceClass", "type BDeviceClass", "type ADomain", "type BSelection"} {
		if _, ok := perTool[want]; !ok {
			t.Errorf("PerTool: no %s among %v", want, perTool)
		}
	}
	pkg := buildSharing(t, Options{Sharing: Sharing{Except: []string{"DeviceClass", "b#/inputSchema/properties/domain"}}}, tools...)
	ids := goIdentifiers(pkg)
	for _, want := range []string{"type ADeviceClass", "type BDeviceClass", "type ADomain", "type BDomain", "type Selection"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("Except: no %s among %v", want, ids)
		}
	}
	s, _ := snapshot.Read("t.json", []byte("["+strings.Join(tools, ",")+"]"))
	_, err := BuildOptions(s.Tools, Options{Sharing: Sharing{Except: []string{"DeviceKind"}}})
	if err == nil || !strings.Contains(err.Error(), "DeviceKind") {
		t.Errorf("an Except entry matching nothing gave %v, want an error naming it", err)
	}
}

// TestIdenticalObjectsWithinToolAreOneType checks that the same object at
// several places of one tool is one type, named after the tool and its
// own property name, while an object used once keeps its name.
func TestIdenticalObjectsWithinToolAreOneType(t *testing.T) {
	git := `{"type":"object","properties":{"repo":{"type":"string"},"branch":{"type":"string"}}}`
	pkg := buildSharing(t, Options{}, `{"name":"apps_create","inputSchema":{"type":"object","properties":{
		"services":{"type":"array","items":{"type":"object","properties":{"git":`+git+`}}},
		"workers":{"type":"array","items":{"type":"object","properties":{"git":`+git+`,"size":{"type":"object","properties":{"n":{"type":"integer"}}}}}}}}}`)
	ids := goIdentifiers(pkg)
	for _, want := range []string{"type AppsCreateGit", "field AppsCreateServicesItem.Git", "field AppsCreateWorkersItem.Size", "type AppsCreateWorkersItemSize"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no %s among %v", want, ids)
		}
	}
	if ids["field AppsCreateServicesItem.Git"] != "AppsCreateGit" || ids["field AppsCreateWorkersItem.Git"] != "AppsCreateGit" {
		t.Errorf("the git fields are %s and %s, want AppsCreateGit", ids["field AppsCreateServicesItem.Git"], ids["field AppsCreateWorkersItem.Git"])
	}
}

// TestRecursiveTypesAreNotShared checks that self-referring types keep a
// type per tool.
func TestRecursiveTypesAreNotShared(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},
			"properties":{"head":{"$ref":"#/$defs/node"}}}}`, name)
	}
	ids := goIdentifiers(buildSharing(t, Options{}, tool("a"), tool("b")))
	for _, want := range []string{"type ANode", "type BNode"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no %s among %v", want, ids)
		}
	}
}

// TestDeeplyNestedSharedObjects checks that the shape keys of nested
// objects stay short: a key that quoted the keys of the objects within
// doubled its escapes at each level, and 60 levels never finished.
func TestDeeplyNestedSharedObjects(t *testing.T) {
	schema := `{"type":"string"}`
	for range 60 {
		schema = `{"type":"object","properties":{"in":` + schema + `}}`
	}
	tool := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"deep":%s}}}`, name, schema)
	}
	pkg := buildSharing(t, Options{}, tool("a"), tool("b"))
	if a, b := fieldType(t, pkg, "a", "deep"), fieldType(t, pkg, "b", "deep"); a != b || a.Name != "Deep" {
		t.Errorf("the deep objects are %s and %s, want one Deep", a.Name, b.Name)
	}
}

// TestShapeKeyText checks that the shape keys are written as fmt wrote
// them: the names of shared types hash their keys, so another spelling
// would rename types.
func TestShapeKeyText(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	for _, c := range []Constraints{
		{},
		{Minimum: &Bound{Lit: "1.5", Exclusive: true}, Maximum: &Bound{Lit: "9"}, MultipleOf: "3", MinLength: i(1), MaxLength: i(2),
			MinItems: i(0), MaxItems: i(7), MinEntries: i(1), MaxEntries: i(-1), Patterns: []string{"^a\"", "b"}, KeyPatterns: []string{"k"}, Format: "date-time"},
	} {
		bound := func(x *Bound) string {
			if x == nil {
				return "-"
			}
			return fmt.Sprintf("%s/%t", x.Lit, x.Exclusive)
		}
		n := func(x *int64) string {
			if x == nil {
				return "-"
			}
			return fmt.Sprint(*x)
		}
		want := fmt.Sprintf(" [%s %s %q %s %s %s %s %s %s %q %q %q]", bound(c.Minimum), bound(c.Maximum), c.MultipleOf,
			n(c.MinLength), n(c.MaxLength), n(c.MinItems), n(c.MaxItems), n(c.MinEntries), n(c.MaxEntries),
			c.Patterns, c.KeyPatterns, c.Format)
		var b bytes.Buffer
		writeConstraints(&b, &c)
		if b.String() != want {
			t.Errorf("constraints written as %s, want %s", b.String(), want)
		}
		typ := &Type{Kind: Struct, Base: String, GoType: "int32", Closed: true, Recursive: true, Doc: "a \"doc\"", Constraints: c,
			Fields: []*Field{{JSONName: "x", GoName: "X", Doc: "d", Required: true, Type: &Type{Kind: Bool}}}}
		b.Reset()
		(&sharer{keys: map[*Type]string{}, busy: map[*Type]bool{}, cyclic: map[*Type]bool{}}).write(&b, typ)
		head := fmt.Sprintf("{%d %d %q %t %t %t %q", typ.Kind, typ.Base, typ.GoType, typ.Closed, typ.OneOf, typ.Recursive, typ.Doc)
		field := fmt.Sprintf(" field %q%q%q%t {%d", "x", "X", "d", true, Bool)
		if !strings.HasPrefix(b.String(), head+want) || !strings.Contains(b.String(), field) {
			t.Errorf("type written as %s, want it to start with %s and hold %s", b.String(), head+want, field)
		}
	}
}

// TestWriteQuoted checks writeQuoted against strconv.Quote, on texts that
// take its fast path and texts that need escapes.
func TestWriteQuoted(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "a \"quote\"", `back\slash`, "tab\there", "new\nline", "del\x7f", "caf\u00e9", "bad \xff",
		"~ and space", strings.Repeat("long ", 40), strings.Repeat("é", 40),
	} {
		var b bytes.Buffer
		writeQuoted(&b, s)
		if want := strconv.Quote(s); b.String() != want {
			t.Errorf("writeQuoted(%q) = %s, want %s", s, b.String(), want)
		}
	}
}
