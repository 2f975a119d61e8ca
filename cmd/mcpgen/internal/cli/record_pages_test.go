package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestRecordPagesHoldNoCursors records a server whose prompts/list pages
// carry cursors of 256 KiB: record follows 100 pages of them without
// holding on to the cursors it has followed (it keeps a digest of each to
// catch a loop), as the Session's own listings do. It used to keep every
// cursor whole: 1,000 pages of cursors near the 16 MiB message limit held
// 16 GB.
func TestRecordPagesHoldNoCursors(t *testing.T) {
	const pages, size, early = 100, 256 << 10, 10
	var mu sync.Mutex
	heap := map[int]uint64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch m.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pager","version":"1"}}}`
		case "prompts/list":
			n := 0
			if m.Params.Cursor != "" {
				fmt.Sscan(m.Params.Cursor[size:], &n)
			}
			if n == early || n == pages {
				// What the client holds while it waits for this page.
				var ms goruntime.MemStats
				goruntime.GC()
				goruntime.ReadMemStats(&ms)
				mu.Lock()
				heap[n] = ms.HeapAlloc
				mu.Unlock()
			}
			next := ""
			if n < pages {
				next = fmt.Sprintf(`,"nextCursor":"%s%d"`, strings.Repeat("c", size), n+1)
			}
			result = fmt.Sprintf(`{"resultType":"complete","prompts":[{"name":"p%d"}]%s}`, n, next)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "pages.txtar")
	// Under the race detector the pages take longer than the default
	// --timeout; the test's own deadline bounds them instead.
	code, _, stderr := run(t, "", "record", "--out", out, "--timeout", testenv.WaitLimit(t).Round(time.Second).String(), "--url", srv.URL)
	if code != 0 || strings.Contains(stderr, "failed") {
		t.Fatalf("record: exit %d, stderr %s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heap) != 2 {
		t.Fatalf("the server saw the pages %v, want %d and %d", heap, early, pages)
	}
	if grew := int64(heap[pages]) - int64(heap[early]); grew > 8<<20 {
		t.Errorf("the heap grew by %d MiB over %d pages of %d KiB cursors, want no cursor held once followed", grew>>20, pages-early, size>>10)
	}
}

// TestRecordFollowsEmptyCursor records a server whose first prompts/list
// page ends with the cursor "": a cursor that is present is followed,
// empty or not, as the Session follows it, so that the recording replays
// the Session's listing. record used to stop there, and the replayed
// ListPrompts failed for want of the second page.
func TestRecordFollowsEmptyCursor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch {
		case m.Method == "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pager","version":"1"}}}`
		case m.Method == "prompts/list" && m.Params.Cursor == nil:
			result = `{"resultType":"complete","prompts":[{"name":"first"}],"nextCursor":""}`
		case m.Method == "prompts/list":
			result = `{"resultType":"complete","prompts":[{"name":"second"}]}`
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "empty-cursor.txtar")
	code, _, stderr := run(t, "", "record", "--out", out, "--url", srv.URL)
	if code != 0 {
		t.Fatalf("record: exit %d, stderr %s", code, stderr)
	}
	rt, err := runtime.NewReplayTransport(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t)
	s, err := runtime.Connect(ctx, rt, nil)
	if err != nil {
		t.Fatalf("Connect to the replay: %v", err)
	}
	defer s.Close()
	prompts, err := s.ListPrompts(ctx)
	if err != nil || len(prompts) != 2 {
		t.Errorf("replayed ListPrompts = %d prompts, %v; want first and second", len(prompts), err)
	}
}
