package diff

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestCollisionRenameIsGoAPI checks that an identifier which keeps its name
// but comes to stand for something else is a Go API change: a tool whose
// name is spelled exactly as a method another tool had takes that method
// over, and an enum value spelled exactly as a constant another value had
// takes that constant over. Code that used the identifier still compiles
// but now calls another tool or sends another value.
func TestCollisionRenameIsGoAPI(t *testing.T) {
	empty := []byte(`{"type":"object"}`)
	enum := func(values string) []runtime.Tool {
		return []runtime.Tool{{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"m":{"type":"string","enum":[` + values + `]}}}`)}}
	}
	for _, tc := range []struct {
		name     string
		old, new []runtime.Tool
	}{
		{"a method is taken over by a new tool",
			[]runtime.Tool{{Name: "validate", InputSchema: empty}},
			[]runtime.Tool{{Name: "validate", InputSchema: empty}, {Name: "Validate", InputSchema: empty}}},
		{"a constant is taken over by a new value",
			enum(`"yes","no"`),
			enum(`"yes","no","Yes"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if c.GoAPI {
					return
				}
			}
			t.Errorf("no change is marked GO_API:%s", fmtWants(wants(changes)))
		})
	}
}
