package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// echoServer is a 2026-07-28 Streamable HTTP server at /mcp that repeats
// the credentials it receives (the Authorization and X-Api-Key headers and
// the URL's query) in its tool list and in the result of its tool echo.
// With oauth set it wants a token from its own client credentials grant
// (client "rec", secret recClientSecret), which it issues fresh each time.
func echoServer(t *testing.T, oauth bool) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	issued := map[string]bool{}
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if oauth {
			mu.Lock()
			ok := issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
			mu.Unlock()
			if !ok {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, srv.URL))
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		echo, _ := json.Marshal("you sent " + r.Header.Get("Authorization") + " and " + r.Header.Get("X-Api-Key") + " to " + r.URL.RawQuery)
		var result string
		switch m.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"echo","version":"1"}}}`
		case "tools/list":
			result = `{"tools":[{"name":"echo","description":` + string(echo) + `,"inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"resultType":"complete","content":[{"type":"text","text":` + string(echo) + `}]}`
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":"%s/mcp","authorization_servers":["%s"]}`, srv.URL, srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":"%s","token_endpoint":"%s/token","token_endpoint_auth_methods_supported":["client_secret_basic"],"grant_types_supported":["client_credentials"]}`, srv.URL, srv.URL)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, sec, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		if id != "rec" || sec != recClientSecret {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_client"}`)
			return
		}
		mu.Lock()
		tok := fmt.Sprintf("oauth-access-%d-9f8e7d6c5b", len(issued))
		issued[tok] = true
		mu.Unlock()
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":600}`, tok)
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const recClientSecret = "rec-client-5ecret-4a3b2c1d"

// checkRecording fails t when the recording at path shows a secret, as it
// is or in the JSON of a message, decoded; it returns the recording.
func checkRecording(t *testing.T, path string, secrets ...string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"the recording": string(data)}
	a := txtar.Parse(data)
	texts["its header"] = string(a.Comment)
	for _, f := range a.Files {
		texts[f.Name] = string(f.Data)
	}
	checkNoLeak(t, texts, secrets...)
	if !strings.Contains(string(data), "[REDACTED]") {
		t.Errorf("the recording shows no [REDACTED] where the server echoed a credential:\n%s", data)
	}
	return string(data)
}

// TestRecordRedactsCredentials records sessions with a server that echoes
// the credentials it receives: a bearer token from the environment, header
// values, a key in the URL's query, the URL's password and an OAuth access
// token obtained during the session. None reaches the recording, which
// still replays.
func TestRecordRedactsCredentials(t *testing.T) {
	plain := echoServer(t, false)
	withOAuth := echoServer(t, true)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("MCPGEN_TEST_SECRET_TOKEN", secretToken)
	t.Setenv("MCPGEN_TEST_CLIENT_SECRET", recClientSecret)
	const password = "pw-SECRET-77aa88bb"
	userURL := strings.Replace(plain.URL, "http://", "http://alice:"+password+"@", 1) + "/mcp"
	for name, tc := range map[string]struct {
		flags   []string
		secrets []string
	}{
		"bearer-env": {[]string{"--url", plain.URL + "/mcp?api_key=" + secretQuery, "--bearer-env", "MCPGEN_TEST_SECRET_TOKEN", "--header", "X-Api-Key: " + secretKey}, []string{secretToken, secretKey, secretQuery}},
		"header":     {[]string{"--url", plain.URL + "/mcp", "--header", "Authorization: Bearer " + secretHeader, "--header", "X-Api-Key: " + secretKey + `"q\`}, []string{secretHeader, secretKey}},
		"userinfo":   {[]string{"--url", userURL}, []string{password}},
		"oauth":      {[]string{"--url", withOAuth.URL + "/mcp", "--client-id", "rec", "--issuer", withOAuth.URL, "--client-secret-env", "MCPGEN_TEST_CLIENT_SECRET"}, []string{recClientSecret, "oauth-access-0-9f8e7d6c5b", "oauth-access-1-9f8e7d6c5b"}},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rec.txtar")
			args := append([]string{"record", "--out", out, "--call", "echo"}, tc.flags...)
			code, stdout, stderr := run(t, "", args...)
			if code != 0 {
				t.Fatalf("record: exit %d, stderr %s", code, stderr)
			}
			checkNoLeak(t, map[string]string{"stdout": stdout, "stderr": stderr}, tc.secrets...)
			text := checkRecording(t, out, tc.secrets...)
			if !strings.Contains(text, "-client-request-tools.call.json --") || !strings.Contains(text, "you sent ") {
				t.Errorf("the recording misses the call or its echo:\n%s", text)
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
			res, err := s.CallTool(ctx, "echo", map[string]any{})
			if err != nil || !strings.Contains(res.Text(), "[REDACTED]") {
				t.Errorf("replayed echo = %q, %v", res.Text(), err)
			}
		})
	}
}

// TestRecordEverythingStdio records a session with server-everything over
// stdio with every kind of action, with values in the server's environment
// (given with --env, inherited under a secret-looking name, and set on the
// command line with env) that its get-env tool echoes: the recording holds
// the listings the server offers and the actions in order, and none of the
// values.
func TestRecordEverythingStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	const (
		given     = "given-value-1f2e3d4c"
		inherited = "inherited-6b5a4c3d2e"
		cmdline   = "cmdline-9a8b7c6d5e"
	)
	t.Setenv("MCPGEN_TEST_API_TOKEN", inherited)
	argv := testenv.Everything(t, "stdio")
	out := filepath.Join(t.TempDir(), "everything.txtar")
	args := []string{"record", "--out", out,
		"--env", "MCPGEN_REC_PLAIN=" + given,
		"--call", "get-env",
		"--read", "demo://resource/static/document/architecture.md",
		"--prompt", `args-prompt={"city":"Paris"}`,
		"--call", `echo={"message":"last"}`,
		"--", "env", "API_KEY=" + cmdline}
	code, _, stderr := run(t, "", append(args, argv...)...)
	if code != 0 {
		t.Fatalf("record: exit %d, stderr %s", code, stderr)
	}
	text := checkRecording(t, out, given, inherited, cmdline)
	if !strings.Contains(text, "MCPGEN_REC_PLAIN") {
		t.Errorf("get-env's result does not show the variables:\n%s", text)
	}
	var order []string
	for _, f := range txtar.Parse([]byte(text)).Files {
		if strings.Contains(f.Name, "-client-request-") {
			order = append(order, strings.SplitN(f.Name, "-client-request-", 2)[1])
		}
	}
	// server-everything says its tools changed while the first listing
	// runs, so the first call, which must know whether its tool runs as a
	// task, lists them again.
	want := "server.discover.json initialize.json tools.list.json prompts.list.json resources.list.json resources.templates.list.json tools.list.json tools.call.json resources.read.json prompts.get.json tools.call.json"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("requests\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(text, "server: env 'API_KEY=[REDACTED]' ") {
		t.Errorf("the header does not name the server without its secret:\n%s", strings.SplitN(text, "-- ", 2)[0])
	}
}

// TestRecordUsage checks the mistakes record reports before it connects.
func TestRecordUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--env", "A=b", "--url", "http://127.0.0.1:1/mcp"}, "--env applies to a server command only"},
		{[]string{"record", "--env", "=b", "--", "server"}, "--env wants KEY=VALUE"},
		{[]string{"record", "--call", "echo={", "--", "server"}, "--call echo: the arguments are not valid JSON"},
		{[]string{"record", "--call", "echo=[1]", "--", "server"}, "must be a JSON object, not an array"},
		{[]string{"record", "--prompt", "={}", "--", "server"}, "--prompt wants a name"},
		{[]string{"record", "extra", "--", "server"}, `unexpected argument "extra"`},
		{[]string{"record"}, "no server given"},
	} {
		code, _, stderr := run(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRecordKeepsFailedRequests: an action the server answers with an
// error is recorded and reported, and the recording is written.
func TestRecordKeepsFailedRequests(t *testing.T) {
	srv := echoServer(t, false)
	out := filepath.Join(t.TempDir(), "failed.txtar")
	code, _, stderr := run(t, "", "record", "--out", out, "--prompt", "greeting", "--call", "echo", "--url", srv.URL+"/mcp")
	if code != 0 || !strings.Contains(stderr, "prompts/get greeting: ") || !strings.Contains(stderr, "1 request(s) failed; their errors are recorded") {
		t.Fatalf("record: exit %d, stderr %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range txtar.Parse(data).Files {
		names = append(names, f.Name[5:])
	}
	want := "client-request-server.discover.json server-response-server.discover.json client-request-tools.list.json server-response-tools.list.json client-request-prompts.get.json server-response-prompts.get.json client-request-tools.call.json server-response-tools.call.json"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("files\n%s\nwant\n%s", got, want)
	}
}

// TestRecordWarnsShortEnv: a value of --env too short to be redacted, which
// the recording may then hold, is warned about, by its variable's name.
func TestRecordWarnsShortEnv(t *testing.T) {
	const short = "k3y-9z"
	out := filepath.Join(t.TempDir(), "none.txtar")
	_, _, stderr := run(t, "", "record", "--out", out, "--env", "MY_API_KEY="+short, "--env", "MCPGEN_REC_LONG=long-enough-value", "--", filepath.Join(t.TempDir(), "no-such-server"))
	if !strings.Contains(stderr, "warning: the value of --env MY_API_KEY is shorter than 8 bytes") {
		t.Errorf("no warning about the short --env value; stderr:\n%s", stderr)
	}
	if strings.Contains(stderr, "MCPGEN_REC_LONG is shorter") || strings.Contains(stderr, short) {
		t.Errorf("stderr warns about a long value or shows the short one:\n%s", stderr)
	}
}
