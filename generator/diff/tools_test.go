package diff

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestToolRules(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	out := []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	base := runtime.Tool{Name: "search", Title: "Search", Description: "Searches.", InputSchema: schema,
		Annotations: []byte(`{"readOnlyHint":true}`)}
	with := func(f func(t *runtime.Tool)) runtime.Tool {
		t := base
		f(&t)
		return t
	}
	other := runtime.Tool{Name: "other", InputSchema: []byte(`{"type":"object","properties":{"id":{"type":"integer"}}}`)}
	for _, tc := range []struct {
		name     string
		old, new []runtime.Tool
		want     []want
	}{
		{"tool removed", []runtime.Tool{base, other}, []runtime.Tool{other},
			[]want{{ToolRemoved, "", Err, true}}},
		{"tool added", []runtime.Tool{other}, []runtime.Tool{base, other},
			[]want{{ToolAdded, "", Info, false}}},
		{"tool renamed", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.Name = "find" })},
			[]want{{ToolRenamed, "", Err, true}}},
		{"two candidates are no rename", []runtime.Tool{base},
			[]runtime.Tool{with(func(t *runtime.Tool) { t.Name = "find" }), with(func(t *runtime.Tool) { t.Name = "lookup" })},
			[]want{{ToolAdded, "", Info, false}, {ToolAdded, "", Info, false}, {ToolRemoved, "", Err, true}}},
		{"title changed", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.Title = "Find" })},
			[]want{{ToolTitleChanged, "/title", Info, false}}},
		{"description changed", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.Description = "Finds." })},
			[]want{{ToolDescriptionChanged, "/description", Info, false}}},
		{"tool no longer read-only", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = []byte(`{"readOnlyHint":false}`) })},
			[]want{{ToolAnnotationsChanged, "/annotations/readOnlyHint", Warn, false}}},
		{"destructiveHint false left out: destructive by default", []runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = []byte(`{"destructiveHint":false}`) })},
			[]runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = []byte(`{}`) })},
			[]want{{ToolAnnotationsChanged, "/annotations/destructiveHint", Warn, false}}},
		{"destructiveHint true written out: destructive already", []runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = nil })},
			[]runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = []byte(`{"destructiveHint":true}`) })},
			[]want{{ToolAnnotationsChanged, "/annotations/destructiveHint", Info, false}}},
		{"annotation added", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.Annotations = []byte(`{"readOnlyHint":true,"openWorldHint":true}`) })},
			[]want{{ToolAnnotationsChanged, "/annotations/openWorldHint", Info, false}}},
		{"other tool key changed", []runtime.Tool{with(func(t *runtime.Tool) { t.Raw = []byte(`{"name":"search","execution":{"taskSupport":"optional"}}`) })},
			[]runtime.Tool{with(func(t *runtime.Tool) { t.Raw = []byte(`{"name":"search","execution":{"taskSupport":"required"}}`) })},
			[]want{{ToolAnnotationsChanged, "/execution", Info, false}}},
		{"output schema added", []runtime.Tool{base}, []runtime.Tool{with(func(t *runtime.Tool) { t.OutputSchema = out })},
			[]want{{OutputSchemaAdded, "", Info, true}}},
		{"output schema removed", []runtime.Tool{with(func(t *runtime.Tool) { t.OutputSchema = out })}, []runtime.Tool{base},
			[]want{{OutputSchemaRemoved, "", Err, true}}},
		{"order of tools", []runtime.Tool{base, other}, []runtime.Tool{other, base}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			if got := wants(changes); !sameWants(got, tc.want) {
				t.Errorf("changes:%s\nwant:%s", fmtWants(got), fmtWants(tc.want))
			}
		})
	}
}
