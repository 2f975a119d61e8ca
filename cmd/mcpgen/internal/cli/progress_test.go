package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// progressServer is a 2026-07-28 server over Streamable HTTP whose tool
// "work" sends notes, a list of progress notifications (each an amount and
// a message), before its result "done".
func progressServer(t *testing.T, notes [][2]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		switch m.Method {
		case "server/discover":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"p","version":"1"}}}}`, m.ID)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			for _, n := range notes {
				msg, _ := json.Marshal(n[1])
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":%s,\"message\":%s}}\n\n", m.Params.Meta.ProgressToken, n[0], msg)
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", m.ID)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCallProgressMessages calls a tool that repeats a long message with
// each of 100 progress notifications, then sends one with a newline and an
// escape sequence: each message is printed once, when it changes, cut to a
// bounded length with its control characters escaped; the amounts in
// between are printed alone. The whole message went out with every
// notification before, which made megabytes of standard error.
func TestCallProgressMessages(t *testing.T) {
	long := strings.Repeat("status of the research query ", 400) // 11.6 KB
	var notes [][2]string
	for i := range 100 {
		notes = append(notes, [2]string{fmt.Sprint(i + 1), long})
	}
	notes = append(notes, [2]string{"101", "line one\nline two \x1b]0;title\x07"}, [2]string{"102", ""})
	code, out, errOut := run(t, "", "call", "--no-validate", "work", "--url", progressServer(t, notes))
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != 102 {
		t.Fatalf("%d lines of progress, want 102:\n%.2000s", len(lines), errOut)
	}
	cut := "progress work: 1 " + long[:maxProgressMessage-1] + "…"
	if lines[0] != cut {
		t.Errorf("first line = %.300q…, want the message cut to %d characters", lines[0], maxProgressMessage)
	}
	for i, l := range lines[1:100] {
		if want := fmt.Sprintf("progress work: %d", i+2); l != want {
			t.Errorf("line %d = %.100q, want %q: the message did not change", i+2, l, want)
			break
		}
	}
	if want := `progress work: 101 line one\nline two \x1b]0;title\a`; lines[100] != want {
		t.Errorf("line 101 = %q, want %q", lines[100], want)
	}
	if want := "progress work: 102"; lines[101] != want {
		t.Errorf("line 102 = %q, want %q", lines[101], want)
	}
	if len(errOut) > 4<<10 {
		t.Errorf("%d bytes of progress for 102 notifications", len(errOut))
	}
}
