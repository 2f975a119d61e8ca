package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Secrets of TestSecretsStayOutOfCaptures: a bearer token from the
// environment, an Authorization header, an API key header and a key in the
// URL's query.
const (
	secretToken  = "tok-SECRET-8d1e5a77"
	secretHeader = "hdr-SECRET-2c4b9f10"
	secretKey    = "key-SECRET-5e6f7a88"
	secretQuery  = "qry-SECRET-0a1b2c3d"
)

// authServer is a 2026-07-28 Streamable HTTP server that wants either the
// bearer token or the Authorization header, and the API key. Its tool
// descriptions are ordinary; the headers it receives are kept.
func authServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if (auth != "Bearer "+secretToken && auth != "Bearer "+secretHeader) || r.Header.Get("X-Api-Key") != secretKey {
			http.Error(w, "refused: "+auth+" "+r.Header.Get("X-Api-Key"), http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch m.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"auth","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"lookup","description":"Looks a thing up.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"What to look up."}},"required":["q"]}}]}`
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSecretsStayOutOfCaptures captures a server that wants credentials,
// given with --bearer-env and with --header 'Authorization: ...', with -v
// traffic logging on, then generates a package from each snapshot and
// directly from the server. No secret may appear in the snapshot (its source
// header included), the generated code, the log or any error.
func TestSecretsStayOutOfCaptures(t *testing.T) {
	srv := authServer(t)
	t.Setenv("MCPGEN_TEST_SECRET_TOKEN", secretToken)
	endpoint := srv.URL + "/mcp?key=" + secretQuery
	dir := t.TempDir()
	secrets := []string{secretToken, secretHeader, secretKey, secretQuery}
	check := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %s:\n%s", what, s, text)
			}
		}
	}
	creds := map[string][]string{
		"bearer-env": {"--bearer-env", "MCPGEN_TEST_SECRET_TOKEN", "--header", "X-Api-Key: " + secretKey},
		"header":     {"--header", "Authorization: Bearer " + secretHeader, "--header", "X-Api-Key: " + secretKey},
	}
	for name, flags := range creds {
		snapPath := filepath.Join(dir, name+".json")
		args := append([]string{"snapshot", "-v", "--url", endpoint, "--out", snapPath}, flags...)
		code, out, errOut := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: snapshot: exit %d, stderr %s", name, code, errOut)
		}
		check(name+" snapshot output", out)
		check(name+" snapshot log", errOut)
		if !strings.Contains(errOut, "mcp send") {
			t.Errorf("%s: -v logged no traffic, so the log check proves nothing:\n%s", name, errOut)
		}
		data, err := os.ReadFile(snapPath)
		if err != nil {
			t.Fatal(err)
		}
		check(name+" snapshot", string(data))
		if !strings.Contains(string(data), `"source"`) || !strings.Contains(string(data), "lookup") {
			t.Errorf("%s: the snapshot has no source header or no tool:\n%s", name, data)
		}

		outDir := filepath.Join(dir, name)
		code, _, errOut = run(t, "", "generate", "--snapshot", snapPath, "--out", outDir, "--package", "authsrv")
		if code != 0 {
			t.Fatalf("%s: generate: exit %d, stderr %s", name, code, errOut)
		}
		// Generating straight from the server, saving its snapshot too.
		liveDir := filepath.Join(dir, name+"-live")
		args = append([]string{"generate", "-v", "--url", endpoint, "--out", liveDir, "--package", "authsrv", "--write-snapshot", filepath.Join(dir, name+"-live.json")}, flags...)
		code, _, errOut = run(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: live generate: exit %d, stderr %s", name, code, errOut)
		}
		check(name+" live generate log", errOut)
		for _, d := range []string{outDir, liveDir} {
			files, _ := filepath.Glob(filepath.Join(d, "*.go"))
			if len(files) == 0 {
				t.Fatalf("%s: nothing generated in %s", name, d)
			}
			for _, f := range files {
				code, _ := os.ReadFile(f)
				check(f, string(code))
			}
		}
		live, _ := os.ReadFile(filepath.Join(dir, name+"-live.json"))
		check(name+" live snapshot", string(live))

		// A refusal echoes the credentials it got back in its body: the
		// error shows none of them.
		bad := append([]string{"tools", "--url", endpoint}, flags[:len(flags)-1]...)
		bad = append(bad, "X-Api-Key: wrong-"+secretKey)
		code, _, errOut = run(t, "", bad...)
		if code == 0 || !strings.Contains(errOut, "401") {
			t.Errorf("%s: with a wrong key: exit %d, stderr %s; want a 401", name, code, errOut)
		}
		check(name+" refusal", errOut)
	}
}

// TestEchoedCredentialsNotCaptured captures a server that writes the
// Authorization header and the API key it receives into its tool
// descriptions and schema: the snapshot, the generated code and the -v log
// get [REDACTED] instead, and the capture warns about it.
func TestEchoedCredentialsNotCaptured(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		echo, _ := json.Marshal("you sent " + r.Header.Get("Authorization") + " and " + r.Header.Get("X-Api-Key") + " \"quoted\"")
		var result string
		switch m.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"lookup","description":` + string(echo) + `,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":` + string(echo) + `,"enum":[` + string(echo) + `]}}}}]}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	defer srv.Close()
	t.Setenv("MCPGEN_TEST_SECRET_TOKEN", secretToken)
	dir := t.TempDir()
	for name, flags := range map[string][]string{
		"bearer-env": {"--bearer-env", "MCPGEN_TEST_SECRET_TOKEN", "--header", "X-Api-Key: " + secretKey},
		"header":     {"--header", "Authorization: Bearer " + secretHeader, "--header", "X-Api-Key: " + secretKey + `"q\`},
	} {
		snapPath := filepath.Join(dir, name+".json")
		outDir := filepath.Join(dir, name)
		args := append([]string{"generate", "-v", "--url", srv.URL, "--out", outDir, "--package", "echo", "--write-snapshot", snapPath}, flags...)
		code, _, errOut := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", name, code, errOut)
		}
		if !strings.Contains(errOut, "repeats a credential") {
			t.Errorf("%s: no warning about the echoed credential:\n%s", name, errOut)
		}
		texts := map[string]string{"log": errOut}
		data, _ := os.ReadFile(snapPath)
		texts["snapshot"] = string(data)
		files, _ := filepath.Glob(filepath.Join(outDir, "*.go"))
		for _, f := range files {
			code, _ := os.ReadFile(f)
			texts[f] = string(code)
		}
		if !strings.Contains(texts["snapshot"], "you sent ") || !strings.Contains(texts["snapshot"], "[REDACTED] and [REDACTED]") {
			t.Errorf("%s: the snapshot does not show the redacted echo:\n%s", name, data)
		}
		for what, text := range texts {
			for _, s := range []string{secretToken, secretHeader, secretKey} {
				if strings.Contains(text, s) {
					t.Errorf("%s: %s shows the secret %s", name, what, s)
				}
			}
		}
	}
}
