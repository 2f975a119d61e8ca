package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// connectFake connects to the fake stdio server in mode and closes the
// Session, checking that the process is gone, when the test ends.
func connectFake(t *testing.T, mode string, opts *Options) *Session {
	t.Helper()
	tr := fakeTransport(t, mode)
	ctx := testenv.Context(t)
	s, err := Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("Connect(%s): %v", mode, err)
	}
	t.Cleanup(func() { closeAndCheckReaped(t, s) })
	return s
}

// closeAndCheckReaped closes s and checks that its server process is gone.
func closeAndCheckReaped(t *testing.T, s *Session) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	c, ok := s.conn.(*stdioConn)
	if !ok {
		return
	}
	if c.cmd.ProcessState == nil {
		t.Errorf("server process %d was not reaped", c.cmd.Process.Pid)
	}
	if testenv.ProcessExists(c.cmd.Process.Pid) {
		t.Errorf("server process %d still exists after Close", c.cmd.Process.Pid)
	}
}

func callText(t *testing.T, s *Session, tool string, args any) string {
	t.Helper()
	// The test's deadline, not the Session's CallTimeout, which some tests
	// set short: this call is meant to succeed.
	res, err := s.CallTool(testenv.Context(t), tool, args)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	return res.Text()
}

func TestNegotiation(t *testing.T) {
	for _, tc := range []struct {
		mode, pin    string
		wantVersion  string
		wantServer   string
		instructions string
	}{
		{"modern", "", "2026-07-28", "fake", "be nice"},
		{"legacy", "", "2025-11-25", "fake-legacy", "old"},
		{"silent", "", "2025-11-25", "fake-legacy", "old"},
		{"emptyresult", "", "2025-11-25", "fake-legacy", "old"},
		{"v32022", "", "2025-06-18", "fake-legacy", "old"},
		{"modern", "2025-11-25", "2025-11-25", "fake-legacy", "old"},
		{"legacy", "2024-11-05", "2024-11-05", "fake-legacy", "old"},
	} {
		t.Run(tc.mode+"/"+tc.pin, func(t *testing.T) {
			start := time.Now()
			opts := &Options{ProtocolVersion: tc.pin}
			if tc.mode == "silent" {
				// Only a server that never answers waits out the bound;
				// the others are judged by their answer, however slow
				// the test binary is to start.
				opts.ProbeTimeout = 300 * time.Millisecond
			}
			s := connectFake(t, tc.mode, opts)
			if d := time.Since(start); d > 5*time.Second+loadSlack {
				t.Errorf("Connect took %v", d)
			}
			if got := s.ProtocolVersion(); got != tc.wantVersion {
				t.Errorf("ProtocolVersion = %q, want %q", got, tc.wantVersion)
			}
			if got := s.ServerInfo().Name; got != tc.wantServer {
				t.Errorf("ServerInfo().Name = %q, want %q", got, tc.wantServer)
			}
			if got := s.Instructions(); got != tc.instructions {
				t.Errorf("Instructions = %q, want %q", got, tc.instructions)
			}
			caps := s.Capabilities()
			if !caps.Tools || !caps.ToolsListChanged {
				t.Errorf("Capabilities = %+v, want tools with listChanged", caps)
			}
			if got := callText(t, s, "echo", map[string]string{"message": "hi"}); got != "hi" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

// TestPinnedModernRefusesLegacyServer pins 2026-07-28 against a legacy stdio
// server: Connect returns once the probe is written, and the first tool
// call fails with the probe's answer instead of falling back.
func TestPinnedModernRefusesLegacyServer(t *testing.T) {
	ctx := testenv.Context(t)
	s, err := Connect(ctx, fakeTransport(t, "legacy"), &Options{ProtocolVersion: "2026-07-28"})
	if err == nil {
		defer s.Close()
		_, err = s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	}
	if err == nil || !strings.Contains(err.Error(), "does not speak protocol version 2026-07-28") {
		t.Fatalf("CallTool = %v, want a refusal to fall back", err)
	}
}

// TestPinnedStdioListsBehindProbe pins 2026-07-28 over stdio against a
// server that answers server/discover only once it has read a tools/list:
// the probe must reach the server first, the listing right behind it
// without waiting for the probe's answer, and a tool call only after it.
func TestPinnedStdioListsBehindProbe(t *testing.T) {
	ctx := testenv.Context(t)
	s, err := Connect(ctx, fakeTransport(t, "modern+holdprobe"), &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) == 0 {
		t.Fatalf("ListTools = %d tools, %v", len(tools), err)
	}
	res, err := s.CallTool(ctx, "events", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "recv:server/discover,recv:tools/list,answer:server/discover,recv:tools/call"
	if got := res.Text(); got != want {
		t.Errorf("the server saw %s; want %s", got, want)
	}
	if got := s.Capabilities(); !got.Tools {
		t.Errorf("Capabilities = %+v, want those of the server/discover result", got)
	}
	if got := s.Instructions(); got != "be nice" {
		t.Errorf("Instructions = %q, want the server/discover result's", got)
	}
}

func TestUnsupportedPin(t *testing.T) {
	_, err := Connect(context.Background(), fakeTransport(t, "legacy"), &Options{ProtocolVersion: "1999-01-01"})
	if err == nil || !strings.Contains(err.Error(), `"1999-01-01" is not supported`) {
		t.Fatalf("Connect = %v", err)
	}
}

func TestListTools(t *testing.T) {
	for _, mode := range []string{"modern", "legacy", "modern+pages", "legacy+pages"} {
		t.Run(mode, func(t *testing.T) {
			s := connectFake(t, mode, nil)
			tools, err := s.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
				if len(tool.Raw) == 0 || len(tool.InputSchema) == 0 {
					t.Errorf("tool %s lacks its raw bytes or schema", tool.Name)
				}
			}
			if got := strings.Join(names, ","); got != "echo,slow,big,fail,die" {
				t.Errorf("tools = %s", got)
			}
		})
	}
}

func TestListToolsCursorLoop(t *testing.T) {
	s := connectFake(t, "legacy+loop", nil)
	_, err := s.ListTools(context.Background())
	if err == nil || !strings.Contains(err.Error(), `cursor "again" twice`) {
		t.Fatalf("ListTools = %v, want a cursor loop error", err)
	}
}

func TestCallErrors(t *testing.T) {
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			s := connectFake(t, mode, nil)
			res, err := s.CallTool(context.Background(), "fail", nil)
			var te *ToolError
			if !errors.As(err, &te) || te.Tool != "fail" || te.Result.Text() != "no such city" || res == nil || !res.IsError {
				t.Errorf("fail: res=%+v err=%v, want a *ToolError with the content", res, err)
			}
			_, err = s.CallTool(context.Background(), "rpcerr", nil)
			var re *RPCError
			if !errors.As(err, &re) || re.Code != CodeInvalidParams || string(re.Data) != `{"tool":"rpcerr"}` {
				t.Errorf("rpcerr: %v, want *RPCError -32602 with data", err)
			}
			if err == nil || !strings.Contains(err.Error(), "rpcerr") {
				t.Errorf("rpcerr: error %q does not name the tool", err)
			}
			_, err = s.CallTool(context.Background(), "echo", json.RawMessage(`{"message":`))
			if err == nil || !strings.Contains(err.Error(), "arguments") {
				t.Errorf("bad raw args: %v", err)
			}
		})
	}
}

func TestArgumentForms(t *testing.T) {
	s := connectFake(t, "modern", nil)
	for _, tc := range []struct {
		args any
		want string
	}{
		{nil, "null"},
		{json.RawMessage("{\n  \"a\": 1\n}"), `{"a":1}`},
		{[]byte(`{"b":[1,2]}`), `{"b":[1,2]}`},
		{map[string]any{"c": "<&>"}, `{"c":"\u003c\u0026\u003e"}`},
		{struct {
			D int `json:"d"`
		}{4}, `{"d":4}`},
	} {
		if got := callText(t, s, "args", tc.args); got != tc.want && !(tc.want == "null" && got == "") {
			t.Errorf("args %v arrived as %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestServerExitsMidCall(t *testing.T) {
	s := connectFake(t, "legacy", nil)
	_, err := s.CallTool(context.Background(), "die", nil)
	var se *ServerExitedError
	if !errors.As(err, &se) {
		t.Fatalf("die: %v, want *ServerExitedError", err)
	}
	if se.ExitStatus != "exit status 7" || !strings.Contains(se.StderrTail, "out of cheese") {
		t.Errorf("die: %+v, want exit status 7 and the stderr tail", se)
	}
	select {
	case <-s.Done():
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("Done not closed after the server exited")
	}
	_, err = s.CallTool(context.Background(), "echo", nil)
	if !errors.As(err, &se) {
		t.Errorf("call after exit: %v, want *ServerExitedError", err)
	}
}

func TestServerExitsMidLine(t *testing.T) {
	s := connectFake(t, "modern", nil)
	_, err := s.CallTool(context.Background(), "partial", nil)
	var se *ServerExitedError
	if !errors.As(err, &se) || se.ExitStatus != "exit status 9" || !strings.Contains(se.StderrTail, "crashed mid-write") {
		t.Fatalf("partial: %v, want *ServerExitedError with status 9", err)
	}
}

func TestServerExitsDuringHandshake(t *testing.T) {
	for _, pin := range []string{"", "2025-11-25"} {
		start := time.Now()
		_, err := Connect(context.Background(), fakeTransport(t, "die-init"), &Options{ProtocolVersion: pin})
		var se *ServerExitedError
		if !errors.As(err, &se) || se.ExitStatus != "exit status 3" || !strings.Contains(se.StderrTail, "cannot start") {
			t.Errorf("Connect(pin %q) = %v, want *ServerExitedError with status 3 and stderr", pin, err)
		}
		if d := time.Since(start); d > 5*time.Second+loadSlack {
			t.Errorf("Connect took %v to notice the exit", d)
		}
	}
}

func TestShutdownEscalates(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		min, max   time.Duration
		wantSignal string
	}{
		{"legacy", 0, 2 * time.Second, ""},
		{"legacy+lingering", 200 * time.Millisecond, 3 * time.Second, "terminated"},
		{"legacy+stubborn", 400 * time.Millisecond, 3 * time.Second, "killed"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			tr := fakeTransport(t, tc.mode)
			tr.ShutdownTimeout = 200 * time.Millisecond
			s, err := Connect(context.Background(), tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			closeAndCheckReaped(t, s)
			d := time.Since(start)
			if d < tc.min || d > tc.max {
				t.Errorf("Close took %v, want %v to %v", d, tc.min, tc.max)
			}
			state := s.conn.(*stdioConn).cmd.ProcessState.String()
			if tc.wantSignal != "" && !strings.Contains(state, tc.wantSignal) {
				t.Errorf("process ended with %q, want %s", state, tc.wantSignal)
			}
		})
	}
}

// TestCloseContextBoundsShutdown stops a server that ignores its input
// closing and SIGTERM, with waits of ten seconds: CloseContext kills it when
// its context ends, and a Connect that fails at its deadline does not wait
// for the server either.
func TestCloseContextBoundsShutdown(t *testing.T) {
	tr := fakeTransport(t, "legacy+stubborn")
	tr.ShutdownTimeout = 10 * time.Second
	s, err := Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.CloseContext(ctx); err != nil {
		t.Errorf("CloseContext: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("CloseContext with 300ms left took %v", d)
	}
	closeAndCheckReaped(t, s)
	if state := s.conn.(*stdioConn).cmd.ProcessState.String(); !strings.Contains(state, "killed") {
		t.Errorf("process ended with %q, want killed", state)
	}

	tr = fakeTransport(t, "silent+stubborn")
	tr.ShutdownTimeout = 10 * time.Second
	ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := Connect(ctx, tr, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect to a silent server = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Connect with a 500ms deadline took %v, its failed server's shutdown included", d)
	}
}

func TestStartFailure(t *testing.T) {
	_, err := Connect(context.Background(), NewCommandTransport("/nonexistent/mcp-server"), nil)
	if err == nil || !strings.Contains(err.Error(), "starting server mcp-server") {
		t.Fatalf("Connect = %v", err)
	}
}

func TestGarbageAndUnknownIDs(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		s := connectFake(t, mode, nil)
		if got := callText(t, s, "garbage", nil); got != "survived" {
			t.Errorf("garbage = %q", got)
		}
		if got := callText(t, s, "unknownid", nil); got != "after unknown" {
			t.Errorf("unknownid = %q", got)
		}
		_, err := s.CallTool(context.Background(), "badresult", nil)
		if err == nil || !strings.Contains(err.Error(), "isError") {
			t.Errorf("badresult: %v, want a malformed result error", err)
		}
		if got := callText(t, s, "echo", map[string]string{"message": "still"}); got != "still" {
			t.Errorf("echo after garbage = %q", got)
		}
	}
}

func TestOversizeMessage(t *testing.T) {
	for _, mode := range []string{"legacy", "legacy+idlast", "modern+idlast"} {
		t.Run(mode, func(t *testing.T) {
			tr := fakeTransport(t, mode)
			tr.MaxMessageSize = 100 << 10
			s, err := Connect(context.Background(), tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer closeAndCheckReaped(t, s)
			ctx := testenv.Context(t)
			_, err = s.CallTool(ctx, "big", map[string]int{"n": 300 << 10})
			var tl *MessageTooLargeError
			if !errors.As(err, &tl) || tl.Limit != 100<<10 {
				t.Fatalf("big: %v, want *MessageTooLargeError", err)
			}
			// Longer than the read buffer, shorter than the limit.
			res, err := s.CallTool(ctx, "big", map[string]int{"n": 90 << 10})
			if err != nil || len(res.Text()) != 90<<10 {
				t.Fatalf("big under the limit: %v", err)
			}
		})
	}
}

func TestSlowServerAgainstDeadline(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		t.Run(mode, func(t *testing.T) {
			s := connectFake(t, mode, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := s.CallTool(ctx, "slow", map[string]int{"ms": 3000})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("slow: %v, want DeadlineExceeded", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("slow returned after %v", d)
			}
			// The server was told: its list of cancelled requests names one.
			if got := callText(t, s, "cancelled", nil); got == "" {
				t.Errorf("the server saw no notifications/cancelled")
			}
		})
	}
}

func TestCallTimeoutOption(t *testing.T) {
	s := connectFake(t, "legacy", &Options{CallTimeout: 100 * time.Millisecond})
	_, err := s.CallTool(context.Background(), "slow", map[string]int{"ms": 2000})
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) || te.Name != "slow" {
		t.Fatalf("slow: %v, want *TimeoutError", err)
	}
	if got := callText(t, s, "echo", map[string]string{"message": "ok"}); got != "ok" {
		t.Errorf("echo after a timeout = %q", got)
	}
}

func TestProgress(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		s := connectFake(t, mode, nil)
		var got []Progress
		ctx := WithProgress(context.Background(), func(p Progress) { got = append(got, p) })
		res, err := s.CallTool(ctx, "progress", nil)
		if err != nil || res.Text() != "progressed" {
			t.Fatalf("progress: %v", err)
		}
		if len(got) != 3 || got[2] != (Progress{Progress: 3, Total: 3, Message: "step 3"}) {
			t.Errorf("%s: progress = %+v", mode, got)
		}
	}
}

func TestProgressExtendsTimeout(t *testing.T) {
	s := connectFake(t, "legacy", &Options{CallTimeout: 500 * time.Millisecond})
	ticks := map[string]int{"n": 10, "ms": 100} // 1 s in all, never 500 ms without news
	withProgress := WithProgress(context.Background(), func(Progress) {})
	if _, err := s.CallTool(withProgress, "ticks", ticks); err != nil {
		t.Errorf("a call with steady progress: %v", err)
	}
	if _, err := s.CallTool(context.Background(), "ticks", ticks); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call without progress: %v, want a timeout", err)
	}
	// Progress stretches the timeout to ten timeouts at most.
	start := time.Now()
	_, err := s.CallTool(withProgress, "ticks", map[string]int{"n": 80, "ms": 100})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call with endless progress: %v, want a timeout", err)
	}
	if d := time.Since(start); d < 4900*time.Millisecond || d > 5*time.Second+loadSlack {
		t.Errorf("the call with endless progress ended after %v, want about 5s", d)
	}
}

func TestServerRequestsAndBatches(t *testing.T) {
	s := connectFake(t, "legacy", nil)
	if got := callText(t, s, "ping", nil); !strings.Contains(got, "ping={}") || !strings.Contains(got, "-32601") {
		t.Errorf("ping = %q, want an empty ping result and -32601 for sampling", got)
	}
	if got := callText(t, s, "batch", nil); got != "batched" {
		t.Errorf("batch = %q", got)
	}
}

func TestToolsListChanged(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		t.Run(mode, func(t *testing.T) {
			changed := make(chan struct{}, 4)
			s := connectFake(t, mode, &Options{OnToolsChanged: func() { changed <- struct{}{} }})
			callText(t, s, "changed", nil)
			select {
			case <-changed:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("OnToolsChanged was not called")
			}
		})
	}
}

func TestContentTypes(t *testing.T) {
	s := connectFake(t, "modern", nil)
	res, err := s.CallTool(context.Background(), "content", nil)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(12)
	want := []Content{
		{Type: "text", Text: "héllo \"q\"\n", Annotations: json.RawMessage(`{"audience":["user"]}`)},
		{Type: "image", Data: []byte{0x89, 'P', 'N', 'G', 0x0d}, MIMEType: "image/png"},
		{Type: "audio", Data: []byte("RIFF"), MIMEType: "audio/wav"},
		{Type: "resource_link", URI: "file:///a.txt", Name: "a.txt", Title: "A", Description: "d", MIMEType: "text/plain", Size: &size},
		{Type: "resource", Resource: &ResourceContents{URI: "file:///b.txt", MIMEType: "text/plain", Text: "bee"}},
		{Type: "resource", Resource: &ResourceContents{URI: "file:///c.bin", Blob: []byte{0, 1}}},
		{Type: "hologram", Raw: json.RawMessage(`{"depth":3,"type":"hologram"}`)},
	}
	if len(res.Content) != len(want) {
		t.Fatalf("got %d blocks, want %d", len(res.Content), len(want))
	}
	for i := range want {
		g, _ := json.Marshal(res.Content[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("block %d = %s, want %s", i, g, w)
		}
	}
	if string(res.StructuredContent) != `{"temperature":22.5}` {
		t.Errorf("structuredContent = %s", res.StructuredContent)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s := connectFake(t, "modern", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for g := 0; g < 20; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				msg := fmt.Sprintf("g%d-%d", g, i)
				res, err := s.CallTool(context.Background(), "echo", map[string]string{"message": msg})
				if err != nil {
					errs <- err
					continue
				}
				if res.Text() != msg {
					errs <- fmt.Errorf("got %q, want %q", res.Text(), msg)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseFailsCallsInFlight(t *testing.T) {
	s, err := Connect(context.Background(), fakeTransport(t, "legacy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), "slow", map[string]int{"ms": 10000})
		done <- err
	}()
	waitPending(t, s, 1)
	closeAndCheckReaped(t, s)
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call in flight: %v, want ErrClosed", err)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the call in flight did not return after Close")
	}
	if _, err := s.CallTool(context.Background(), "echo", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}
