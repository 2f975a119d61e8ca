package diff

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestRenameNeedsMoreThanEqualSchemas reads a removed and an added tool
// whose equal schemas declare no property as one tool renamed only when
// they also share a title or a description: two unrelated tools without
// arguments have equal schemas and nothing else in common. Equal schemas
// that declare properties are evidence enough.
func TestRenameNeedsMoreThanEqualSchemas(t *testing.T) {
	empty := []byte(`{"type":"object"}`)
	withID := []byte(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	ping := runtime.Tool{Name: "ping", Description: "Checks that the server is up.", InputSchema: empty}
	reset := runtime.Tool{Name: "reset_cache", Description: "Empties the cache.", InputSchema: empty}
	for _, tc := range []struct {
		name     string
		old, new runtime.Tool
		want     []want
	}{
		{"unrelated tools", ping, reset,
			[]want{{ToolRemoved, "", Err, true}, {ToolAdded, "", Info, false}}},
		{"same description", ping, runtime.Tool{Name: "health", Description: ping.Description, InputSchema: empty},
			[]want{{ToolRenamed, "", Err, true}}},
		{"same title", runtime.Tool{Name: "ping", Title: "Ping", InputSchema: empty}, runtime.Tool{Name: "health", Title: "Ping", Description: "Now described.", InputSchema: empty},
			[]want{{ToolRenamed, "", Err, true}, {ToolDescriptionChanged, "/description", Info, true}}},
		{"neither described", runtime.Tool{Name: "ping", InputSchema: empty}, runtime.Tool{Name: "health", InputSchema: empty},
			[]want{{ToolAdded, "", Info, false}, {ToolRemoved, "", Err, true}}},
		{"schema with properties, description changed", runtime.Tool{Name: "get_user", Description: "Gets a user.", InputSchema: withID}, runtime.Tool{Name: "fetch_user", Description: "Fetches one user by id.", InputSchema: withID},
			[]want{{ToolRenamed, "", Err, true}, {ToolDescriptionChanged, "/description", Info, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Tools([]runtime.Tool{tc.old}, []runtime.Tool{tc.new})
			if err != nil {
				t.Fatal(err)
			}
			if got := wants(changes); !sameWants(got, tc.want) {
				t.Errorf("changes:%s\nwant:%s", fmtWants(got), fmtWants(tc.want))
			}
		})
	}
}
