package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
)

// paramsJSON returns the JSON of a declaration's parameters in the form
// declCases uses.
func paramsJSON(t *testing.T, d *genai.FunctionDeclaration) string {
	t.Helper()
	var v any = d.Parameters
	if d.ParametersJsonSchema != nil {
		v = map[string]any{"json": d.ParametersJsonSchema}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkGemini(t *testing.T, decls []*genai.FunctionDeclaration) {
	t.Helper()
	for _, err := range providertest.CheckGemini(decls) {
		t.Error(err)
	}
}

func TestDeclarationSchemas(t *testing.T) {
	for _, c := range declCases {
		t.Run(c.name, func(t *testing.T) {
			tool := runtime.Tool{Name: "t", InputSchema: json.RawMessage(c.schema)}
			decls, names, err := Declarations([]runtime.Tool{tool}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(decls) != 1 || names["t"] != "t" {
				t.Fatalf("got %d declarations and names %v", len(decls), names)
			}
			if got := paramsJSON(t, decls[0]); got != c.want {
				t.Errorf("parameters:\n got %s\nwant %s", got, c.want)
			}
			checkGemini(t, decls)
		})
	}
}

// TestDeclarationSchemaForm checks the JSON Schema form: the server's schema
// as it is (compacted), names and descriptions still fixed.
func TestDeclarationSchemaForm(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "light.turn_on", InputSchema: json.RawMessage(`{ "type": "object", "properties": { "b": {"type":["integer","null"]}, "a": {"$ref":"#/$defs/A"} }, "$defs": {"A": {"const": 1}} }`)},
		{Name: "no params", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	decls, names, err := Declarations(tools, &DeclarationOptions{JSONSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	checkGemini(t, decls)
	raw, ok := decls[0].ParametersJsonSchema.(json.RawMessage)
	if !ok {
		t.Fatalf("ParametersJsonSchema is %T, want json.RawMessage", decls[0].ParametersJsonSchema)
	}
	if want := `{"type":"object","properties":{"b":{"type":["integer","null"]},"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"const":1}}}`; string(raw) != want {
		t.Errorf("schema form:\n got %s\nwant %s", raw, want)
	}
	if decls[0].Parameters != nil {
		t.Error("Parameters set beside ParametersJsonSchema")
	}
	if decls[1].ParametersJsonSchema != nil || decls[1].Parameters != nil {
		t.Error("a tool without properties got parameters")
	}
	if decls[1].Name != "no_params" || names["no_params"] != "no params" || decls[1].Description != "No params." {
		t.Errorf("got name %q (%q), description %q", decls[1].Name, names[decls[1].Name], decls[1].Description)
	}
}

func TestDeclarationErrors(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   string
	}{
		{"allOf incompatible", `{"type":"object","properties":{"n":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`tool bad: input schema at /properties/n/allOf/1: allOf branches are incompatible: type "string" and type "integer" have no value in common`},
		{"allOf enums", `{"type":"object","properties":{"n":{"allOf":[{"enum":["a"]},{"enum":["b"]}]}}}`,
			`tool bad: input schema at /properties/n/allOf/1: allOf branches are incompatible: their enums share no value`},
		{"allOf const", `{"type":"object","properties":{"n":{"allOf":[{"const":"a"},{"const":"b"}]}}}`,
			`tool bad: input schema at /properties/n/allOf/1: allOf branches are incompatible: const is "a" in one and "b" in another`},
		{"external ref", `{"type":"object","properties":{"n":{"$ref":"https://example.com/s.json"}}}`,
			`tool bad: input schema at /properties/n/$ref: $ref "https://example.com/s.json" points outside the schema, which mcpgen does not fetch`},
		{"dangling ref", `{"type":"object","properties":{"n":{"$ref":"#/$defs/Missing"}}}`,
			`tool bad: input schema at /properties/n/$ref: $ref "#/$defs/Missing" does not resolve: no member "$defs"`},
		{"root not object", `{"type":"string"}`, `tool bad: input schema at (root): type is "string", not object`},
		{"property not a schema", `{"type":"object","properties":{"n":5}}`, `tool bad: input schema at /properties/n: schema is a JSON number, want an object or a boolean`},
		{"unknown type", `{"type":"object","properties":{"n":{"type":"decimal"}}}`, `tool bad: input schema at /properties/n/type: unknown type "decimal"`},
		{"bad JSON", `{"type":"object",`, `tool bad: reading input schema: unexpected EOF`},
		{"escaped pointer", `{"type":"object","properties":{"a/b":{"$ref":"#/nowhere"}}}`, `tool bad: input schema at /properties/a~1b/$ref: $ref "#/nowhere" does not resolve: no member "nowhere"`},
		{"union not an array under items", `{"type":"object","properties":{"n":{"type":"array","items":{"oneOf":5}}}}`, `tool bad: input schema at /properties/n/items/oneOf: oneOf is not an array`},
		{"pointer through a union and items", `{"type":"object","properties":{"u~x":{"anyOf":[{"type":"string"},{"type":"array","items":{"properties":{"k":{"type":"decimal"}}}}]}}}`, `tool bad: input schema at /properties/u~0x/anyOf/1/items/properties/k/type: unknown type "decimal"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Declarations([]runtime.Tool{{Name: "bad", InputSchema: json.RawMessage(c.schema)}}, nil)
			if err == nil || err.Error() != c.want {
				t.Errorf("got error %v\nwant %s", err, c.want)
			}
		})
	}
}

func TestDeclarationNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	tools := []runtime.Tool{
		{Name: "light.turn_on"},
		{Name: "elicit (form)"},
		{Name: "1st-tool"},
		{Name: "a b"},
		{Name: "a_b"},
		{Name: "ns:tool"},
		{Name: long},
		{Name: "ünïcode"},
	}
	for i := range tools {
		tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	decls, names, err := Declarations(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkGemini(t, decls)
	want := []string{"light.turn_on", "elicit__form_", "_1st-tool", "a_b_", "a_b", "ns:tool", strings.Repeat("x", 57) + "_", "_n_code"}
	for i, d := range decls {
		if i == 3 || i == 6 {
			// Collisions and cut names end in a hash of the MCP name.
			if !strings.HasPrefix(d.Name, want[i]) || len(d.Name) != len(want[i])+6 {
				t.Errorf("tool %q: name %q, want %s and six hex digits", tools[i].Name, d.Name, want[i])
			}
		} else if d.Name != want[i] {
			t.Errorf("tool %q: name %q, want %q", tools[i].Name, d.Name, want[i])
		}
		if names[d.Name] != tools[i].Name {
			t.Errorf("reverse map: %q gives %q, want %q", d.Name, names[d.Name], tools[i].Name)
		}
	}
	if len(names) != len(tools) {
		t.Errorf("reverse map has %d entries, want %d", len(names), len(tools))
	}
	// The names do not depend on the order of the tools.
	rev := make([]runtime.Tool, len(tools))
	for i := range tools {
		rev[len(tools)-1-i] = tools[i]
	}
	decls2, _, err := Declarations(rev, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range decls2 {
		if got, want := decls2[i].Name, decls[len(tools)-1-i].Name; got != want {
			t.Errorf("reversed order: %q, want %q", got, want)
		}
	}
	if _, _, err := Declarations([]runtime.Tool{{Name: "x"}, {Name: "x"}}, nil); err == nil || !strings.Contains(err.Error(), `tool "x" is listed twice`) {
		t.Errorf("duplicate tool: got error %v", err)
	}
}

func TestDescriptions(t *testing.T) {
	cases := []struct {
		tool runtime.Tool
		want string
	}{
		{runtime.Tool{Name: "x", Description: "  Does x.  "}, "Does x."},
		{runtime.Tool{Name: "x", Title: "Do X"}, "Do X"},
		{runtime.Tool{Name: "describe_doorbell"}, "Describe doorbell."},
		{runtime.Tool{Name: "GetLiveContext"}, "Get live context."},
		{runtime.Tool{Name: "getHTTPStatus"}, "Get HTTP status."},
		{runtime.Tool{Name: "list-events"}, "List events."},
		{runtime.Tool{Name: "--"}, "Runs the tool."},
	}
	for _, c := range cases {
		if got := ToolDescription(c.tool); got != c.want {
			t.Errorf("ToolDescription(%q) = %q, want %q", c.tool.Name, got, c.want)
		}
	}
}

// readSnapshot reads the tools of a tools/list response or of a bare
// {"tools": [...]} object.
func readSnapshot(t *testing.T, path string) []runtime.Tool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	raws := append(doc.Result.Tools, doc.Tools...)
	tools := make([]runtime.Tool, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &tools[i]); err != nil {
			t.Fatalf("reading %s: tool %d: %v", path, i, err)
		}
		tools[i].Raw = r
	}
	return tools
}

func TestHomeAssistantDeclarations(t *testing.T) {
	tools := readSnapshot(t, filepath.Join("..", "..", "testdata", "homeassistant-tools-list.json"))
	if len(tools) != 15 {
		t.Fatalf("snapshot has %d tools, want 15", len(tools))
	}
	for _, opts := range []*DeclarationOptions{nil, {JSONSchema: true}} {
		decls, names, err := Declarations(tools, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkGemini(t, decls)
		byName := map[string]*genai.FunctionDeclaration{}
		for i, d := range decls {
			if d.Name != tools[i].Name || names[d.Name] != tools[i].Name {
				t.Errorf("declaration %d is %q, want %q", i, d.Name, tools[i].Name)
			}
			byName[d.Name] = d
		}
		door := byName["describe_doorbell"]
		if door.Parameters != nil || door.ParametersJsonSchema != nil || door.Description != "Describe doorbell." {
			t.Errorf("describe_doorbell: parameters %v / %v, description %q", door.Parameters, door.ParametersJsonSchema, door.Description)
		}
		if opts != nil {
			continue
		}
		step := byName["HassSetVolumeRelative"].Parameters.Properties["volume_step"]
		if step == nil || len(step.AnyOf) != 2 || step.AnyOf[0].Type != genai.TypeString || len(step.AnyOf[0].Enum) == 0 || step.AnyOf[1].Type != genai.TypeInteger {
			b, _ := json.Marshal(step)
			t.Errorf("HassSetVolumeRelative.volume_step = %s, want anyOf string enum and integer", b)
		}
		vol := byName["HassSetVolume"].Parameters
		if p := vol.Properties["volume_level"]; p == nil || p.Type != genai.TypeInteger || *p.Minimum != 0 || *p.Maximum != 100 {
			b, _ := json.Marshal(vol)
			t.Errorf("HassSetVolume parameters = %s, want an integer volume_level from 0 to 100", b)
		}
		if got := vol.PropertyOrdering[0]; got != "name" {
			t.Errorf("HassSetVolume property order starts with %q, want name", got)
		}
	}
}

// TestIntegerConstEnumBeyond2To53 checks that an integer bound a float64
// cannot hold exactly reaches the model as written, in the description,
// and that allOf keeps the tighter of two such bounds.
func TestIntegerConstEnumBeyond2To53(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"allOf":[{"type":"integer","minimum":9007199254740993,"maximum":9007199254740993},{"maximum":9007199254740992}]},"k":{"type":"integer","minimum":1,"maximum":9007199254740992}}}`
	tool := runtime.Tool{Name: "t", InputSchema: json.RawMessage(schema)}
	decls, _, err := Declarations([]runtime.Tool{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"k":{"maximum":9007199254740992,"minimum":1,"type":"INTEGER"},"n":{"description":"Must be at least 9007199254740993.","maximum":9007199254740992,"type":"INTEGER"}},"propertyOrdering":["n","k"],"type":"OBJECT"}`
	if got := paramsJSON(t, decls[0]); got != want {
		t.Errorf("parameters:\n got %s\nwant %s", got, want)
	}
	checkGemini(t, decls)
}

// TestDeclarationsOfManyToolsInOrder checks that a list long enough to be
// converted in parallel gives the declarations of converting it one tool
// at a time, in the tools' order, and the error of the first bad tool.
func TestDeclarationsOfManyToolsInOrder(t *testing.T) {
	n := 3 * geminidecl.ParallelTools
	tools := make([]runtime.Tool, n)
	for i := range tools {
		schema := `{"type":"object","properties":{"p` + strings.Repeat("x", i%7) + `":{"type":"integer","maximum":` + strings.Repeat("9", i%5+1) + `}}}`
		tools[i] = runtime.Tool{Name: "tool-" + strings.Repeat("a", i%3) + string(rune('a'+i%26)) + "-" + strings.Repeat("b", i/26), InputSchema: json.RawMessage(schema)}
	}
	decls, names, err := Declarations(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range decls {
		one, _, err := Declarations(tools[i:i+1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if names[d.Name] != tools[i].Name || paramsJSON(t, d) != paramsJSON(t, one[0]) {
			t.Errorf("declaration %d is %s %s, want the one of %s: %s", i, d.Name, paramsJSON(t, d), tools[i].Name, paramsJSON(t, one[0]))
		}
	}
	bad := json.RawMessage(`{"type":"string"}`)
	tools[n-1].InputSchema, tools[n/2].InputSchema = bad, bad
	if _, _, err := Declarations(tools, nil); err == nil || !strings.Contains(err.Error(), "tool "+tools[n/2].Name+":") {
		t.Errorf("Declarations with two bad tools: got %v, want the error of %s", err, tools[n/2].Name)
	}
}

// TestDeclarationEnumsHoldNoEmptyString checks that the typed form never
// declares "" as an enum value: the Gemini API refuses the whole request
// ("parameters.properties[mode].enum[0]: cannot be empty"), which fails
// every request of a chat that declares the tool. The empty string moves to
// the description, as the other values the typed form cannot hold do.
func TestDeclarationEnumsHoldNoEmptyString(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"enum", `{"type":"object","properties":{"mode":{"type":"string","enum":["","fast","slow"]}}}`,
			`{"properties":{"mode":{"description":"May also be the empty string \"\".","enum":["fast","slow"],"type":"STRING"}},"propertyOrdering":["mode"],"type":"OBJECT"}`},
		{"const", `{"type":"object","properties":{"mode":{"const":""}}}`,
			`{"properties":{"mode":{"description":"Must be the empty string \"\".","type":"STRING"}},"propertyOrdering":["mode"],"type":"OBJECT"}`},
		{"nullable enum", `{"type":"object","properties":{"mode":{"type":["string","null"],"enum":["a","",null],"description":"The mode."}}}`,
			`{"properties":{"mode":{"description":"The mode. May also be the empty string \"\".","enum":["a"],"nullable":true,"type":"STRING"}},"propertyOrdering":["mode"],"type":"OBJECT"}`},
		{"union branch", `{"type":"object","properties":{"mode":{"anyOf":[{"type":"string","enum":[""]},{"type":"integer"}]}}}`,
			`{"properties":{"mode":{"anyOf":[{"description":"Must be the empty string \"\".","type":"STRING"},{"type":"INTEGER"}]}},"propertyOrdering":["mode"],"type":"OBJECT"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			decls, _, err := Declarations([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkGemini(t, decls)
			if got := paramsJSON(t, decls[0]); got != c.want {
				t.Errorf("parameters:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestToolsetWithPureRefCycle checks a tool whose optional property is a
// cycle of bare $refs (x → y → x), among tools without one: the Toolset
// declares every tool, the cycle's property left out, and the validator
// refuses a call that sends it, before the server sees it. Such a tool
// made NewToolset fail for the whole list. A root schema that is such a
// cycle leaves no call valid and still fails it, naming the tool.
func TestToolsetWithPureRefCycle(t *testing.T) {
	cycle := runtime.Tool{Name: "cycle", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`)}
	caller := &fakeCaller{answer: func(name string, args json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "done"}}}, nil
	}}
	tools := append(slices.Clone(testTools), cycle)
	ts, err := NewToolset(caller, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	decls := ts.Declarations()
	checkGemini(t, decls)
	if len(decls) != len(tools) {
		t.Fatalf("%d declarations for %d tools", len(decls), len(tools))
	}
	if got, want := paramsJSON(t, decls[len(decls)-1]), `{"description":"Do not send \"a\".","properties":{"b":{"type":"STRING"}},"propertyOrdering":["b"],"type":"OBJECT"}`; got != want {
		t.Errorf("parameters:\n got %s\nwant %s", got, want)
	}
	refused := ts.Handle(t.Context(), &genai.FunctionCall{Name: "cycle", Args: map[string]any{"a": "x"}})
	if msg, _ := refused.Response["error"].(string); !strings.Contains(msg, "invalid arguments for cycle at /a") {
		t.Errorf("call with a: response %v, want the validator's refusal", refused.Response)
	}
	ok := ts.Handle(t.Context(), &genai.FunctionCall{Name: "cycle", Args: map[string]any{"b": "x"}})
	if ok.Response["output"] != "done" {
		t.Errorf("call without a: response %v", ok.Response)
	}
	if calls := caller.recorded(); !slices.Equal(calls, []string{`cycle {"b":"x"}`}) {
		t.Errorf("calls %q, want the one without a", calls)
	}

	root := runtime.Tool{Name: "root cycle", InputSchema: json.RawMessage(`{"$ref":"#"}`)}
	_, err = NewToolset(caller, append(slices.Clone(testTools), root), nil)
	if want := `tool root cycle: input schema at /$ref: $ref "#" is reached again inside itself: a recursive schema cannot be merged`; err == nil || err.Error() != want {
		t.Errorf("root cycle: error %v, want %s", err, want)
	}
}
