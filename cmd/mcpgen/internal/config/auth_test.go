package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseAuth(t *testing.T) {
	const text = `servers:
  ci:
    snapshot: ci.json
    url: https://tickets.example.com/mcp
    auth:
      client_id: mcpgen-ci
      client_key: keys/ci.pem
      issuer: https://login.example.com
      scopes: [tickets:read, "tickets:write extra"]
  home:
    snapshot: home.json
    url: http://homeassistant.local:8123/api/mcp
    auth:
      client_metadata_url: http://127.0.0.1:8976/
      redirect_port: 8976
      allow_missing_issuer: true
      allow_unadvertised_pkce: true
      scopes: "a b"
`
	f, err := Parse(filepath.Join("repo", "mcpgen.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := &Auth{ClientID: "mcpgen-ci", ClientKey: filepath.Join("repo", "keys", "ci.pem"), Issuer: "https://login.example.com", Scopes: []string{"tickets:read", "tickets:write", "extra"}}
	if got := f.Servers[0].Auth; !reflect.DeepEqual(got, want) {
		t.Errorf("ci auth = %+v, want %+v", got, want)
	}
	want = &Auth{ClientMetadataURL: "http://127.0.0.1:8976/", RedirectPort: 8976, AllowMissingIssuer: true, AllowUnadvertisedPKCE: true, Scopes: []string{"a", "b"}}
	if got := f.Servers[1].Auth; !reflect.DeepEqual(got, want) {
		t.Errorf("home auth = %+v, want %+v", got, want)
	}
}

func TestParseAuthErrors(t *testing.T) {
	for _, tt := range []struct{ entry, want string }{
		{"url: https://x/mcp\n    auth: yes", "mcpgen.yaml:5: server s: auth must be a mapping"},
		{"url: https://x/mcp\n    auth: {client_secret: x}", `unknown key "client_secret"`},
		{"url: https://x/mcp\n    auth: {client_secret_env: X}", "client_secret_env and client_key need client_id"},
		{"url: https://x/mcp\n    auth: {client_id: a, client_secret_env: X, client_key: k}", "not both"},
		{"url: https://x/mcp\n    auth: {client_id: a, client_secret_env: X}", "need issuer"},
		{"url: https://x/mcp\n    auth: {allow_unadvertised_pkce: 1}", "allow_unadvertised_pkce must be true or false"},
		{"url: https://x/mcp\n    auth: {allow_missing_issuer: \"yes\"}", "allow_missing_issuer must be true or false"},
		{"url: https://x/mcp\n    auth: {redirect_port: 70000}", "redirect_port must be a TCP port number"},
		{"command: [srv]\n    auth: {client_id: a}", "auth applies to url and sse servers"},
		{"url: https://x/mcp\n    bearer_env: T\n    auth: {client_id: a}", "give auth or bearer_env"},
		{"url: https://x/mcp\n    headers: {authorization: x}\n    auth: {client_id: a}", "give auth or an Authorization header"},
	} {
		text := "servers:\n  s:\n    snapshot: s.json\n    " + tt.entry + "\n"
		_, err := Parse("mcpgen.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.entry, err, tt.want)
		}
	}
}
