package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// classTool is a tool whose device_class enum several tools may share.
func classTool(name, classes string) runtime.Tool {
	return runtime.Tool{Name: name, InputSchema: []byte(fmt.Sprintf(
		`{"type":"object","properties":{"device_class":{"type":"array","items":{"type":"string","enum":[%s]}}}}`, classes))}
}

const classes = `"tv","speaker","receiver"`

// TestSharedTypeSplitIsGoAPI checks the GO_API marker where tools share a
// generated type: a tool whose enum changes gets a type of its own, which
// renames its field's type; a shared type left with one tool takes that
// tool's name, which is reported at that tool although its schema did not
// change; and a change to a type every tool shares marks every tool.
func TestSharedTypeSplitIsGoAPI(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []runtime.Tool
		want     []want
		summary  string
	}{
		{"one of three splits off",
			[]runtime.Tool{classTool("a", classes), classTool("b", classes), classTool("c", classes)},
			[]runtime.Tool{classTool("a", classes), classTool("b", classes), classTool("c", classes+`,"soundbar"`)},
			[]want{{EnumValueAdded, "/properties/device_class/items/enum", Info, true}}, ""},
		{"one of two splits off",
			[]runtime.Tool{classTool("a", classes), classTool("b", classes)},
			[]runtime.Tool{classTool("a", classes), classTool("b", classes+`,"soundbar"`)},
			[]want{{GoTypeChanged, "/properties/device_class/items", Info, true}, {EnumValueAdded, "/properties/device_class/items/enum", Info, true}},
			"type DeviceClass"},
		{"a tool reusing the type is added",
			[]runtime.Tool{classTool("a", classes), classTool("b", classes)},
			[]runtime.Tool{classTool("a", classes), classTool("b", classes), classTool("c", classes)},
			[]want{{ToolAdded, "", Info, false}}, ""},
		{"a second tool starts to use a tool's type",
			[]runtime.Tool{classTool("a", classes)},
			[]runtime.Tool{classTool("a", classes), classTool("b", classes)},
			[]want{{GoTypeChanged, "/properties/device_class/items", Info, true}, {ToolAdded, "", Info, false}}, "type ADeviceClass"},
		{"one of two tools is removed",
			[]runtime.Tool{classTool("a", classes), classTool("b", classes)},
			[]runtime.Tool{classTool("b", classes)},
			[]want{{ToolRemoved, "", Err, true}, {GoTypeChanged, "/properties/device_class", Info, true}}, ""},
		{"every tool drops a value",
			[]runtime.Tool{classTool("a", classes), classTool("b", classes)},
			[]runtime.Tool{classTool("a", `"tv","speaker"`), classTool("b", `"tv","speaker"`)},
			[]want{{EnumValueRemoved, "/properties/device_class/items/enum", Err, true}, {EnumValueRemoved, "/properties/device_class/items/enum", Err, true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			if got := wants(changes); !sameWants(got, tc.want) {
				t.Errorf("changes:%s\nwant:%s", fmtWants(got), fmtWants(tc.want))
			}
			if tc.summary != "" && (len(changes) == 0 || changes[0].Tool != "a" || !strings.Contains(changes[0].Summary, tc.summary) || (tc.name == "one of two splits off" && !strings.Contains(changes[0].Why, "shared with b"))) {
				t.Errorf("first change %+v, want one of tool a naming %s", changes[0], tc.summary)
			}
		})
	}
}
