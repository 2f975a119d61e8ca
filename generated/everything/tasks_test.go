package everything

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestGeneratedMethodWaitsForTask: the generated method of a tool whose
// taskSupport is required (simulate-research-query) returns the task's
// result, and reports the task's stages as progress.
func TestGeneratedMethodWaitsForTask(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeEverything(t, "streamableHttp")
	ctx := testenv.Context(t)
	s, err := runtime.Connect(ctx, runtime.HTTP(url, nil), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer s.Close()
	var mu sync.Mutex
	var stages []string
	pctx := runtime.WithProgress(ctx, func(p runtime.Progress) {
		mu.Lock()
		stages = append(stages, p.Message)
		mu.Unlock()
	})
	res, err := NewClient(s).SimulateResearchQuery(pctx, SimulateResearchQueryArgs{Topic: "tasks"})
	if err != nil {
		t.Fatalf("SimulateResearchQuery = %v", err)
	}
	if !strings.Contains(res.Text(), "tasks") {
		t.Errorf("result %q does not mention the topic", res.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(stages, "Gathering sources...") || !slices.Contains(stages, "Generating report...") {
		t.Errorf("progress %q, want the research stages", stages)
	}
}
