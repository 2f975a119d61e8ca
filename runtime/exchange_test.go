package runtime

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// recorder is a memConn server that logs the exchange: "> " lines are what
// the Session wrote, "< " lines what the server answered.
type recorder struct {
	mu  sync.Mutex
	log strings.Builder
}

func (r *recorder) out(m memMsg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.WriteString("> " + m.Raw)
	if m.Version != "" {
		r.log.WriteString("  [" + m.Version + "]")
	}
	r.log.WriteString("\n")
}

func (r *recorder) in(c *memConn, line string) {
	r.mu.Lock()
	r.log.WriteString("< " + line + "\n")
	r.mu.Unlock()
	c.in <- []byte(line)
}

// TestExchange pins the exact messages a Session sends in each era: the
// negotiation, a paged tools/list, a call with progress, and a cancelled
// call, one file of testdata/exchange.txtar per era. Run with -update to
// rewrite the archive.
func TestExchange(t *testing.T) {
	golden := filepath.Join("testdata", "exchange.txtar")
	want := map[string]string{}
	if ar, err := txtar.ParseFile(golden); err == nil {
		for _, f := range ar.Files {
			want[f.Name] = string(f.Data)
		}
	} else if !*update {
		t.Fatalf("%v (run go test -run TestExchange -update to create it)", err)
	}
	updated := &txtar.Archive{Comment: []byte("The messages a Session exchanges in each era: \"> \" lines are what it\nwrote (with the protocol version it sent beside them), \"< \" lines what the\nserver answered. TestExchange writes them with -update.\n")}
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			rec := &recorder{}
			cancelled := make(chan struct{})
			conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
				rec.out(m)
				id := string(m.ID)
				switch m.Method {
				case "server/discover":
					if era == "modern" {
						rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"rec","version":"1"}},"ttlMs":0,"cacheScope":"public"}}`)
					} else {
						rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"Method not found"}}`)
					}
				case "initialize":
					rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}}`)
				case "tools/list":
					if strings.Contains(string(m.Params), `"cursor"`) {
						rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}`)
					} else {
						rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":""}}`)
					}
				case "tools/call":
					if strings.Contains(string(m.Params), `"hang"`) {
						close(cancelled)
						return nil
					}
					rec.in(c, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+id+`,"progress":1,"total":2}}`)
					rec.in(c, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
				}
				return nil
			})
			s, err := Connect(context.Background(), conn, &Options{ClientName: "rec-client", ClientVersion: "1.0"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			progress := make(chan Progress, 1)
			ctx := WithProgress(context.Background(), func(p Progress) { progress <- p })
			if _, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"}); err != nil {
				t.Fatal(err)
			}
			if p := <-progress; p.Progress != 1 || p.Total != 2 {
				t.Errorf("progress = %+v", p)
			}
			cctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-cancelled
				cancel()
			}()
			if _, err := s.CallTool(cctx, "hang", nil); err == nil {
				t.Error("the cancelled call succeeded")
			}
			s.Close()

			got := rec.log.String()
			if *update {
				updated.Files = append(updated.Files, txtar.File{Name: era, Data: []byte(got)})
				return
			}
			if got != want[era] {
				t.Errorf("exchange differs from %s, file %s (run with -update to accept):\ngot:\n%s\nwant:\n%s", golden, era, got, want[era])
			}
		})
	}
	if *update {
		if err := os.WriteFile(golden, txtar.Format(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
