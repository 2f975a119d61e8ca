package ir

import (
	"fmt"
	"testing"
)

// bodyTool is a tool whose property prop is an object of the properties
// props, described after the tool.
func bodyTool(name, prop, props string) string {
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{%q:{"type":"object","description":%q,"properties":{%s}}}}}`,
		name, prop, "the "+prop+" of "+name, props)
}

// defsTool is a tool whose property body is the definition outer, an
// object described after the tool whose property in is the definition
// inner.
func defsTool(name, outer, inner string) string {
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"body":{"$ref":"#/$defs/%s"}},"$defs":{
		%q:{"type":"object","description":%q,"properties":{"in":{"$ref":"#/$defs/%s"}}},
		%q:{"type":"object","properties":{"n":{"type":"integer"}}}}}}`, name, outer, outer, "outer of "+name, inner, inner)
}

// treeTool is a tool whose property body is the definition node, an
// object whose children are nodes in turn, of the properties props.
func treeTool(name, node, props string) string {
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"body":{"$ref":"#/$defs/%s"}},"$defs":{
		%q:{"type":"object","properties":{%s,"children":{"type":"array","items":{"$ref":"#/$defs/%s"}}}}}}}`, name, node, node, props, node)
}

const bodyProps = `"x":{"type":"string","minLength":1},"inner":{"type":"object","properties":{"n":{"type":"integer"}}}`

// aliases maps each alias of pkg to the name of the type it aliases.
func aliases(pkg *Package) map[string]string {
	out := map[string]string{}
	for _, t := range pkg.Types {
		if t.AliasOf != nil {
			out[t.Name] = t.AliasOf.Name
		}
	}
	return out
}

// TestIdenticalStructsAreAliases checks which structs become aliases of
// an identical earlier one: structs of other names but the same shape,
// whatever their descriptions, enums of the same values, and the structs
// that hold them in turn; not those of other constraints or whose enums
// differ, and none when sharing is off or the type is kept per tool.
func TestIdenticalStructsAreAliases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		tools []string
		want  map[string]string
	}{
		{"identical apart from the names", Options{}, []string{bodyTool("a", "body", bodyProps), bodyTool("b", "payload", bodyProps)},
			map[string]string{"BPayload": "ABody"}},
		{"other constraints", Options{}, []string{bodyTool("a", "body", bodyProps), bodyTool("b", "payload", `"x":{"type":"string","minLength":2}`)},
			map[string]string{}},
		{"identical definitions within", Options{}, []string{defsTool("a", "Outer1", "In1"), defsTool("b", "Outer2", "In2")},
			map[string]string{"BOuter2": "AOuter1", "BIn2": "AIn1"}},
		{"identical enums within", Options{}, []string{bodyTool("a", "body", `"mode":{"enum":["x","y"]}`), bodyTool("b", "payload", `"mode":{"enum":["x","y"]}`)},
			map[string]string{"BPayload": "ABody", "BPayloadMode": "ABodyMode"}},
		{"enums of other values", Options{}, []string{bodyTool("a", "body", `"mode":{"enum":["x","y"]}`), bodyTool("b", "payload", `"mode":{"enum":["y","x"]}`)},
			map[string]string{}},
		{"identical recursive definitions", Options{}, []string{treeTool("a", "Node1", `"x":{"type":"string","minLength":1}`), treeTool("b", "Node2", `"x":{"type":"string","minLength":1}`)},
			map[string]string{"BNode2": "ANode1"}},
		{"recursive definitions of other constraints", Options{}, []string{treeTool("a", "Node1", `"x":{"type":"string","minLength":1}`), treeTool("b", "Node2", `"x":{"type":"string","minLength":2}`)},
			map[string]string{}},
		{"a recursive definition and a struct of its shape", Options{}, []string{treeTool("a", "Node1", `"x":{"type":"string"}`),
			`{"name":"b","inputSchema":{"type":"object","properties":{"body":{"type":"object","properties":{"x":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node2"}}}}},"$defs":{
			"Node2":{"type":"object","properties":{"x":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node2"}}}}}}}`},
			map[string]string{"BBody": "ANode1", "BNode2": "ANode1"}},
		{"required recursive and not recursive", Options{}, []string{
			`{"name":"a","inputSchema":{"type":"object","properties":{"holder":{"type":"object","required":["n"],"properties":{"n":{"$ref":"#/$defs/Node1"}}}},"$defs":{
			"Node1":{"type":"object","properties":{"x":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node1"}}}}}}}`,
			`{"name":"b","inputSchema":{"type":"object","properties":{"holder":{"type":"object","required":["n"],"properties":{"n":{"type":"object","properties":{"x":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node2"}}}}}}},"$defs":{
			"Node2":{"type":"object","properties":{"x":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node2"}}}}}}}`},
			map[string]string{"BHolderN": "ANode1", "BNode2": "ANode1"}},
		{"per tool", Options{Sharing: Sharing{PerTool: true}}, []string{bodyTool("a", "body", bodyProps), bodyTool("b", "payload", bodyProps)},
			map[string]string{}},
		{"kept per tool", Options{Sharing: Sharing{Except: []string{"b#/inputSchema/$defs/Outer2"}}}, []string{defsTool("a", "Outer1", "In1"), defsTool("b", "Outer2", "In2")},
			map[string]string{"BIn2": "AIn1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := aliases(buildSharing(t, tc.opts, tc.tools...))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("aliases %v, want %v", got, tc.want)
			}
		})
	}
}
