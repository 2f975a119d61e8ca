package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// fakeServer is a 2026-07-28 Streamable HTTP server named name. It answers
// server/discover itself and every other request with what respond returns
// for the method (and the tool of a tools/call): a result, or else an error
// object, as JSON text. r is the HTTP request, for servers that echo what
// they receive.
func fakeServer(t *testing.T, name string, respond func(r *http.Request, method, tool string) (result, rpcErr string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if m.Method == "server/discover" {
			info, _ := json.Marshal(map[string]string{"name": name, "version": "1"})
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":%s}}}`, m.ID, info)
			return
		}
		result, rpcErr := respond(r, m.Method, m.Params.Name)
		if result != "" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
			return
		}
		if rpcErr == "" {
			rpcErr = `{"code":-32601,"message":"no such method"}`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, m.ID, rpcErr)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// escapeAll returns the content of a JSON string spelling s with every
// character as a \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// leak returns a description of where text shows secret, decoded: as it
// is, or in a JSON string of text when text is JSON, or in a Go string
// literal or comment when text is Go source; "" when it does not.
func leak(text, secret string) string {
	if strings.Contains(text, secret) {
		return "verbatim"
	}
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		if where := jsonLeak(v, secret, ""); where != "" {
			return "in the JSON at " + where
		}
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("x.go", -1, len(text)), []byte(text), nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return ""
		}
		if tok == token.STRING {
			if u, err := strconv.Unquote(lit); err == nil && strings.Contains(u, secret) {
				return fmt.Sprintf("in the Go string at %s", fset.Position(pos))
			}
		}
	}
}

func jsonLeak(v any, secret, ptr string) string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, secret) {
			return ptr
		}
	case []any:
		for i, x := range v {
			if w := jsonLeak(x, secret, fmt.Sprintf("%s/%d", ptr, i)); w != "" {
				return w
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.Contains(k, secret) {
				return ptr + " (a key)"
			}
			if w := jsonLeak(x, secret, ptr+"/"+k); w != "" {
				return w
			}
		}
	}
	return ""
}

// checkNoLeak fails t when a text of texts shows a secret, decoded.
func checkNoLeak(t *testing.T, texts map[string]string, secrets ...string) {
	t.Helper()
	for what, text := range texts {
		for _, s := range secrets {
			if where := leak(text, s); where != "" {
				t.Errorf("%s shows the secret %q %s:\n%s", what, s, where, text)
			}
		}
	}
}

// generatedCode returns the Go files of dir by name.
func generatedCode(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		t.Fatalf("nothing generated in %s", dir)
	}
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(data)
	}
	return out
}

// TestSecretEchoJSONEscaped captures a server that writes the bearer token
// it receives into its tool's title, description, and a property's
// description, default and enum, every character a \u escape. The snapshot,
// the generated code, the tools table and tools --json show [REDACTED], and
// the capture warns.
func TestSecretEchoJSONEscaped(t *testing.T) {
	const token = "esc-tok-SECRET-31d7"
	t.Setenv("MCPGEN_TEST_ESC_TOKEN", token)
	srv := fakeServer(t, "escaper", func(r *http.Request, method, tool string) (string, string) {
		if method != "tools/list" {
			return "", ""
		}
		echo := `"you sent ` + escapeAll(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) + `"`
		return `{"tools":[{"name":"lookup","title":` + echo + `,"description":` + echo + `,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":` + echo + `,"default":` + echo + `,"enum":[` + echo + `,"other"]}}}}]}`, ""
	})
	dir := t.TempDir()
	flags := []string{"--url", srv.URL, "--bearer-env", "MCPGEN_TEST_ESC_TOKEN"}
	snapPath := filepath.Join(dir, "snap.json")
	code, _, errOut := run(t, "", append([]string{"generate", "--out", filepath.Join(dir, "pkg"), "--write-snapshot", snapPath}, flags...)...)
	if code != 0 {
		t.Fatalf("generate: exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(errOut, "repeats a credential") {
		t.Errorf("no warning about the echoed credential:\n%s", errOut)
	}
	texts := generatedCode(t, filepath.Join(dir, "pkg"))
	snap, _ := os.ReadFile(snapPath)
	texts["snapshot"] = string(snap)
	texts["generate stderr"] = errOut
	code, table, errOut := run(t, "", append([]string{"tools"}, flags...)...)
	if code != 0 {
		t.Fatalf("tools: exit %d, stderr %s", code, errOut)
	}
	texts["tools"] = table
	code, asJSON, errOut := run(t, "", append([]string{"tools", "--json"}, flags...)...)
	if code != 0 {
		t.Fatalf("tools --json: exit %d, stderr %s", code, errOut)
	}
	texts["tools --json"] = asJSON
	checkNoLeak(t, texts, token)
	for _, what := range []string{"snapshot", "tools", "tools --json"} {
		if !strings.Contains(texts[what], "you sent "+redacted) {
			t.Errorf("%s does not show the redacted echo, so the check proves nothing:\n%s", what, texts[what])
		}
	}
}

// TestSecretEchoVerbatim calls a server that repeats the token and the API
// key it receives, as they are, in its tool list, in a tool's text result,
// in an isError result and in an error response, with -v logging the calls:
// tools, tools --json, call, call --json and the log show none of them.
func TestSecretEchoVerbatim(t *testing.T) {
	const token = "verb-tok-SECRET-8c2e"
	const key = "verb-key-SECRET-41aa"
	t.Setenv("MCPGEN_TEST_VERB_TOKEN", token)
	srv := fakeServer(t, "parrot", func(r *http.Request, method, tool string) (string, string) {
		echo := jsonString("you sent " + r.Header.Get("Authorization") + " and " + r.Header.Get("X-Api-Key"))
		switch {
		case method == "tools/list":
			return `{"tools":[{"name":"echo","description":` + echo + `,"inputSchema":{"type":"object"}},{"name":"fail","description":"Fails.","inputSchema":{"type":"object"}},{"name":"refuse","description":"Refuses.","inputSchema":{"type":"object"}}]}`, ""
		case tool == "echo":
			return `{"content":[{"type":"text","text":` + echo + `},{"type":"resource_link","uri":"https://x.test/","name":` + echo + `}],"structuredContent":{"seen":` + echo + `}}`, ""
		case tool == "fail":
			return `{"isError":true,"content":[{"type":"text","text":` + echo + `}]}`, ""
		}
		return "", `{"code":-32000,"message":` + echo + `,"data":{"seen":` + echo + `}}`
	})
	flags := []string{"--url", srv.URL, "--bearer-env", "MCPGEN_TEST_VERB_TOKEN", "--header", "X-Api-Key: " + key}
	texts := map[string]string{}
	for _, args := range [][]string{
		{"tools"}, {"tools", "--json"},
		{"call", "-v", "echo"}, {"call", "--json", "echo"},
		{"call", "-v", "fail"}, {"call", "--json", "fail"},
		{"call", "-v", "refuse"},
	} {
		name := strings.Join(args, " ")
		_, out, errOut := run(t, "", append(args, flags...)...)
		texts[name] = out
		texts[name+" (stderr)"] = errOut
	}
	checkNoLeak(t, texts, token, key)
	for what, want := range map[string]string{
		"tools":                   "you sent Bearer " + redacted,
		"call -v echo":            "you sent Bearer " + redacted + " and " + redacted,
		"call -v fail (stderr)":   `msg="tool call" tool=fail`,
		"call --json echo":        `"seen": "you sent Bearer ` + redacted,
		"call -v refuse (stderr)": "you sent Bearer " + redacted,
	} {
		if !strings.Contains(texts[what], want) {
			t.Errorf("%s does not show %q, so the check proves nothing:\n%s", what, want, texts[what])
		}
	}
}

// TestSecretEchoBasicAuth reaches a server with credentials in the URL,
// which go as Basic authorization, and the server echoes the Authorization
// header and the decoded user:password in its tool list and its results:
// neither the password, nor the pair, nor its base64 shows.
func TestSecretEchoBasicAuth(t *testing.T) {
	const user, password = "alice", "basic-pw-SECRET-6f0b"
	encoded := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	srv := fakeServer(t, "basic", func(r *http.Request, method, tool string) (string, string) {
		u, p, _ := r.BasicAuth()
		echo := jsonString("you sent " + r.Header.Get("Authorization") + ", that is " + u + ":" + p)
		switch method {
		case "tools/list":
			return `{"tools":[{"name":"who","description":` + echo + `,"inputSchema":{"type":"object","properties":{"q":{"type":"string","default":"` + escapeAll(p) + `"}}}}]}`, ""
		case "tools/call":
			return `{"content":[{"type":"text","text":` + echo + `}]}`, ""
		}
		return "", ""
	})
	endpoint := strings.Replace(srv.URL, "http://", "http://"+user+":"+password+"@", 1)
	dir := t.TempDir()
	snapPath := filepath.Join(dir, "snap.json")
	texts := map[string]string{}
	for _, args := range [][]string{
		{"tools"}, {"tools", "--json"}, {"call", "-v", "who"}, {"snapshot", "--out", snapPath},
	} {
		name := strings.Join(args, " ")
		code, out, errOut := run(t, "", append(args, "--url", endpoint)...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", name, code, errOut)
		}
		texts[name] = out
		texts[name+" (stderr)"] = errOut
	}
	snap, _ := os.ReadFile(snapPath)
	texts["snapshot file"] = string(snap)
	checkNoLeak(t, texts, password, encoded, user+":"+password)
	if want := "you sent Basic " + redacted + ", that is " + redacted; !strings.Contains(texts["call -v who"], want) {
		t.Errorf("call output does not show %q, so the check proves nothing:\n%s", want, texts["call -v who"])
	}
}

// TestSecretTooShortGarblesNothing uses a one-byte token: it is too short to
// be told apart from other text, so mcpgen warns that it is not redacted,
// and the error naming staging.example.com is not garbled into
// staging.e[REDACTED]ample.com.
func TestSecretTooShortGarblesNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "staging.example.com is down for maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	t.Setenv("MCPGEN_TEST_SHORT_TOKEN", "x")
	code, _, errOut := run(t, "", "tools", "--url", srv.URL, "--bearer-env", "MCPGEN_TEST_SHORT_TOKEN")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	if strings.Contains(errOut, redacted) || !strings.Contains(errOut, "staging.example.com is down") {
		t.Errorf("the error is garbled or missing:\n%s", errOut)
	}
	if !strings.Contains(errOut, "warning: the bearer token from $MCPGEN_TEST_SHORT_TOKEN is shorter than 8 bytes") {
		t.Errorf("no warning about the short token:\n%s", errOut)
	}
}
