package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// run runs mcpgen in-process with args and returns its exit status and
// output.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// sdkServers returns the ways to reach the go-sdk test server: its stdio
// command line after "--", and the flags for its stateless Streamable HTTP
// endpoint.
func sdkServers(t *testing.T) map[string][]string {
	t.Helper()
	return map[string][]string{
		"stdio": {"--", testenv.SDKServer(t)},
		"http":  {"--url", testenv.ServeSDK(t, false)},
	}
}

func TestToolsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for name, server := range sdkServers(t) {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := run(t, "", append([]string{"tools"}, server...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if !strings.HasPrefix(lines[0], "sdkserver 1.0.0, protocol 2026-07-28, 6 tool(s)") {
				t.Errorf("header line %q", lines[0])
			}
			if !strings.HasPrefix(lines[2], "NAME") || !strings.Contains(lines[2], "ARGUMENTS") {
				t.Errorf("table header %q", lines[2])
			}
			wantRows := []string{"add", "big", "echo", "fail", "progress", "slow"}
			rows := lines[3:]
			if len(rows) != len(wantRows) {
				t.Fatalf("%d rows, want %d:\n%s", len(rows), len(wantRows), out)
			}
			for i, w := range wantRows {
				if f := strings.Fields(rows[i]); f[0] != w {
					t.Errorf("row %d = %q, want tool %s", i, rows[i], w)
				}
			}
			if !strings.Contains(out, "echo      message    Echoes its message back as text.") {
				t.Errorf("echo row missing or misaligned:\n%s", out)
			}

			code, out, errOut = run(t, "", append([]string{"tools", "--json"}, server...)...)
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, errOut)
			}
			var tools []map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &tools); err != nil {
				t.Fatalf("--json output is not a JSON array: %v\n%s", err, out)
			}
			if len(tools) != 6 {
				t.Errorf("--json lists %d tools, want 6", len(tools))
			}
			for _, tool := range tools {
				if _, ok := tool["inputSchema"]; !ok {
					t.Errorf("tool %s has no inputSchema", tool["name"])
				}
			}
		})
	}
}

func TestCallLive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	tests := []struct {
		name      string
		args      []string
		stdin     string
		code      int
		stdout    string // the whole output, when set
		stdoutHas string
		stderrHas string
	}{
		{name: "echo", args: []string{"echo", `{"message":"hi"}`}, stdout: "hi\n"},
		{name: "flags after positionals", args: []string{"echo", `{"message":"hi"}`, "--timeout", "20s"}, stdout: "hi\n"},
		{name: "structured output shown once, indented", args: []string{"add", `{"a":1,"b":2.5}`}, stdout: "{\n  \"sum\": 3.5\n}\n"},
		{name: "json", args: []string{"--json", "add", `{"a":1,"b":2}`}, stdoutHas: "\"structuredContent\": {\n    \"sum\": 3\n  }"},
		{name: "arguments from stdin", args: []string{"echo", "-"}, stdin: "{\n \"message\": \"from stdin\"\n}\n", stdout: "from stdin\n"},
		{name: "error result", args: []string{"fail", `{"message":"boom"}`}, code: 1, stdout: "boom\n", stderrHas: "call fail: the tool reported an error (isError)"},
		{name: "error result as json", args: []string{"--json", "fail", `{"message":"boom"}`}, code: 1, stdoutHas: `"isError": true`},
		{name: "progress", args: []string{"progress", `{"steps":2}`}, stdout: "done after 2 steps\n", stderrHas: "progress progress: 2/2 step 2 of 2"},
		{name: "wrong type", args: []string{"echo", `{"message":3}`}, code: 2, stderrHas: "invalid arguments for echo at /message: got number, want string"},
		{name: "missing property", args: []string{"echo"}, code: 2, stderrHas: "invalid arguments for echo at (root): missing property 'message'"},
		{name: "no-validate lets the server judge", args: []string{"--no-validate", "echo", `{"message":3}`}, code: 1, stderrHas: "echo"},
		{name: "unknown tool", args: []string{"nope", `{}`}, code: 1, stderrHas: `the server has no tool "nope"; it has: add, big, echo, fail, progress, slow`},
		{name: "not an object", args: []string{"echo", `[1]`}, code: 2, stderrHas: "call echo: the arguments must be a JSON object, not an array"},
		{name: "malformed", args: []string{"echo", `{"message":`}, code: 2, stderrHas: "call echo: the arguments are not valid JSON"},
		{name: "two values", args: []string{"echo", `{} {}`}, code: 2, stderrHas: "have more after the JSON object"},
		{name: "timeout", args: []string{"--timeout", "300ms", "slow", `{"ms":10000}`}, code: 1, stderrHas: "context deadline exceeded (the --timeout of 300ms ran out)"},
		{name: "missing tool", args: nil, code: 2, stderrHas: "call: missing TOOL"},
		{name: "extra argument", args: []string{"echo", "{}", "x"}, code: 2, stderrHas: `call: unexpected argument "x"`},
	}
	for name, server := range sdkServers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					args := append(append([]string{"call"}, tt.args...), server...)
					code, out, errOut := run(t, tt.stdin, args...)
					if code != tt.code {
						t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
					}
					if tt.stdout != "" && out != tt.stdout {
						t.Errorf("stdout = %q, want %q", out, tt.stdout)
					}
					if !strings.Contains(out, tt.stdoutHas) {
						t.Errorf("stdout = %q, want it to contain %q", out, tt.stdoutHas)
					}
					if !strings.Contains(errOut, tt.stderrHas) {
						t.Errorf("stderr = %q, want it to contain %q", errOut, tt.stderrHas)
					}
				})
			}
		})
	}
}

// TestCallEverything runs the README's example against server-everything
// over stdio.
func TestCallEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	argv := testenv.Everything(t, "stdio")
	code, out, errOut := run(t, "", append([]string{"call", "echo", `{"message":"hi"}`, "--"}, argv...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "Echo: hi\n" {
		t.Errorf("stdout = %q", out)
	}
}

func TestLiveUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools"}, "tools: no server given"},
		{[]string{"tools", "extra", "--", "srv"}, `tools: unexpected argument "extra"`},
		{[]string{"call", "echo"}, "call: no server given"},
		{[]string{"call", "--header", "Authorization Bearer abc", "--url", "http://h/", "echo"}, "--header: want 'Name: value', got no colon"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
		if strings.Contains(errOut, "abc") {
			t.Errorf("%q: stderr %q shows a header value", tt.args, errOut)
		}
	}
	code, out, _ := run(t, "", "help", "call")
	if code != 0 || !strings.Contains(out, "Usage: mcpgen call") || !strings.Contains(out, "-bearer-env") || !strings.Contains(out, "-no-validate") {
		t.Errorf("help call: exit %d\n%s", code, out)
	}
}

// TestLiveHTTPAuth puts the go-sdk server behind a proxy that wants a bearer
// token and an API key header, and checks that --bearer-env and --header
// reach it, and that a refusal names the flag but never the secret.
func TestLiveHTTPAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	backend, err := url.Parse(testenv.ServeSDK(t, false))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: backend.Scheme, Host: backend.Host}) },
		FlushInterval: -1,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-token" || r.Header.Get("X-Api-Key") != "k3y" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	endpoint := srv.URL + backend.Path
	t.Setenv("MCPGEN_TEST_TOKEN", "s3cret-token")
	t.Setenv("MCPGEN_TEST_WRONG", "wrong-token")

	code, out, errOut := run(t, "", "call", "--url", endpoint, "--bearer-env", "MCPGEN_TEST_TOKEN", "--header", "X-Api-Key: k3y", "echo", `{"message":"authorized"}`)
	if code != 0 || out != "authorized\n" {
		t.Fatalf("with token and key: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, tt := range []struct {
		args []string
		hint string
	}{
		{[]string{"tools", "--url", endpoint, "--header", "X-Api-Key: k3y"}, "--bearer-env"},
		{[]string{"tools", "--url", endpoint, "--bearer-env", "MCPGEN_TEST_WRONG", "--header", "X-Api-Key: k3y"}, "refused the bearer token from $MCPGEN_TEST_WRONG"},
		{[]string{"call", "--url", endpoint, "--bearer-env", "MCPGEN_TEST_TOKEN", "--header", "X-Api-Key: nope-k3y", "echo"}, "HTTP 401"},
	} {
		args := tt.args
		code, _, errOut := run(t, "", args...)
		if code != 1 || !strings.Contains(errOut, "HTTP 401") || !strings.Contains(errOut, tt.hint) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and a 401 saying %q", args, code, errOut, tt.hint)
		}
		for _, secret := range []string{"s3cret", "wrong-token", "k3y"} {
			if strings.Contains(errOut, secret) {
				t.Errorf("%q: stderr %q shows a secret", args, errOut)
			}
		}
	}
}

// TestLiveEverythingHTTP lists and calls server-everything with --sse and
// with --url on its Streamable HTTP endpoint.
func TestLiveEverythingHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, server := range [][]string{
		{"--sse", testenv.ServeEverything(t, "sse")},
		{"--url", testenv.ServeEverything(t, "streamableHttp")},
	} {
		code, out, errOut := run(t, "", append([]string{"tools"}, server...)...)
		if code != 0 || !strings.HasPrefix(out, "mcp-servers/everything 2.0.0, protocol 2025-11-25,") || !strings.Contains(out, "\necho ") {
			t.Errorf("tools %s: exit %d\nstdout: %s\nstderr: %s", server[0], code, out, errOut)
		}
		code, out, errOut = run(t, "", append([]string{"call", "get-structured-content", `{"location":"Chicago"}`}, server...)...)
		if code != 0 || out != "{\n  \"temperature\": 36,\n  \"conditions\": \"Light rain / drizzle\",\n  \"humidity\": 82\n}\n" {
			t.Errorf("call %s: exit %d\nstdout: %q\nstderr: %s", server[0], code, out, errOut)
		}
	}
}
