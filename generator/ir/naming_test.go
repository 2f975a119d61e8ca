package ir

import (
	"fmt"
	"slices"
	"testing"
)

// relationTool is a tool of server-memory's shape: a relations array whose
// items describe their properties with desc, in the input or the output.
func relationTool(name, section, desc string) string {
	schema := fmt.Sprintf(`{"type":"object","properties":{"relations":{"type":"array","items":{"type":"object","properties":{"from":{"type":"string","description":%q},"to":{"type":"string"}},"required":["from","to"]}}},"required":["relations"]}`, desc)
	if section == "input" {
		return fmt.Sprintf(`{"name":%q,"inputSchema":%s}`, name, schema)
	}
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"},"outputSchema":%s}`, name, schema)
}

// TestInputTypesTakeThePlainName builds two shapes that want the name
// RelationsItem: one in the input of two tools, the other in the output of
// three. The input type, which callers spell when they build arguments,
// gets the plain name, although fewer tools use it.
func TestInputTypesTakeThePlainName(t *testing.T) {
	pkg := buildSharing(t, Options{},
		relationTool("create_relations", "input", "The start"),
		relationTool("delete_relations", "input", "The start"),
		relationTool("open_nodes", "output", "The name of the entity where the relation starts"),
		relationTool("read_graph", "output", "The name of the entity where the relation starts"),
		relationTool("search_nodes", "output", "The name of the entity where the relation starts"))
	for _, tl := range pkg.Tools {
		root := tl.Args
		if tl.Result != nil {
			root = tl.Result
		}
		if len(root.Fields) == 0 {
			t.Fatalf("%s: no relations field", tl.Name)
		}
		item := root.Fields[0].Type.Elem.Name
		input := tl.Result == nil
		if input != (item == "RelationsItem") {
			t.Errorf("%s: relations items are %s; want RelationsItem for the input type only", tl.Name, item)
		}
	}
	// The rule holds whatever the order of the tools.
	again := buildSharing(t, Options{},
		relationTool("a_read", "output", "X"), relationTool("b_read", "output", "X"), relationTool("z_write", "input", "Y"), relationTool("y_write", "input", "Y"))
	var names []string
	for _, tl := range again.Tools {
		if tl.Result == nil {
			names = append(names, tl.Args.Fields[0].Type.Elem.Name)
		}
	}
	if !slices.Equal(names, []string{"RelationsItem", "RelationsItem"}) {
		t.Errorf("input items are %v, want RelationsItem", names)
	}
}

// TestGenericNamesAreQualified builds tools whose properties have generic
// names (type, status): at the root of a tool the type keeps the tool's
// prefix instead of being shared as a bare Type; inside a struct several
// tools share, it is named after that struct.
func TestGenericNamesAreQualified(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{
			"type":{"type":"string","enum":["a","b"]},
			"status":{"type":"string","enum":["open","closed"]},
			"geometry":{"type":"object","properties":{"type":{"type":"string","enum":["Point","Line"]}}}}}}`, name)
	}
	pkg := buildSharing(t, Options{}, tool("list_issues"), tool("get_issue"))
	ids := goIdentifiers(pkg)
	for _, want := range []string{"type ListIssuesType", "type GetIssueType", "type ListIssuesStatus", "type GetIssueStatus", "type Geometry", "type GeometryType", "const GeometryTypePoint", "field Geometry.Type"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no %s among %v", want, ids)
		}
	}
	for _, bare := range []string{"type Type", "type Status"} {
		if _, ok := ids[bare]; ok {
			t.Errorf("the package declares the bare %s", bare)
		}
	}
	if ids["field GetIssueArgs.Geometry"] != ids["field ListIssuesArgs.Geometry"] {
		t.Errorf("the tools do not share Geometry: %s and %s", ids["field GetIssueArgs.Geometry"], ids["field ListIssuesArgs.Geometry"])
	}
}

// TestUnionBranchesNamedByWhatTellsThemApart builds unions of two string
// branches: the fields are named by the branches' format, enum or pattern
// (brave-search's freshness: an enum or a date range), not String and
// String2.
func TestUnionBranchesNamedByWhatTellsThemApart(t *testing.T) {
	pkg := buildSharing(t, Options{}, `{"name":"search","inputSchema":{"type":"object","properties":{
		"freshness":{"anyOf":[{"type":"string","enum":["pd","pw"]},{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}to\\d{4}-\\d{2}-\\d{2}$"}]},
		"url":{"anyOf":[{"type":"string","format":"uri"},{"type":"string","format":"date-time"},{"type":"integer"}]},
		"plain":{"anyOf":[{"type":"string"},{"type":"string"}]},
		"two":{"anyOf":[{"type":"string","pattern":"^a"},{"type":"string","pattern":"^b"},{"type":"string","format":"email"}]}}}}`)
	want := map[string][]string{"freshness": {"StringEnum", "StringPattern"}, "url": {"StringURI", "StringDateTime", "Int"}, "plain": {"String", "String2"}, "two": {"String", "String2", "StringEmail"}}
	for _, f := range pkg.Tools[0].Args.Fields {
		u := f.Type.Underlying()
		var got []string
		for _, b := range u.Branches {
			got = append(got, b.GoName)
		}
		if !slices.Equal(got, want[f.JSONName]) {
			t.Errorf("%s: branches %v, want %v", f.JSONName, got, want[f.JSONName])
		}
	}
}
