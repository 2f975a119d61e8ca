package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// peerEvil is text a hostile server writes into the names, ids and messages
// an error quotes: terminal escapes (window title, clipboard, clear screen),
// a line break that forges a log line, a bidi override and a byte that is
// not UTF-8.
const peerEvil = "ok\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\r\nlevel=INFO msg=\"forged\"\u009b31m\u202egnp.exe\u2028\xff"

// peerHuge is peerEvil repeated to 1 MiB.
var peerHuge = strings.Repeat(peerEvil, (1<<20)/len(peerEvil)+1)

// maxPeerError is how long an error quoting peerHuge may be: the fixed text
// of the message, and at most a few hundred bytes of the server's.
const maxPeerError = 1024

// peerHazard describes the first character of s that could act on a
// terminal or start a new log line, or returns "" when there is none.
func peerHazard(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf("the byte %#x at %d", s[i], i)
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == '\u2028', r == '\u2029',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return fmt.Sprintf("%U at %d", r, i)
		}
	}
	return ""
}

// checkPeerError fails t when err is nil, longer than maxPeerError, holds a
// character that could act on a terminal or a log, or lacks want, which
// names what failed.
func checkPeerError(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	msg := err.Error()
	if len(msg) > maxPeerError {
		t.Errorf("%s: the error is %d bytes, more than %d: %.200q...", what, len(msg), maxPeerError, msg)
	}
	if h := peerHazard(msg); h != "" {
		t.Errorf("%s: the error holds %s: %.300q", what, h, msg)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("%s: the error %.300q does not say %q", what, msg, want)
	}
	// A header cannot carry the escapes: net/http refuses it.
	if !strings.Contains(msg, `\x1b]0;pwned\a`) && !strings.Contains(want, "content type") {
		t.Errorf("%s: the error %.300q does not show the server's text as escapes: the check proves nothing", what, msg)
	}
}

// TestPeerTextInErrorsBounded talks to a server that writes 1 MiB of
// terminal escapes and forged log lines into everything an error quotes:
// the message of an error response, a resultType, the text of an isError
// result, a task
// id, a resource link's URI, a listed tool's and
// resource's name, and the protocol version it chooses. Each error shows
// the server's text escaped and cut to a few hundred bytes, and still
// names what failed; the typed errors keep the text whole.
func TestPeerTextInErrorsBounded(t *testing.T) {
	huge, _ := json.Marshal(peerHuge)
	var sent string // peerHuge as the Session decodes it: \xff becomes U+FFFD
	json.Unmarshal(huge, &sent)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		switch m.Method + " " + p.Name {
		case "tools/call rpc":
			c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":%s}}`, m.ID, huge))
		case "tools/call resulttype":
			c.reply(m, `{"resultType":`+string(huge)+`,"content":[]}`)
		case "tools/call toolerr":
			c.reply(m, `{"resultType":"complete","isError":true,"content":[{"type":"text","text":`+string(huge)+`}]}`)
		case "tools/call taskid":
			c.reply(m, `{"resultType":"task","taskId":`+string(huge)+`,"status":"bogus"}`)
		case "tools/call taskfailed":
			c.reply(m, `{"resultType":"task","taskId":`+string(huge)+`,"status":"failed","statusMessage":`+string(huge)+`}`)
		case "tools/list ":
			c.reply(m, `{"resultType":"complete","tools":[{"name":`+string(huge)+`,"inputSchema":{"type":"object"},"title":"a","title":"b"}]}`)
		case "prompts/list ":
			c.reply(m, `{"resultType":`+string(huge)+`,"prompts":[]}`)
		case "resources/list ":
			c.reply(m, `{"resultType":"complete","resources":[{"name":`+string(huge)+`}]}`)
		case "resources/read ":
			c.replyError(m, CodeInternalError, "null")
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	_, err = s.CallTool(ctx, "rpc", nil)
	checkPeerError(t, "an error response", err, "calling rpc: rpc error -32000: ")
	if re := (*RPCError)(nil); !errors.As(err, &re) || re.Message != sent {
		t.Errorf("the *RPCError does not keep the message whole")
	}
	_, err = s.CallTool(ctx, "resulttype", nil)
	checkPeerError(t, "a resultType", err, "unsupported resultType ")
	_, err = s.CallTool(ctx, "toolerr", nil)
	checkPeerError(t, "an isError result", err, "tool toolerr failed: ")
	if te := (*ToolError)(nil); !errors.As(err, &te) || te.Result.Text() != sent {
		t.Errorf("the *ToolError does not keep the result whole")
	}
	_, err = s.CallTool(ctx, "taskid", nil)
	checkPeerError(t, "a task id", err, "has unknown status")
	_, err = s.CallTool(ctx, "taskfailed", nil)
	checkPeerError(t, "a failed task", err, "of tool taskfailed: ")
	_, err = s.ReadLink(ctx, Content{Type: ContentResourceLink, URI: peerHuge, Name: "n"})
	checkPeerError(t, "a resource link's URI", err, "reading ")
	_, err = s.ListTools(ctx)
	checkPeerError(t, "a tool's name", err, "tool 0 (")
	_, err = s.ListPrompts(ctx)
	checkPeerError(t, "a listing's resultType", err, "prompts/list: unsupported resultType ")
	_, err = s.ListResources(ctx)
	checkPeerError(t, "a resource's name", err, "has no uri")

	legacy := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "initialize":
			c.reply(m, `{"protocolVersion":`+string(huge)+`,"capabilities":{},"serverInfo":{"name":"mem","version":"1"}}`)
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	})
	_, err = Connect(ctx, legacy, nil)
	checkPeerError(t, "a protocol version", err, "initialize: the server chose protocol version ")
}

// TestEchoedSecretsNotInErrors talks to a server that echoes the bearer
// token it receives in the text of an isError result and in a task's id:
// the error strings show [REDACTED], since the Session knows the
// credential.
func TestEchoedSecretsNotInErrors(t *testing.T) {
	checkLeaks(t)
	const token = "err-tok-SECRET-3141"
	t.Setenv("MCPGEN_TEST_ERR_TOKEN", token)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		w.Header().Set("Content-Type", "application/json")
		switch m.Params.Name {
		case "task":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":"t-%s","status":"failed","statusMessage":"refused %s"}}`, m.ID, tok, tok)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","isError":true,"content":[{"type":"text","text":"failed for %s"}]}}`, m.ID, tok)
		}
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_ERR_TOKEN"
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "fail", nil)
	if err == nil || !strings.Contains(err.Error(), "failed for [REDACTED]") {
		t.Errorf("isError: %v, want the echoed token redacted", err)
	}
	if te := (*ToolError)(nil); !errors.As(err, &te) || !strings.Contains(te.Result.Text(), token) {
		t.Errorf("the *ToolError does not keep the result as the server sent it")
	}
	_, err = s.CallTool(context.Background(), "task", nil)
	if err == nil || !strings.Contains(err.Error(), "t-[REDACTED]") {
		t.Errorf("failed task: %v, want the echoed token redacted", err)
	}
	if err != nil && strings.Contains(err.Error(), token) {
		t.Errorf("the error shows the token: %v", err)
	}
}

// TestPeerTextInHTTPErrorsBounded talks to HTTP servers that put terminal
// escapes and forged log lines into what the transports' errors quote: the
// body of an HTTP error and, 1 MiB of them, the Content-Type of a response.
// The errors show them escaped and cut.
func TestPeerTextInHTTPErrorsBounded(t *testing.T) {
	checkLeaks(t)
	failing := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, strings.Repeat(peerEvil, 40))
	})
	c := dial(t, StreamableHTTP(failing.URL+"/mcp", testHTTPOptions(t)))
	err := c.Write(context.Background(), rpcReq(1, "initialize", ""))
	c.Close()
	checkPeerError(t, "an HTTP error body", err, ": HTTP 500: ")
	var he *HTTPError
	if !errors.As(err, &he) || !strings.Contains(string(he.Body), "\x1b]0;pwned") {
		t.Errorf("the *HTTPError does not keep the body as the server sent it")
	}

	// A Content-Type of 1 MiB: plain, which the transport quotes, and with
	// escapes, which net/http refuses, quoting the whole line in its error.
	for _, tc := range []struct{ what, unit, want string }{
		{"a Content-Type", "x-pwned-", "unexpected response content type "},
		{"a Content-Type net/http refuses", "\x1b]0;pwned\x07", "malformed MIME header line"},
	} {
		odd := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/"+strings.Repeat(tc.unit, (1<<20)/len(tc.unit)))
			fmt.Fprint(w, `{}`)
		})
		c = dial(t, StreamableHTTP(odd.URL+"/mcp", testHTTPOptions(t)))
		err = c.Write(context.Background(), rpcReq(1, "initialize", ""))
		c.Close()
		checkPeerError(t, tc.what, err, tc.want)
	}
}

// TestServerExitedErrorQuotesTheTail: the stderr tail of a crashed stdio
// server went into the error as written, so a server could put terminal
// escapes and forged log lines into whatever printed or logged the error.
// Quoted, it stays whole (bounded already at 4 KiB) and acts on nothing.
func TestServerExitedErrorQuotesTheTail(t *testing.T) {
	tail := "panic: boom\x1b]0;pwned\a\nlevel=INFO msg=\"forged\""
	err := &ServerExitedError{Command: "srv", ExitStatus: "exit status 2", StderrTail: tail}
	msg := err.Error()
	for i, r := range msg {
		if r < 0x20 || r == 0x7f {
			t.Fatalf("the error holds U+%04X at %d: %q", r, i, msg)
		}
	}
	if want := `server srv exited (exit status 2); stderr: "panic: boom\x1b]0;pwned\a\nlevel=INFO msg=\"forged\""`; msg != want {
		t.Errorf("error:\n%s\nwant\n%s", msg, want)
	}
}

// TestPeerTextInInputRequestErrorsBounded talks to a server whose
// inputRequests name a request with 1 MiB of terminal escapes, or ask with
// a method of them: the error naming the input request shows the server's
// text escaped and cut, as every other error quoting a server's name does.
func TestPeerTextInInputRequestErrorsBounded(t *testing.T) {
	huge, _ := json.Marshal(peerHuge)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		switch m.Method + " " + p.Name {
		case "tools/call key":
			c.reply(m, `{"resultType":"input_required","inputRequests":{`+string(huge)+`:{"method":"bogus/method"}}}`)
		case "tools/call method":
			c.reply(m, `{"resultType":"input_required","inputRequests":{"k":{"method":`+string(huge)+`}}}`)
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "key", nil)
	checkPeerError(t, "an input request's key", err, "calling key: input request ")
	_, err = s.CallTool(context.Background(), "method", nil)
	checkPeerError(t, "an input request's method", err, "unsupported method ")
}

// TestEchoedSecretsNotInInputRequestErrors talks to a server that echoes the
// bearer token it receives in the key and the method of an input request,
// in the mode and the URL of an elicitation, and in the id of a task that
// asks for input for ever: the errors, and the records of the URL declined
// and of the tasks/cancel that fails, show [REDACTED].
func TestEchoedSecretsNotInInputRequestErrors(t *testing.T) {
	checkLeaks(t)
	const token = "input-tok-SECRET-2718"
	t.Setenv("MCPGEN_TEST_INPUT_TOKEN", token)
	var polls atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		reply := func(result string) {
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
		}
		switch {
		case m.Method == "server/discover":
			reply(modernDiscover)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/call" && m.Params.Name == "url":
			if strings.Contains(string(body), `"inputResponses"`) {
				reply(`{"resultType":"complete","content":[]}`)
				return
			}
			reply(`{"resultType":"input_required","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"m","elicitationId":"e","url":"javascript:` + tok + `"}}}}`)
		case m.Method == "tools/call" && m.Params.Name == "mode":
			reply(`{"resultType":"input_required","inputRequests":{"m":{"method":"elicitation/create","params":{"mode":"` + tok + `"}}}}`)
		case m.Method == "tools/call" && m.Params.Name == "ask":
			reply(`{"resultType":"input_required","inputRequests":{"k-` + tok + `":{"method":"bogus/` + tok + `"}}}`)
		case m.Method == "tools/call":
			reply(`{"resultType":"task","taskId":"t-` + tok + `","status":"working","pollIntervalMs":100}`)
		case m.Method == "tasks/get":
			n := polls.Add(1)
			reply(fmt.Sprintf(`{"resultType":"complete","taskId":"t-%s","status":"input_required","pollIntervalMs":100,"inputRequests":{"q%d":{"method":"roots/list"}}}`, tok, n))
		case m.Method == "tasks/update":
			reply(`{"resultType":"complete"}`)
		default:
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID))
		}
	})
	var logs bytes.Buffer
	var logMu sync.Mutex
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_INPUT_TOKEN"
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), &Options{
		Roots: func(context.Context) ([]Root, error) { return []Root{{URI: "file:///tmp"}}, nil },
		Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
			return &ElicitResult{Action: ElicitAccept}, nil
		},
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "ask", nil)
	if err == nil || !strings.Contains(err.Error(), `input request "k-[REDACTED]"`) || strings.Contains(err.Error(), token) {
		t.Errorf("input request: %v, want the echoed token redacted", err)
	}
	_, err = s.CallTool(context.Background(), "mode", nil)
	if err == nil || !strings.Contains(err.Error(), `unsupported mode \"[REDACTED]\"`) || strings.Contains(err.Error(), token) {
		t.Errorf("elicitation mode: %v, want the echoed token redacted", err)
	}
	if _, err := s.CallTool(context.Background(), "url", nil); err != nil {
		t.Errorf("URL elicitation: %v", err)
	}
	_, err = s.CallTool(context.Background(), "task", nil)
	var ire *InputRoundsError
	if !errors.As(err, &ire) || !strings.Contains(err.Error(), "t-[REDACTED]") || strings.Contains(err.Error(), token) {
		t.Errorf("task asking for ever: %v, want an InputRoundsError with the echoed token redacted", err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "cancelling a task failed") || !strings.Contains(logs.String(), "declined a URL elicitation") {
		t.Errorf("no record of the failed tasks/cancel: the check proves nothing")
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the log shows the token:\n%s", logs.String())
	}
}
