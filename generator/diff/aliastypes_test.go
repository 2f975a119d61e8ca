package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// objTool is a tool whose property prop is an object of the properties
// props: tools naming the property differently get structs of different
// names, which are aliases of one type while the objects are identical.
func objTool(name, prop, props string) runtime.Tool {
	return runtime.Tool{Name: name, InputSchema: []byte(fmt.Sprintf(
		`{"type":"object","properties":{%q:{"type":"object","properties":{%s}}}}`, prop, props))}
}

const objProps = `"x":{"type":"string"}`

// TestAliasSplitIsGoAPI checks the GO_API marker where a struct is an
// alias of an identical one: a type that stops being identical is no
// longer the same Go type, which is reported at every tool that uses it,
// whether its own schema or the one of the type it aliased changed; a
// change that keeps the types identical is not.
func TestAliasSplitIsGoAPI(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []runtime.Tool
		want     map[string][]want
		// sharedWhy: the change at b says that c shares the type, as
		// for a type shared by several tools.
		sharedWhy bool
	}{
		{"the alias's tools change it",
			[]runtime.Tool{objTool("a", "body", objProps), objTool("b", "payload", objProps), objTool("c", "payload", objProps)},
			[]runtime.Tool{objTool("a", "body", objProps), objTool("b", "payload", objProps+`,"y":{"type":"string"}`), objTool("c", "payload", objProps+`,"y":{"type":"string"}`)},
			map[string][]want{
				"b": {{PropertyAdded, "/properties/payload/properties/y", Info, true}},
				"c": {{PropertyAdded, "/properties/payload/properties/y", Info, true}},
			}, false},
		{"the aliased type's tool changes it",
			[]runtime.Tool{objTool("a", "body", objProps), objTool("b", "payload", objProps), objTool("c", "payload", objProps)},
			[]runtime.Tool{objTool("a", "body", objProps+`,"y":{"type":"string"}`), objTool("b", "payload", objProps), objTool("c", "payload", objProps)},
			map[string][]want{
				"a": {{PropertyAdded, "/properties/body/properties/y", Info, false}},
				"b": {{GoTypeChanged, "/properties/payload", Info, true}},
			}, true},
		{"both change alike",
			[]runtime.Tool{objTool("a", "body", objProps), objTool("b", "payload", objProps)},
			[]runtime.Tool{objTool("a", "body", objProps+`,"y":{"type":"string"}`), objTool("b", "payload", objProps+`,"y":{"type":"string"}`)},
			map[string][]want{
				"a": {{PropertyAdded, "/properties/body/properties/y", Info, false}},
				"b": {{PropertyAdded, "/properties/payload/properties/y", Info, false}},
			}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]want{}
			for _, c := range changes {
				got[c.Tool] = append(got[c.Tool], want{c.Rule, c.Pointer, c.Severity, c.GoAPI})
			}
			for _, tool := range []string{"a", "b", "c"} {
				if !sameWants(got[tool], tc.want[tool]) {
					t.Errorf("changes of %s:%s\nwant:%s", tool, fmtWants(got[tool]), fmtWants(tc.want[tool]))
				}
			}
			if tc.sharedWhy {
				for _, c := range changes {
					if c.Tool == "b" && (!strings.Contains(c.Summary, "type Payload") || !strings.Contains(c.Why, "shared with c")) {
						t.Errorf("change of b: %q: %q, want one naming type Payload, shared with c", c.Summary, c.Why)
					}
				}
			}
		})
	}
}

// TestValidateDroppedIsGoAPI checks that a nested struct left with
// nothing to check, which then has no Validate method, is a Go API change;
// one that gains a check, and the method, is not.
func TestValidateDroppedIsGoAPI(t *testing.T) {
	checked := objTool("a", "body", `"x":{"type":"string","minLength":1}`)
	unchecked := objTool("a", "body", `"x":{"type":"string"}`)
	for _, tc := range []struct {
		name     string
		old, new runtime.Tool
		goAPI    bool
	}{
		{"the last check is removed", checked, unchecked, true},
		{"a first check is added", unchecked, checked, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools([]runtime.Tool{tc.old}, []runtime.Tool{tc.new})
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != 1 || changes[0].GoAPI != tc.goAPI || tc.goAPI && !strings.Contains(changes[0].Why, "ABody.Validate") {
				t.Errorf("changes:%s\nwant one change, GO_API %v, naming ABody.Validate if so", fmtWants(wants(changes)), tc.goAPI)
				for _, c := range changes {
					t.Log(c.Why)
				}
			}
		})
	}
}

// TestEnumAliasSplitIsGoAPI checks the same for an enum that is an alias
// of an identical one and gains a value.
func TestEnumAliasSplitIsGoAPI(t *testing.T) {
	tool := func(urgency string) runtime.Tool {
		return runtime.Tool{Name: "a", InputSchema: []byte(`{"type":"object","properties":{
			"importance":{"enum":["low","high"]},"urgency":{"enum":[` + urgency + `]}}}`)}
	}
	changes, err := Tools([]runtime.Tool{tool(`"low","high"`)}, []runtime.Tool{tool(`"low","high","now"`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !changes[0].GoAPI || !strings.Contains(changes[0].Why, "type AUrgency") {
		t.Errorf("changes:%s\nwant one GO_API change naming type AUrgency", fmtWants(wants(changes)))
		for _, c := range changes {
			t.Log(c.Why)
		}
	}
}

// TestRecursiveAliasSplitIsGoAPI checks the same for recursive types: a
// tree node identical in two tools is one Go type, so a change of the
// node of the tool whose type the other aliases is a Go API change at
// the other tool too.
func TestRecursiveAliasSplitIsGoAPI(t *testing.T) {
	tree := func(name, node, props string) runtime.Tool {
		return runtime.Tool{Name: name, InputSchema: []byte(fmt.Sprintf(`{"type":"object","properties":{"body":{"$ref":"#/$defs/%s"}},"$defs":{
			%q:{"type":"object","properties":{%s,"children":{"type":"array","items":{"$ref":"#/$defs/%s"}}}}}}`, node, node, props, node))}
	}
	old := []runtime.Tool{tree("a", "Node1", objProps), tree("b", "Node2", objProps)}
	changed := []runtime.Tool{tree("a", "Node1", objProps+`,"y":{"type":"string"}`), tree("b", "Node2", objProps)}
	changes, err := Tools(old, changed)
	if err != nil {
		t.Fatal(err)
	}
	var atB []Change
	for _, c := range changes {
		if c.Tool == "b" {
			atB = append(atB, c)
		}
	}
	if len(atB) != 1 || atB[0].Rule != GoTypeChanged || !atB[0].GoAPI {
		t.Errorf("changes:%s\nwant one Go API change of the Go type at b, whose node was an alias of a's", fmtWants(wants(changes)))
	}
}
