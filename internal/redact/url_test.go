package redact

import (
	"slices"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct {
		in, shown string
		secrets   []string
	}{
		{"https://h.example/mcp", "https://h.example/mcp", nil},
		{"mysql://root:PASSWORD@localhost:3306/db", "mysql://root:[REDACTED]@localhost:3306/db", []string{"PASSWORD"}},
		{"https://ghp_token123@github.com/x", "https://[REDACTED]@github.com/x", []string{"ghp_token123"}},
		{"https://user:p%40ss@h/x?api_key=K%2B1&sslmode=require&SSLMode=verify-full&x=1&empty=&#frag", "https://user:[REDACTED]@h/x?api_key=[REDACTED]&sslmode=require&SSLMode=verify-full&x=[REDACTED]&empty=&", []string{"p@ss", "K+1", "1"}},
		{"https://h/x?sk-bare-word&timeout=5", "https://h/x?[REDACTED]&timeout=5", []string{"sk-bare-word"}},
		{"https://u%20name:pw@h/", "https://u%20name:[REDACTED]@h/", []string{"pw"}},
	} {
		shown, secrets, ok := URL(tc.in)
		if !ok || shown != tc.shown || !slices.Equal(secrets, tc.secrets) {
			t.Errorf("URL(%q) = %q, %q, %v; want %q, %q", tc.in, shown, secrets, ok, tc.shown, tc.secrets)
		}
	}
	if _, _, ok := URL("https://h:port/"); ok {
		t.Error("a malformed URL parsed")
	}
}
