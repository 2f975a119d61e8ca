package otelmcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime"
)

// maxTrackedTasks bounds the tasks whose creating call taskSpans remembers;
// past it, the requests of new tasks are children of their own context.
const maxTrackedTasks = 4096

// taskSpans remembers, by Session and task id, the span of the tools/call
// that created each task, so that the task's requests become its children.
// Task ids are the server's, and two servers may well use the same.
type taskSpans struct {
	mu    sync.Mutex
	spans map[taskKey]trace.SpanContext
}

// taskKey names a task of a Session.
type taskKey struct {
	session *runtime.SessionInfo
	id      string
}

// track remembers the task a tools/call result created, and forgets a task
// that reached its end.
func (t *taskSpans) track(req *runtime.Request, res *runtime.Response, sc trace.SpanContext) {
	switch {
	case req.Method == "tools/call" && bytes.Contains(res.Result, []byte(`"taskId"`)):
		var w struct {
			TaskID string `json:"taskId"`
			Task   *struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		if json.Unmarshal(res.Result, &w) != nil {
			return
		}
		id := w.TaskID
		if w.Task != nil && w.Task.TaskID != "" {
			id = w.Task.TaskID
		}
		if id == "" {
			return
		}
		t.mu.Lock()
		if t.spans == nil {
			t.spans = make(map[taskKey]trace.SpanContext)
		}
		if len(t.spans) < maxTrackedTasks {
			t.spans[taskKey{req.Session, id}] = sc
		}
		t.mu.Unlock()
	case req.Method == "tasks/result" || req.Method == "tasks/cancel" || (req.Method == "tasks/get" && terminal(res.Result)):
		t.mu.Lock()
		delete(t.spans, taskKey{req.Session, req.Name})
		t.mu.Unlock()
	}
}

// forget forgets the tasks of a Session that ended.
func (t *taskSpans) forget(info *runtime.SessionInfo) {
	t.mu.Lock()
	for k := range t.spans {
		if k.session == info {
			delete(t.spans, k)
		}
	}
	t.mu.Unlock()
}

// terminal reports whether a task's state is final.
func terminal(result []byte) bool {
	var w struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(result, &w)
	return w.Status == "completed" || w.Status == "failed" || w.Status == "cancelled"
}

// parent returns the span of the call that created the task a task
// request is about.
func (t *taskSpans) parent(req *runtime.Request) (trace.SpanContext, bool) {
	if !strings.HasPrefix(req.Method, "tasks/") || req.Name == "" {
		return trace.SpanContext{}, false
	}
	t.mu.Lock()
	sc, ok := t.spans[taskKey{req.Session, req.Name}]
	t.mu.Unlock()
	return sc, ok
}
