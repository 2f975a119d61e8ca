package auth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// secretRecorder is a RoundTripper that notes every secret of the token
// requests and answers it carries: codes, PKCE verifiers, client secrets,
// access and refresh tokens.
type secretRecorder struct {
	mu      sync.Mutex
	secrets map[string]string // value → what it is
}

func (r *secretRecorder) note(what, v string) {
	if v == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = map[string]string{}
	}
	r.secrets[v] = what
}

func (r *secretRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(b))
		if form, err := url.ParseQuery(string(b)); err == nil {
			for _, k := range []string{"code", "code_verifier", "refresh_token", "client_secret"} {
				r.note(k, form.Get(k))
			}
		}
	}
	if _, secret, ok := req.BasicAuth(); ok {
		r.note("client_secret", secret)
		r.note("basic credentials", strings.TrimPrefix(req.Header.Get("Authorization"), "Basic "))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		IDToken      string `json:"id_token"`
	}
	if json.Unmarshal(b, &tok) == nil {
		r.note("access_token", tok.AccessToken)
		r.note("refresh_token", tok.RefreshToken)
		r.note("id_token", tok.IDToken)
	}
	return resp, nil
}

// TestNoSecretsLeak signs in to a server whose authorization server is
// oidc-provider, refreshes, and then fails to sign in again, with every
// logger at debug level and the traffic logged. No code, PKCE verifier,
// client secret, access or refresh token may appear in a log record, in an
// error message, or in a file other than the token store's.
func TestNoSecretsLeak(t *testing.T) {
	rs, p := oidcSetup(t)
	root := t.TempDir()
	for _, v := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		dir := filepath.Join(root, strings.ToLower(v))
		os.MkdirAll(dir, 0o700)
		t.Setenv(v, dir)
	}
	storeDir := filepath.Join(root, "store")
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&logs, &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := &secretRecorder{}
	o := &OAuth{
		Client:       &Client{ID: "mcpgen", Secret: oidcSecret},
		ClientIssuer: p.issuer,
		Redirector:   &Loopback{Open: approveWithCookies, Timeout: 2 * time.Minute},
		Store:        &FileStore{Dir: storeDir},
		HTTPClient:   &http.Client{Transport: rec},
		Logger:       logger,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := runtime.Connect(ctx, runtime.StreamableHTTP(rs.url(), &runtime.HTTPOptions{Authorizer: o, Logger: logger}), &runtime.Options{Logger: logger, LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	callEcho(t, s)
	waitExpired(t, rs, lastToken(rs))
	callEcho(t, s)

	// The authorization server goes away: the refresh and the new sign-in
	// fail, and the error is reported.
	p.cmd.Process.Kill()
	waitExpired(t, rs, lastToken(rs))
	_, callErr := s.CallTool(ctx, "echo", nil)
	if callErr == nil {
		t.Fatal("the call succeeded without an authorization server")
	}

	rec.mu.Lock()
	secrets := rec.secrets
	rec.mu.Unlock()
	kinds := map[string]bool{}
	for _, what := range secrets {
		kinds[what] = true
	}
	for _, want := range []string{"code", "code_verifier", "client_secret", "access_token", "refresh_token"} {
		if !kinds[want] {
			t.Errorf("no %s seen: the test proves nothing about it", want)
		}
	}
	logMu.Lock()
	logText := logs.String()
	logMu.Unlock()
	if !strings.Contains(logText, "signed in") || !strings.Contains(logText, "mcp send") {
		t.Errorf("the sign-in and the traffic are not logged: the test proves nothing\n%s", logText)
	}
	var files []string
	storeHolds := false
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for v := range secrets {
			if strings.Contains(string(b), v) {
				if strings.HasPrefix(path, storeDir+string(filepath.Separator)) {
					storeHolds = true
				} else {
					files = append(files, path)
				}
			}
		}
		return nil
	})
	if !storeHolds {
		t.Error("the token store holds none of the secrets: the file check proves nothing")
	}
	for v, what := range secrets {
		for _, e := range []struct{ where, text string }{
			{"the logs", logText},
			{"the error", callErr.Error()},
			{"the error (base64)", base64.StdEncoding.EncodeToString([]byte(callErr.Error()))},
		} {
			if strings.Contains(e.text, v) {
				t.Errorf("a %s shows in %s", what, e.where)
			}
		}
	}
	if len(files) > 0 {
		t.Errorf("secrets written outside the token store: %q", files)
	}
	t.Logf("%d secrets checked; the final error: %v", len(secrets), callErr)
}

// lockedWriter serializes the writes of concurrent log records.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
