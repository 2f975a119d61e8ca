package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// authorizer returns the Authorizer of an HTTP server's requests: OAuth
// with the stored tokens, or the client credentials grant. A stdio server,
// --bearer-env and an Authorization header need none.
func (f *serverFlags) authorizer(e *env) (runtime.Authorizer, error) {
	if len(f.command) > 0 || f.bearerEnv != "" || hasAuthorization(f.headers.header) {
		return nil, nil
	}
	if f.authz != nil {
		return f.authz, nil
	}
	store := f.store
	if store == nil {
		fs, err := auth.DefaultFileStore()
		if err != nil {
			// No configuration directory: nothing was stored, and
			// nothing can be; the client credentials grant still works.
			store = &auth.MemoryStore{}
		} else {
			store = fs
		}
	}
	o, err := f.auth.oauth(store, f.loginHint())
	if err != nil {
		return nil, err
	}
	o.Redirector = f.redirector
	if f.verbose {
		o.Logger = f.logger(e)
	}
	return o, nil
}

// loginHint is the sentence of an error that finds no usable token. A
// server that wants a fixed token rather than OAuth answers 401 alike, so
// --bearer-env is named too.
func (f *serverFlags) loginHint() string {
	if f.loginCmd != "" {
		return fmt.Sprintf("run %s to sign in, or set bearer_env to send a fixed token", f.loginCmd)
	}
	return fmt.Sprintf("run %s to sign in, or send a fixed token with --bearer-env VAR", f.loginCommand())
}

// loginCommand returns the mcpgen login command line that signs in to the
// server, without secrets.
func (f *serverFlags) loginCommand() string {
	if f.loginCmd != "" {
		return f.loginCmd
	}
	w := []string{"mcpgen", "login"}
	switch {
	case f.url != "":
		w = append(w, "--url", shellQuote(redactURL(f.url)))
	case f.sse != "":
		w = append(w, "--sse", shellQuote(redactURL(f.sse)))
	}
	a := &f.auth
	if a.clientID != "" && !a.machine() {
		w = append(w, "--client-id", shellQuote(a.clientID))
		if a.issuer != "" {
			w = append(w, "--issuer", shellQuote(redactURL(a.issuer)))
		}
	}
	if a.clientMetadataURL != "" {
		w = append(w, "--client-metadata-url", shellQuote(redactURL(a.clientMetadataURL)))
	}
	if a.scopes != "" {
		w = append(w, "--scope", shellQuote(a.scopes))
	}
	if a.allowMissingIssuer {
		w = append(w, "--allow-missing-issuer")
	}
	if a.allowNoPKCE {
		w = append(w, "--allow-unadvertised-pkce")
	}
	if a.redirectPort != 0 {
		w = append(w, "--redirect-port", fmt.Sprint(a.redirectPort))
	}
	return strings.Join(w, " ")
}

// explainAuth adds to an authorization failure what the user can do about
// it with mcpgen's flags.
func explainAuth(err error) error {
	switch {
	case errors.Is(err, auth.ErrNoIssuer):
		return fmt.Errorf("%w; if you trust the server's address, accept it with --allow-missing-issuer (allow_missing_issuer: true in the auth block of mcpgen.yaml)", err)
	case errors.Is(err, auth.ErrPKCEUnadvertised):
		return fmt.Errorf("%w; if you trust the server to support PKCE with S256 all the same (Home Assistant does), accept it with --allow-unadvertised-pkce (allow_unadvertised_pkce: true in the auth block of mcpgen.yaml)", err)
	case errors.Is(err, auth.ErrCredentialIssuer):
		return fmt.Errorf("%w; --issuer (issuer in the auth block of mcpgen.yaml) names the authorization server the client is registered with", err)
	case errors.Is(err, auth.ErrNoClient):
		return fmt.Errorf("%w; give mcpgen's client ID with --client-id, or with --client-metadata-url where the authorization server accepts a client ID metadata document (client_id or client_metadata_url in the auth block of mcpgen.yaml)", err)
	}
	return err
}

// probeBody is the request that asks the server whether it wants
// authorization: an initialize request, which every Streamable HTTP server
// answers or refuses.
const probeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpgen","version":"login"}}}`

// authorize asks the server whether it wants authorization and, when it
// answers 401 (or 403 for more scopes), has authz obtain it, bounded by ctx
// alone. It reports whether authz was asked. Signing in this way rather than
// within the connection's handshake keeps the handshake's own time limits
// away from a person signing in.
func (f *serverFlags) authorize(ctx context.Context, authz runtime.Authorizer) (bool, error) {
	method, u, body := http.MethodPost, f.url, []byte(probeBody)
	if f.sse != "" {
		method, u, body = http.MethodGet, f.sse, nil
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("asking %s for authorization: %w", f.source(), err)
	}
	for k, vs := range f.headers.header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Body = nil
	}
	if err := authz.Authorize(req); err != nil {
		return false, err
	}
	// The transports' redirect rule: a redirect to another host does not
	// carry the Authorization header or the --header values.
	client := &http.Client{CheckRedirect: runtime.RedirectPolicy(f.headers.header)}
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("asking %s for authorization: %s", f.source(), redactErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return false, nil
	}
	if _, err := authz.Refused(ctx, req, resp); err != nil {
		return true, explainAuth(err)
	}
	return true, nil
}

// redactErr returns the message of an HTTP client error with the URL it
// names redacted.
func redactErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprintf("%s %s: %v", ue.Op, redactURL(ue.URL), ue.Err)
	}
	return err.Error()
}
