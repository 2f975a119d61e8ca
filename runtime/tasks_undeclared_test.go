package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestTaskResultTypeWithoutTheExtension: a client that does not declare
// the tasks extension must take a result of type "task" as an invalid
// resultType. A legacy Session declares no extension, so a 2025-11-25
// server that answers tools/call so is refused, and no tasks/get of the
// 2026-07-28 extension is sent to it.
func TestTaskResultTypeWithoutTheExtension(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mem","version":"1"}}`)
		case "tools/call":
			c.reply(m, `{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":100}`)
		case "tasks/get":
			c.reply(m, `{"taskId":"t-1","status":"completed","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","result":{"content":[{"type":"text","text":"taken as a task"}]}}`)
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if caps := initCapabilities(t, conn); strings.Contains(caps, tasksExtension) {
		t.Fatalf("capabilities %s declare the tasks extension", caps)
	}
	res, err := s.CallTool(context.Background(), "slow_compute", nil)
	if err == nil || !strings.Contains(err.Error(), `unsupported resultType "task"`) {
		t.Errorf("CallTool = %v, %v; want the resultType refused", res, err)
	}
	if slices.Contains(conn.methods(), "tasks/get") {
		t.Errorf("methods %v: the result was taken for a task", conn.methods())
	}
}
