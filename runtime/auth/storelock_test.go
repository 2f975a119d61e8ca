package auth

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// Two processes of TestTwoProcessesRefreshOneGrant run this test: it waits
// for a line on its input, then calls the MCP server named in the
// environment with the FileStore there, and fails unless the server
// answers 200.
func TestGrantLockChildProcess(t *testing.T) {
	u, dir := os.Getenv("MCPGEN_GRANT_LOCK_URL"), os.Getenv("MCPGEN_GRANT_LOCK_STORE")
	if u == "" || dir == "" {
		t.Skip("run by TestTwoProcessesRefreshOneGrant")
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	o := &OAuth{Store: &FileStore{Dir: dir}}
	if status, err := call(o, u); status != http.StatusOK || err != nil {
		t.Fatalf("GET %s: HTTP %d, %v", u, status, err)
	}
}

// TestTwoProcessesRefreshOneGrant runs two processes on one stored grant
// whose access token has expired, against an authorization server that
// rotates refresh tokens and revokes the grant when a spent one comes
// back. Both start their call at once, and the server holds the first
// refresh until a second one comes (or 5 s pass): the second process must
// wait for the first to store the rotated grant and take it, rather than
// spend the same refresh token, which used to cost both processes the
// grant.
func TestTwoProcessesRefreshOneGrant(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rotateRefreshTokens(as)
	rotating := as.srv.Config.Handler
	var refreshes atomic.Int32
	second := make(chan struct{})
	var secondOnce sync.Once
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") && r.ParseForm() == nil && r.PostForm.Get("grant_type") == "refresh_token" {
			if refreshes.Add(1) == 1 {
				// Only the absence of a second refresh ends this
				// wait: no signal can tell it.
				select {
				case <-second:
				case <-time.After(5 * time.Second):
				}
			} else {
				secondOnce.Do(func() { close(second) })
			}
		}
		rotating.ServeHTTP(w, r)
	})
	rs := newFakeRS(t, as)
	dir := t.TempDir()
	store := &FileStore{Dir: dir}
	first := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, first, rs.url())
	first.mu.Lock()
	g := *first.grant
	first.mu.Unlock()
	tok := *g.Token
	tok.Expiry = time.Now().Add(-time.Minute)
	g.Token = &tok
	if err := store.SaveGrant(context.Background(), &g); err != nil {
		t.Fatal(err)
	}

	ctx := testenv.Context(t)
	type proc struct {
		cmd   *exec.Cmd
		in    io.WriteCloser
		out   *bufio.Reader
		rest  chan string
		ready bool
	}
	var procs []*proc
	for range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGrantLockChildProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MCPGEN_GRANT_LOCK_URL="+rs.url(), "MCPGEN_GRANT_LOCK_STORE="+dir)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, in: in, out: bufio.NewReader(out), rest: make(chan string, 1)}
		procs = append(procs, p)
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	for i, p := range procs {
		line, err := p.out.ReadString('\n')
		if strings.TrimSpace(line) != "ready" {
			t.Fatalf("process %d: %q, %v; want ready", i+1, line, err)
		}
	}
	for _, p := range procs {
		go func() {
			b, _ := io.ReadAll(p.out)
			p.rest <- string(b)
		}()
		io.WriteString(p.in, "go\n")
	}
	for i, p := range procs {
		out := <-p.rest
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i+1, err, out)
		}
	}
	if got := as.grantTypes(); slices.Index(got, "authorization_code") != 0 || slices.Contains(got[1:], "authorization_code") || len(got) != 2 {
		t.Errorf("token requests %q, want one sign-in, then one refresh", got)
	}
}
