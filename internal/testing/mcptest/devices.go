package mcptest

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// DeviceTools are two tools for tests of agent loops: switch_on has no
// annotations, so it counts as destructive; read_state says it is
// read-only.
const DeviceTools = `[
	{"name": "switch_on", "description": "Switches a device on.", "inputSchema": {"type": "object", "properties": {"device": {"type": "string"}}, "required": ["device"]}},
	{"name": "read_state", "description": "Reads a device's state.", "inputSchema": {"type": "object", "properties": {"device": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}
]`

// Connect opens a session to the server, closed when the test ends, and
// returns it with the tools it lists.
func (s *Server) Connect(t testing.TB) (*runtime.Session, []runtime.Tool) {
	t.Helper()
	ctx := context.Background()
	session, err := runtime.Connect(ctx, runtime.HTTP(s.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	tools, err := session.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return session, tools
}
