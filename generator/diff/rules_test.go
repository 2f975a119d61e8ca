package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// want is the part of a change the rule table checks.
type want struct {
	rule  Rule
	ptr   string
	sev   Severity
	goAPI bool
}

func (w want) String() string {
	api := ""
	if w.goAPI {
		api = " GO_API"
	}
	return fmt.Sprintf("%s %s %s%s", w.sev, w.rule, w.ptr, api)
}

func wants(cs []Change) []want {
	out := make([]want, len(cs))
	for i, c := range cs {
		out[i] = want{c.Rule, c.Pointer, c.Severity, c.GoAPI}
	}
	return out
}

func sameWants(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func fmtWants(ws []want) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("\n\t" + w.String())
	}
	if len(ws) == 0 {
		b.WriteString("\n\t(none)")
	}
	return b.String()
}

// inTool returns a tool named "t" with the given input schema.
func inTool(schema string) runtime.Tool {
	return runtime.Tool{Name: "t", InputSchema: []byte(schema)}
}

// outTool returns a tool named "t" with an empty input schema and the given
// output schema.
func outTool(schema string) runtime.Tool {
	return runtime.Tool{Name: "t", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(schema)}
}

// obj wraps properties (a JSON object body) and extra keywords into an
// object schema.
func obj(props string, extra ...string) string {
	s := `{"type":"object","properties":{` + props + `}`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

// ruleCases has at least one schema pair per rule, with the severity and
// marker the design notes give it.
var ruleCases = []struct {
	name     string
	output   bool // compare output schemas instead of input schemas
	old, new string
	want     []want
}{
	// Properties and required.
	{"required property added", false,
		obj(`"a":{"type":"string"}`),
		obj(`"a":{"type":"string"},"b":{"type":"string","default":"x"}`, `"required":["b"]`),
		[]want{{PropertyAddedRequired, "/properties/b", Err, false}}},
	{"optional property added", false,
		obj(`"a":{"type":"string"}`),
		obj(`"a":{"type":"string"},"b":{"type":"integer"}`),
		[]want{{PropertyAdded, "/properties/b", Info, false}}},
	{"property became required (scalar: *T to T)", false,
		obj(`"v":{"type":"integer"}`),
		obj(`"v":{"type":"integer"}`, `"required":["v"]`),
		[]want{{PropertyBecameRequired, "/properties/v", Err, true}}},
	{"property became required (slice: no pointer)", false,
		obj(`"v":{"type":"array","items":{"type":"string"}}`),
		obj(`"v":{"type":"array","items":{"type":"string"}}`, `"required":["v"]`),
		[]want{{PropertyBecameRequired, "/properties/v", Err, false}}},
	{"property became required but nullable (stays *T)", false,
		obj(`"v":{"type":["integer","null"]}`),
		obj(`"v":{"type":["integer","null"]}`, `"required":["v"]`),
		[]want{{PropertyBecameRequired, "/properties/v", Err, false}}},
	{"optional and nullable becomes required and not nullable: one move to T", false,
		obj(`"v":{"type":["integer","null"]}`),
		obj(`"v":{"type":"integer"}`, `"required":["v"]`),
		[]want{
			{PropertyBecameRequired, "/properties/v", Err, false},
			{NullableRemoved, "/properties/v", Err, true},
		}},
	{"property became optional", false,
		obj(`"v":{"type":"string"}`, `"required":["v"]`),
		obj(`"v":{"type":"string"}`),
		[]want{{PropertyBecameOptional, "/properties/v", Info, true}}},
	{"property removed", false,
		obj(`"a":{"type":"string"},"b":{"type":"string"}`),
		obj(`"a":{"type":"string"}`),
		[]want{{PropertyRemoved, "/properties/b", Warn, true}}},
	{"property removed under additionalProperties false", false,
		obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"additionalProperties":false`),
		obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
		[]want{{PropertyRemoved, "/properties/b", Err, true}}},
	{"property renamed", false,
		obj(`"a":{"type":"string"},"old_name":{"type":"integer","minimum":1}`),
		obj(`"a":{"type":"string"},"new_name":{"type":"integer","minimum":1}`),
		[]want{{PropertyRenamed, "/properties/old_name", Warn, true}}},
	{"property renamed and required", false,
		obj(`"old_name":{"type":"integer"}`),
		obj(`"new_name":{"type":"integer"}`, `"required":["new_name"]`),
		[]want{{PropertyRenamed, "/properties/old_name", Err, true}}},

	// Types and formats.
	{"type changed", false,
		obj(`"v":{"type":"string"}`),
		obj(`"v":{"type":"boolean"}`),
		[]want{{TypeChanged, "/properties/v/type", Err, true}}},
	{"type list narrowed", false,
		obj(`"v":{"type":["string","integer"]}`),
		obj(`"v":{"type":"string"}`),
		[]want{{TypeNarrowed, "/properties/v/type", Err, true}}},
	{"type widened", false,
		obj(`"v":{"type":"integer"}`),
		obj(`"v":{"type":"number"}`),
		[]want{{TypeWidened, "/properties/v/type", Info, true}}},
	{"type added to an untyped property", false,
		obj(`"v":{"description":"anything"}`),
		obj(`"v":{"description":"anything","type":"string"}`),
		[]want{{TypeNarrowed, "/properties/v/type", Err, true}}},
	{"format added", false,
		obj(`"v":{"type":"string"}`),
		obj(`"v":{"type":"string","format":"date-time"}`),
		[]want{{FormatAdded, "/properties/v/format", Err, false}}},
	{"format changed", false,
		obj(`"v":{"type":"string","format":"date"}`),
		obj(`"v":{"type":"string","format":"date-time"}`),
		[]want{{FormatChanged, "/properties/v/format", Err, false}}},
	{"format removed", false,
		obj(`"v":{"type":"string","format":"uri"}`),
		obj(`"v":{"type":"string"}`),
		[]want{{FormatRemoved, "/properties/v/format", Info, false}}},

	// Null.
	{"nullable removed from a required field (*T to T)", false,
		obj(`"v":{"type":["string","null"]}`, `"required":["v"]`),
		obj(`"v":{"type":"string"}`, `"required":["v"]`),
		[]want{{NullableRemoved, "/properties/v", Err, true}}},
	{"nullable removed from an optional field (stays *T)", false,
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"null"}]}`),
		obj(`"v":{"type":"string"}`),
		[]want{{NullableRemoved, "/properties/v", Err, false}}},
	{"nullable added", false,
		obj(`"v":{"type":"integer"}`, `"required":["v"]`),
		obj(`"v":{"type":["integer","null"]}`, `"required":["v"]`),
		[]want{{NullableAdded, "/properties/v", Info, true}}},
	{"OpenAPI nullable added (the generated type ignores it)", false,
		obj(`"v":{"type":"integer"}`, `"required":["v"]`),
		obj(`"v":{"type":"integer","nullable":true}`, `"required":["v"]`),
		[]want{{NullableAdded, "/properties/v", Info, false}}},

	// Enums and constants.
	{"enum value removed", false,
		obj(`"c":{"type":"string","enum":["a","b","c"]}`),
		obj(`"c":{"type":"string","enum":["a","c"]}`),
		[]want{{EnumValueRemoved, "/properties/c/enum", Err, true}}},
	{"enum value added", false,
		obj(`"c":{"type":"string","enum":["a"]}`),
		obj(`"c":{"type":"string","enum":["a","b"]}`),
		[]want{{EnumValueAdded, "/properties/c/enum", Info, false}}},
	{"enum value renamed", false,
		obj(`"c":{"type":"string","enum":["a","colour"]}`),
		obj(`"c":{"type":"string","enum":["a","color"]}`),
		[]want{{EnumValueRenamed, "/properties/c/enum", Err, true}}},
	{"enum added", false,
		obj(`"c":{"type":"string"}`),
		obj(`"c":{"type":"string","enum":["a","b"]}`),
		[]want{{EnumAdded, "/properties/c/enum", Err, true}}},
	{"enum removed", false,
		obj(`"c":{"type":"string","enum":["a","b"]}`),
		obj(`"c":{"type":"string"}`),
		[]want{{EnumRemoved, "/properties/c/enum", Info, true}}},
	{"const added", false,
		obj(`"k":{"type":"string"}`),
		obj(`"k":{"type":"string","const":"fixed"}`),
		[]want{{ConstAdded, "/properties/k/const", Err, true}}},
	{"const changed", false,
		obj(`"k":{"const":"v1"}`),
		obj(`"k":{"const":"v2"}`),
		[]want{{ConstChanged, "/properties/k/const", Err, false}}},
	{"const removed", false,
		obj(`"k":{"type":"string","const":"v1"}`),
		obj(`"k":{"type":"string"}`),
		[]want{{ConstRemoved, "/properties/k/const", Info, true}}},

	{"one-value enum written as const", false,
		obj(`"kind":{"type":"string","enum":["circle"]}`),
		obj(`"kind":{"type":"string","const":"circle"}`),
		[]want{{GoTypeChanged, "/properties/kind", Info, true}}},
	{"one-value enum becomes a different const", false,
		obj(`"kind":{"type":"string","enum":["circle"]}`),
		obj(`"kind":{"type":"string","const":"square"}`),
		[]want{
			{ConstAdded, "/properties/kind/const", Err, true},
			{EnumRemoved, "/properties/kind/enum", Info, true},
		}},
	{"const widened to an enum holding it", false,
		obj(`"mode":{"type":"string","const":"fast"}`),
		obj(`"mode":{"type":"string","enum":["fast","slow"]}`),
		[]want{
			{EnumValueAdded, "/properties/mode/enum", Info, false},
			{GoTypeChanged, "/properties/mode", Info, true},
		}},
	{"output: enum narrowed to a const it held", true,
		obj(`"mode":{"type":"string","enum":["fast","slow"]}`),
		obj(`"mode":{"type":"string","const":"fast"}`),
		[]want{
			{EnumValueRemoved, "/properties/mode/enum", Info, true},
			{GoTypeChanged, "/properties/mode", Info, true},
		}},

	// Limits.
	{"minimum up", false,
		obj(`"n":{"type":"integer","minimum":0}`),
		obj(`"n":{"type":"integer","minimum":1}`),
		[]want{{LimitTightened, "/properties/n/minimum", Err, false}}},
	{"maximum down", false,
		obj(`"n":{"type":"integer","maximum":100}`),
		obj(`"n":{"type":"integer","maximum":50}`),
		[]want{{LimitTightened, "/properties/n/maximum", Err, false}}},
	{"maxLength down", false,
		obj(`"s":{"type":"string","maxLength":100}`),
		obj(`"s":{"type":"string","maxLength":10}`),
		[]want{{LimitTightened, "/properties/s/maxLength", Err, false}}},
	{"minItems up", false,
		obj(`"l":{"type":"array","items":{"type":"string"},"minItems":0}`),
		obj(`"l":{"type":"array","items":{"type":"string"},"minItems":1}`),
		[]want{{LimitTightened, "/properties/l/minItems", Err, false}}},
	{"maximum up (relaxed)", false,
		obj(`"n":{"type":"integer","maximum":50}`),
		obj(`"n":{"type":"integer","maximum":100}`),
		[]want{{LimitRelaxed, "/properties/n/maximum", Info, false}}},
	{"limit newly set", false,
		obj(`"s":{"type":"string"}`),
		obj(`"s":{"type":"string","maxLength":64}`),
		[]want{{LimitAdded, "/properties/s/maxLength", Warn, false}}},
	{"limit removed", false,
		obj(`"n":{"type":"number","exclusiveMinimum":0}`),
		obj(`"n":{"type":"number"}`),
		[]want{{LimitRemoved, "/properties/n/exclusiveMinimum", Info, false}}},
	{"minimum becomes exclusive", false,
		obj(`"n":{"type":"number","minimum":0}`),
		obj(`"n":{"type":"number","exclusiveMinimum":0}`),
		[]want{{LimitTightened, "/properties/n/exclusiveMinimum", Err, false}}},
	{"draft-4 exclusive maximum spelled the draft-6 way", false,
		obj(`"n":{"type":"number","maximum":10,"exclusiveMaximum":true}`),
		obj(`"n":{"type":"number","exclusiveMaximum":10}`),
		nil},
	{"exclusive maximum relaxed to inclusive", false,
		obj(`"n":{"type":"number","exclusiveMaximum":10}`),
		obj(`"n":{"type":"number","maximum":10}`),
		[]want{{LimitRelaxed, "/properties/n/maximum", Info, false}}},
	{"the stricter of two lower bounds counts", false,
		obj(`"n":{"type":"number","minimum":5,"exclusiveMinimum":0}`),
		obj(`"n":{"type":"number","minimum":5}`),
		nil},
	{"multipleOf changed to a non-multiple", false,
		obj(`"n":{"type":"integer","multipleOf":2}`),
		obj(`"n":{"type":"integer","multipleOf":3}`),
		[]want{{LimitChanged, "/properties/n/multipleOf", Err, false}}},
	{"uniqueItems set", false,
		obj(`"l":{"type":"array"}`),
		obj(`"l":{"type":"array","uniqueItems":true}`),
		[]want{{LimitAdded, "/properties/l/uniqueItems", Warn, false}}},
	{"uniqueItems false written out is no limit", false,
		obj(`"l":{"type":"array"}`),
		obj(`"l":{"type":"array","uniqueItems":false}`),
		nil},
	{"output: uniqueItems false left out is no limit", true,
		obj(`"l":{"type":"array","uniqueItems":false}`),
		obj(`"l":{"type":"array"}`),
		nil},
	{"minLength 0 written out is no limit", false,
		obj(`"s":{"type":"string"}`),
		obj(`"s":{"type":"string","minLength":0}`),
		nil},
	{"output: minItems 0 left out is no limit", true,
		obj(`"l":{"type":"array","minItems":0}`),
		obj(`"l":{"type":"array"}`),
		nil},
	{"numbers compare by value", false,
		obj(`"n":{"type":"integer","maximum":100}`),
		obj(`"n":{"type":"integer","maximum":1e2}`),
		nil},

	// Patterns and defaults.
	{"pattern added", false,
		obj(`"s":{"type":"string"}`),
		obj(`"s":{"type":"string","pattern":"^[a-z]+$"}`),
		[]want{{PatternAdded, "/properties/s/pattern", Err, false}}},
	{"pattern changed", false,
		obj(`"s":{"type":"string","pattern":"^[a-z]+$"}`),
		obj(`"s":{"type":"string","pattern":"^[a-z0-9]+$"}`),
		[]want{{PatternChanged, "/properties/s/pattern", Warn, false}}},
	{"pattern removed", false,
		obj(`"s":{"type":"string","pattern":"^x"}`),
		obj(`"s":{"type":"string"}`),
		[]want{{PatternRemoved, "/properties/s/pattern", Info, false}}},
	{"default changed", false,
		obj(`"n":{"type":"integer","default":10}`),
		obj(`"n":{"type":"integer","default":20}`),
		[]want{{DefaultChanged, "/properties/n/default", Warn, false}}},
	{"default added", false,
		obj(`"n":{"type":"integer"}`),
		obj(`"n":{"type":"integer","default":20}`),
		[]want{{DefaultAdded, "/properties/n/default", Info, false}}},
	{"default removed", false,
		obj(`"n":{"type":"integer","default":10}`),
		obj(`"n":{"type":"integer"}`),
		[]want{{DefaultRemoved, "/properties/n/default", Warn, false}}},

	// Unions.
	{"anyOf branch removed", false,
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}`),
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
		[]want{{BranchRemoved, "/properties/v/anyOf/2", Err, true}}},
	{"oneOf branch added", false,
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/2", Info, false}}},
	{"oneOf branch added overlapping an old one", false,
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"string","format":"date"}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/2", Warn, false}}},
	{"oneOf number branch added beside an integer one", false,
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"number"}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/2", Warn, false}}},
	{"oneOf branch of any type added", false,
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"description":"anything"}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/2", Warn, true}}},
	{"oneOf branch added with a tag of its own", false,
		obj(`"v":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]}]}`),
		obj(`"v":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"integer"}},"required":["kind"]}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/1", Info, true}, {GoTypeChanged, "/properties/v/properties/kind", Info, true}}},
	{"oneOf branch added with an optional tag", false,
		obj(`"v":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]}]}`),
		obj(`"v":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"integer"}}}]}`),
		[]want{{BranchAdded, "/properties/v/oneOf/1", Warn, true}, {GoTypeChanged, "/properties/v/properties/kind", Info, true}}},
	{"plain type becomes a union", false,
		obj(`"v":{"type":"string","description":"d"}`),
		obj(`"v":{"description":"d","anyOf":[{"type":"string"},{"type":"integer"}]}`),
		[]want{{BranchAdded, "/properties/v/anyOf/1", Info, true}}},
	{"tagged union branch changed", false,
		obj(`"v":{"oneOf":[` +
			`{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"string"}}},` +
			`{"type":"object","properties":{"kind":{"const":"b"},"y":{"type":"string"}}}]}`),
		obj(`"v":{"oneOf":[` +
			`{"type":"object","properties":{"kind":{"const":"b"},"y":{"type":"string"}},"required":["y"]},` +
			`{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"string"}}}]}`),
		[]want{{PropertyBecameRequired, "/properties/v/oneOf/0/properties/y", Err, true}}},
	{"a type list is a union", false,
		obj(`"v":{"type":["string","integer"],"description":"d"}`),
		obj(`"v":{"anyOf":[{"type":"integer"},{"type":"string"}],"description":"d"}`),
		nil},
	{"a type list loses a type to a union", false,
		obj(`"v":{"type":["string","integer","boolean"]}`),
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
		[]want{{BranchRemoved, "/properties/v", Err, true}}},
	{"anyOf object branches reordered, each tightened", false,
		obj(`"v":{"anyOf":[` +
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},` +
			`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]}`),
		obj(`"v":{"anyOf":[` +
			`{"type":"object","properties":{"b":{"type":"string","maxLength":2}},"required":["b"]},` +
			`{"type":"object","properties":{"a":{"type":"string","maxLength":2}},"required":["a"]}]}`),
		[]want{
			{LimitAdded, "/properties/v/anyOf/1/properties/a/maxLength", Warn, false},
			{LimitAdded, "/properties/v/anyOf/0/properties/b/maxLength", Warn, false},
			// The generator names object branches by position.
			{GoTypeChanged, "/properties/v/anyOf/0/properties/a", Info, true},
			{GoTypeChanged, "/properties/v/anyOf/1/properties/b", Info, true},
		}},
	{"anyOf object branch added before a changed one", false,
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"type":"string"}}}]}`),
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"b":{"type":"string"}}},{"type":"object","properties":{"a":{"type":"string","maxLength":1}}}]}`),
		[]want{
			{LimitAdded, "/properties/v/anyOf/2/properties/a/maxLength", Warn, false},
			{BranchAdded, "/properties/v/anyOf/1", Info, true},
		}},
	{"anyOf object branch removed beside a changed one", false,
		obj(`"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}},{"type":"string"}]}`),
		obj(`"v":{"anyOf":[{"type":"object","properties":{"b":{"type":"string","maxLength":3}}},{"type":"string"}]}`),
		[]want{
			{LimitAdded, "/properties/v/anyOf/0/properties/b/maxLength", Warn, false},
			{BranchRemoved, "/properties/v/anyOf/0", Err, true},
			{GoTypeChanged, "/properties/v/anyOf/1/properties/b", Info, true},
		}},
	{"anyOf becomes oneOf", false,
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`),
		[]want{{UnionKindChanged, "/properties/v/oneOf", Warn, false}}},

	// Objects.
	{"additionalProperties true to false", false,
		obj(`"a":{"type":"string"}`, `"additionalProperties":true`),
		obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
		[]want{{AdditionalPropsClosed, "/additionalProperties", Err, false}}},
	{"additionalProperties absent to false", false,
		obj(`"a":{"type":"string"}`),
		obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
		[]want{{AdditionalPropsClosed, "/additionalProperties", Err, false}}},
	{"unevaluatedProperties absent to false", false,
		obj(`"a":{"type":"string"}`),
		obj(`"a":{"type":"string"}`, `"unevaluatedProperties":false`),
		[]want{{AdditionalPropsClosed, "/unevaluatedProperties", Err, false}}},
	{"unevaluatedProperties false to true", false,
		obj(`"a":{"type":"string"}`, `"unevaluatedProperties":false`),
		obj(`"a":{"type":"string"}`, `"unevaluatedProperties":true`),
		[]want{{AdditionalPropsOpened, "/unevaluatedProperties", Info, false}}},
	{"unevaluatedProperties schema changed", false,
		obj(`"a":{"type":"string"}`, `"unevaluatedProperties":{"type":"string"}`),
		obj(`"a":{"type":"string"}`, `"unevaluatedProperties":{"type":"integer"}`),
		[]want{{KeywordChanged, "/unevaluatedProperties", Warn, false}}},
	{"additionalProperties false to true", false,
		obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
		obj(`"a":{"type":"string"}`),
		[]want{{AdditionalPropsOpened, "/additionalProperties", Info, false}}},
	{"map value type changed", false,
		obj(`"m":{"type":"object","additionalProperties":{"type":"string"}}`),
		obj(`"m":{"type":"object","additionalProperties":{"type":"integer"}}`),
		[]want{{TypeChanged, "/properties/m/additionalProperties/type", Err, true}}},
	{"nested property in array items", false,
		obj(`"l":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}}}}`),
		obj(`"l":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`),
		[]want{{PropertyBecameRequired, "/properties/l/items/properties/id", Err, true}}},
	{"tuple grows", false,
		obj(`"p":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]}`),
		obj(`"p":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"},{"type":"number"}]}`),
		[]want{{TupleLengthChanged, "/properties/p/prefixItems", Warn, false}}},
	{"tuple closed to further items", false,
		obj(`"p":{"type":"array","prefixItems":[{"type":"number"}]}`),
		obj(`"p":{"type":"array","prefixItems":[{"type":"number"}],"items":false}`),
		[]want{{TypeNarrowed, "/properties/p/items", Err, false}}},
	{"draft-07 tuple closed by additionalItems", false,
		obj(`"p":{"type":"array","items":[{"type":"number"}]}`),
		obj(`"p":{"type":"array","items":[{"type":"number"}],"additionalItems":false}`),
		[]want{{TypeNarrowed, "/properties/p/additionalItems", Err, false}}},
	{"draft-07 tuple's further items limited", false,
		obj(`"p":{"type":"array","items":[{"type":"number"}],"additionalItems":{"type":"string"}}`),
		obj(`"p":{"type":"array","items":[{"type":"number"}],"additionalItems":{"type":"string","maxLength":3}}`),
		[]want{{LimitAdded, "/properties/p/additionalItems/maxLength", Warn, false}}},
	{"map becomes a struct", false,
		obj(`"m":{"type":"object"}`),
		obj(`"m":{"type":"object","properties":{"a":{"type":"string"}}}`),
		[]want{
			{PropertyAdded, "/properties/m/properties/a", Info, false},
			{GoTypeChanged, "/properties/m", Info, true},
		}},

	// Text and other keywords.
	{"description changed", false,
		obj(`"a":{"type":"string","description":"The area"}`),
		obj(`"a":{"type":"string","description":"The area or room"}`),
		[]want{{DescriptionChanged, "/properties/a/description", Info, false}}},
	{"title changed", false,
		obj(`"a":{"type":"string","title":"Area"}`),
		obj(`"a":{"type":"string","title":"Room"}`),
		[]want{{TitleChanged, "/properties/a/title", Info, false}}},
	{"other constraint changed", false,
		obj(`"m":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`),
		obj(`"m":{"type":"object","propertyNames":{"pattern":"^[a-z_]+$"}}`),
		[]want{{KeywordChanged, "/properties/m/propertyNames", Warn, false}}},
	{"annotation changed", false,
		obj(`"a":{"type":"string","examples":["kitchen"]}`),
		obj(`"a":{"type":"string","examples":["kitchen","hall"]}`),
		[]want{{AnnotationChanged, "/properties/a/examples", Info, false}}},

	// References.
	{"change inside a $defs entry is reported where it is used", false,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/Point"}},"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/Point"}},"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}`,
		[]want{{PropertyBecameRequired, "/properties/p/properties/x", Err, true}}},
	{"inlining a $ref changes nothing on the wire but renames the Go type", false,
		`{"type":"object","properties":{"p":{"$ref":"#/definitions/Mode"}},"definitions":{"Mode":{"type":"string","enum":["a","b"]}}}`,
		`{"type":"object","properties":{"p":{"type":"string","enum":["b","a"]}}}`,
		[]want{{GoTypeChanged, "/properties/p", Info, true}}},
	{"generated names shift when a colliding property is added", false,
		obj(`"order_by":{"type":"string"}`),
		obj(`"orderBy":{"type":"string"},"order_by":{"type":"string"}`),
		[]want{{PropertyAdded, "/properties/orderBy", Info, true}}},
	{"$defs entry renamed", false,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/Point"}},"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/Coord"}},"$defs":{"Coord":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
		[]want{{NamedTypeRenamed, "/properties/p", Info, true}}},
	{"recursive $defs terminate, reported at the definition", false,
		`{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
		`{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string","maxLength":10},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
		[]want{{LimitAdded, "/$defs/Node/properties/name/maxLength", Warn, false}}},
	{"allOf merged", false,
		obj(`"n":{"allOf":[{"type":"integer","minimum":0},{"type":"number","maximum":50}]}`),
		obj(`"n":{"type":"integer","minimum":0,"maximum":40}`),
		[]want{{LimitTightened, "/properties/n/maximum", Err, false}}},
	{"const null is the null type", false,
		obj(`"v":{"type":"null"}`),
		obj(`"v":{"const":null}`),
		nil},
	{"an enum of null alone is the null type", false,
		obj(`"v":{"type":"null","description":"d"}`),
		obj(`"v":{"enum":[null],"description":"d"}`),
		nil},
	{"const null written beside a type list holding null", false,
		obj(`"v":{"type":"null"}`),
		obj(`"v":{"type":["string","null"],"const":null}`),
		nil},
	{"null spellings are equal", false,
		obj(`"v":{"type":["string","null"]}`),
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"null"}]}`),
		nil},

	{"change inside a $defs entry reached through items", true,
		`{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Issue"}}},"$defs":{"Issue":{"type":"object","properties":{"state":{"enum":["open","closed"]}}}}}`,
		`{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Issue"}}},"$defs":{"Issue":{"type":"object","properties":{"state":{"enum":["open","closed","draft"]}}}}}`,
		[]want{{EnumValueAdded, "/properties/items/items/properties/state/enum", Err, false}}},
	{"change inside a $defs entry reached through additionalProperties", false,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"$ref":"#/$defs/V"}}},"$defs":{"V":{"type":"string"}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"$ref":"#/$defs/V"}}},"$defs":{"V":{"type":"string","maxLength":3}}}`,
		[]want{{LimitAdded, "/properties/m/additionalProperties/maxLength", Warn, false}}},
	{"output: optional and nullable at once is one move to *T", true,
		obj(`"total":{"type":"integer"}`, `"required":["total"]`),
		obj(`"total":{"type":["integer","null"]}`),
		[]want{
			{PropertyBecameOptional, "/properties/total", Err, true},
			{NullableAdded, "/properties/total", Err, false},
		}},

	// Output schemas flip direction.
	{"output: required property removed", true,
		obj(`"id":{"type":"string"},"n":{"type":"integer"}`, `"required":["id","n"]`),
		obj(`"id":{"type":"string"}`, `"required":["id"]`),
		[]want{{PropertyRemoved, "/properties/n", Err, true}}},
	{"output: optional property removed", true,
		obj(`"id":{"type":"string"},"n":{"type":"integer"}`),
		obj(`"id":{"type":"string"}`),
		[]want{{PropertyRemoved, "/properties/n", Warn, true}}},
	{"output: property became optional", true,
		obj(`"id":{"type":"string"}`, `"required":["id"]`),
		obj(`"id":{"type":"string"}`),
		[]want{{PropertyBecameOptional, "/properties/id", Err, true}}},
	{"output: property became required", true,
		obj(`"id":{"type":"string"}`),
		obj(`"id":{"type":"string"}`, `"required":["id"]`),
		[]want{{PropertyBecameRequired, "/properties/id", Info, true}}},
	{"output: nullable added", true,
		obj(`"id":{"type":"string"}`, `"required":["id"]`),
		obj(`"id":{"type":["string","null"]}`, `"required":["id"]`),
		[]want{{NullableAdded, "/properties/id", Err, true}}},
	{"output: type widened", true,
		obj(`"n":{"type":"integer"}`),
		obj(`"n":{"type":"number"}`),
		[]want{{TypeWidened, "/properties/n/type", Err, true}}},
	{"output: type narrowed", true,
		obj(`"n":{"type":"number"}`),
		obj(`"n":{"type":"integer"}`),
		[]want{{TypeNarrowed, "/properties/n/type", Info, true}}},
	{"output: branch added", true,
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
		obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}`),
		[]want{{BranchAdded, "/properties/v/anyOf/2", Err, false}}},
	{"output: limit loosened", true,
		obj(`"n":{"type":"integer","maximum":10}`),
		obj(`"n":{"type":"integer","maximum":20}`),
		[]want{{LimitRelaxed, "/properties/n/maximum", Err, false}}},
	{"output: limit removed", true,
		obj(`"s":{"type":"string","maxLength":10}`),
		obj(`"s":{"type":"string"}`),
		[]want{{LimitRemoved, "/properties/s/maxLength", Err, false}}},
	{"output: enum value added", true,
		obj(`"s":{"type":"string","enum":["on","off"]}`),
		obj(`"s":{"type":"string","enum":["on","off","unknown"]}`),
		[]want{{EnumValueAdded, "/properties/s/enum", Err, false}}},
	{"output: enum value removed", true,
		obj(`"s":{"type":"string","enum":["on","off","unknown"]}`),
		obj(`"s":{"type":"string","enum":["on","off"]}`),
		[]want{{EnumValueRemoved, "/properties/s/enum", Info, true}}},
	{"output: optional property added", true,
		obj(`"id":{"type":"string"}`),
		obj(`"id":{"type":"string"},"extra":{"type":"string"}`),
		[]want{{PropertyAdded, "/properties/extra", Info, false}}},
	{"output: additionalProperties opened", true,
		obj(`"id":{"type":"string"}`, `"additionalProperties":false`),
		obj(`"id":{"type":"string"}`),
		[]want{{AdditionalPropsOpened, "/additionalProperties", Err, false}}},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			mk := inTool
			if tc.output {
				mk = outTool
			}
			changes, err := Tools([]runtime.Tool{mk(tc.old)}, []runtime.Tool{mk(tc.new)})
			if err != nil {
				t.Fatal(err)
			}
			got := wants(changes)
			if !sameWants(got, tc.want) {
				t.Errorf("changes:%s\nwant:%s", fmtWants(got), fmtWants(tc.want))
			}
			for _, c := range changes {
				if c.Why == "" || c.Summary == "" {
					t.Errorf("change %s has no summary or why", c.Rule)
				}
				if !c.GoAPI && strings.Contains(c.Why, "generated") {
					t.Errorf("change %s has no GO_API marker but its why speaks of generated code: %s", c.Rule, c.Why)
				}
				if c.Tool != "t" {
					t.Errorf("change %s names tool %q", c.Rule, c.Tool)
				}
			}
		})
	}
}

// TestRuleCoverage checks that the table exercises every schema rule.
func TestRuleCoverage(t *testing.T) {
	seen := map[Rule]bool{}
	for _, tc := range ruleCases {
		for _, w := range tc.want {
			seen[w.rule] = true
		}
	}
	for r := range rules {
		if !seen[r] {
			t.Errorf("rule %s has no case in ruleCases", r)
		}
	}
}

// TestAffectedListedOnce checks that a change explaining several groups of
// generated identifiers lists them in one "Affected:" sentence.
func TestAffectedListedOnce(t *testing.T) {
	old := obj(`"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}},{"type":"string"}]}`)
	new := obj(`"v":{"anyOf":[{"type":"object","properties":{"b":{"type":"string"}}},{"type":"string"}]}`)
	changes, err := Tools([]runtime.Tool{inTool(old)}, []runtime.Tool{inTool(new)})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range changes {
		if c.Rule != BranchRemoved {
			continue
		}
		found = true
		if n := strings.Count(c.Why, "Affected:"); n != 1 {
			t.Errorf("why says Affected: %d times, want once: %s", n, c.Why)
		}
	}
	if !found {
		t.Fatalf("no branch-removed change in %v", wants(changes))
	}
}
