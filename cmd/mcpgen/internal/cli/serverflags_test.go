package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// parseServer parses args with a flag set holding only the server flags.
func parseServer(t *testing.T, args []string) (*serverFlags, []string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := newEnv(strings.NewReader(""), &out, &errOut, false)
	fs := newFlagSet(e, "tools", serverUsage)
	var f serverFlags
	f.register(fs)
	pos, err := f.parse(e, fs, args)
	return &f, pos, err
}

func TestServerFlagsParse(t *testing.T) {
	t.Setenv("MCPGEN_TEST_TOKEN", "s3cret-token")
	t.Setenv("MCPGEN_TEST_EMPTY", "")
	tests := []struct {
		name    string
		args    []string
		pos     []string
		command []string
		url     string
		wantErr string // substring of the usage error; "" for success
	}{
		{name: "url", args: []string{"--url", "http://127.0.0.1:1/mcp"}, url: "http://127.0.0.1:1/mcp"},
		{name: "sse", args: []string{"--sse", "https://ha.local/mcp_server/sse"}},
		{name: "command", args: []string{"--", "server", "-x", "--y"}, command: []string{"server", "-x", "--y"}},
		{name: "positionals around flags", args: []string{"echo", "--timeout", "5s", "{}", "--", "srv"}, pos: []string{"echo", "{}"}, command: []string{"srv"}},
		{name: "flags after -- belong to the server", args: []string{"--", "srv", "--url", "x"}, command: []string{"srv", "--url", "x"}},
		{name: "bearer env", args: []string{"--url", "http://h/mcp", "--bearer-env", "MCPGEN_TEST_TOKEN"}},
		{name: "headers", args: []string{"--url", "http://h/mcp", "--header", "X-A: 1", "--header", "X-B:2"}},
		{name: "pinned version", args: []string{"--protocol-version", "2025-11-25", "--", "srv"}, command: []string{"srv"}},

		{name: "nothing", args: nil, wantErr: "no server given"},
		{name: "empty command", args: []string{"--"}, wantErr: "no server given"},
		{name: "url and command", args: []string{"--url", "http://h/mcp", "--", "srv"}, wantErr: "only one of"},
		{name: "url and sse", args: []string{"--url", "http://h/mcp", "--sse", "http://h/sse"}, wantErr: "only one of"},
		{name: "not http", args: []string{"--url", "ftp://h/mcp"}, wantErr: "--url wants an http:// or https:// URL"},
		{name: "no scheme", args: []string{"--sse", "localhost:8123"}, wantErr: "--sse wants an http://"},
		{name: "header without colon", args: []string{"--url", "http://h/", "--header", "Bearer abc"}, wantErr: "--header: want 'Name: value', got no colon"},
		{name: "header without name", args: []string{"--url", "http://h/", "--header", ": abc"}, wantErr: "no name before the colon"},
		{name: "header bad name", args: []string{"--url", "http://h/", "--header", "X A: abc"}, wantErr: `header name "X A"`},
		{name: "header on command", args: []string{"--header", "X: 1", "--", "srv"}, wantErr: "--header applies to --url and --sse only"},
		{name: "bearer on command", args: []string{"--bearer-env", "MCPGEN_TEST_TOKEN", "--", "srv"}, wantErr: "--bearer-env applies to --url and --sse only"},
		{name: "bearer unset", args: []string{"--url", "http://h/", "--bearer-env", "MCPGEN_TEST_UNSET_VARIABLE"}, wantErr: "--bearer-env MCPGEN_TEST_UNSET_VARIABLE: the variable is unset or empty"},
		{name: "bearer empty", args: []string{"--url", "http://h/", "--bearer-env", "MCPGEN_TEST_EMPTY"}, wantErr: "the variable is unset or empty"},
		{name: "negative timeout", args: []string{"--timeout", "-1s", "--", "srv"}, wantErr: "--timeout must not be negative"},
		{name: "bad timeout", args: []string{"--timeout", "soon", "--", "srv"}, wantErr: "invalid value"},
		{name: "negative probe timeout", args: []string{"--probe-timeout", "-1s", "--", "srv"}, wantErr: "--probe-timeout must not be negative"},
		{name: "unknown version", args: []string{"--protocol-version", "2099-01-01", "--", "srv"}, wantErr: `--protocol-version "2099-01-01" is not one of`},
		{name: "unknown flag", args: []string{"--bogus", "--", "srv"}, wantErr: "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, pos, err := parseServer(t, tt.args)
			if tt.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %q, want it to contain %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "abc") {
					t.Fatalf("err = %q repeats a header value", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pos, "|") != strings.Join(tt.pos, "|") {
				t.Errorf("positional = %q, want %q", pos, tt.pos)
			}
			if strings.Join(f.command, "|") != strings.Join(tt.command, "|") {
				t.Errorf("command = %q, want %q", f.command, tt.command)
			}
			if tt.url != "" && f.url != tt.url {
				t.Errorf("url = %q, want %q", f.url, tt.url)
			}
		})
	}
}

func TestServerFlagsHeaders(t *testing.T) {
	f, _, err := parseServer(t, []string{"--url", "http://h/", "--header", "X-Api-Key:  k1 ", "--header", "x-api-key: k2", "--header", "Accept-Language: en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.headers.header.Values("X-Api-Key"); strings.Join(got, ",") != "k1,k2" {
		t.Errorf("X-Api-Key = %q, want [k1 k2]", got)
	}
	if got := f.headers.header.Get("Accept-Language"); got != "en" {
		t.Errorf("Accept-Language = %q", got)
	}
	if s := f.headers.String(); strings.Contains(s, "k1") {
		t.Errorf("String() = %q shows a value", s)
	}
}

func TestServerFlagsSource(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    serverFlags
		want string
	}{
		{name: "url", f: serverFlags{url: "http://homeassistant.local:8123/api/mcp"}, want: "http://homeassistant.local:8123/api/mcp"},
		{name: "url secrets", f: serverFlags{url: "https://user:pw@h.example/mcp?key=abc&x=1#frag"}, want: "https://user:[REDACTED]@h.example/mcp?key=[REDACTED]&x=[REDACTED]"},
		{name: "url user alone", f: serverFlags{url: "https://ghp_0123456789@h.example/mcp"}, want: "https://[REDACTED]@h.example/mcp"},
		{name: "url bare query word", f: serverFlags{url: "https://h.example/mcp?sk-0123456789&a=&sslmode=require"}, want: "https://h.example/mcp?[REDACTED]&a=&sslmode=require"},
		{name: "sse", f: serverFlags{sse: "http://ha:8123/mcp_server/sse"}, want: "--sse http://ha:8123/mcp_server/sse"},
		{name: "command", f: serverFlags{command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"}}, want: "npx -y @modelcontextprotocol/server-everything"},
		{name: "quoting", f: serverFlags{command: []string{"srv", "a b", "it's", ""}}, want: `srv 'a b' 'it'\''s' ''`},
		{name: "secret flags", f: serverFlags{command: []string{"srv", "--api-key", "abc", "--token=def", "--name", "n", "GITHUB_TOKEN=ghi", "PLAIN=ok"}}, want: "srv --api-key '[REDACTED]' '--token=[REDACTED]' --name n 'GITHUB_TOKEN=[REDACTED]' PLAIN=ok"},
		{name: "url argument", f: serverFlags{command: []string{"proxy", "https://u:p@h/x?sig=1"}}, want: "proxy 'https://u:[REDACTED]@h/x?sig=[REDACTED]'"},
		{name: "url in a flag", f: serverFlags{command: []string{"srv", "--dsn=mysql://root:PASSWORD@localhost:3306/db"}}, want: "srv '--dsn=mysql://root:[REDACTED]@localhost:3306/db'"},
		{name: "url after a flag", f: serverFlags{command: []string{"srv", "--dsn", "postgres://u:PASSWORD@h/db"}}, want: "srv --dsn 'postgres://u:[REDACTED]@h/db'"},
		{name: "url with a secret query", f: serverFlags{command: []string{"srv", "https://user:PASSWORD@example.com/x?api_key=K123"}}, want: "srv 'https://user:[REDACTED]@example.com/x?api_key=[REDACTED]'"},
		{name: "url in a variable", f: serverFlags{command: []string{"env", "DATABASE_URL=postgres://u:PASSWORD@h/db", "srv"}}, want: "env 'DATABASE_URL=postgres://u:[REDACTED]@h/db' srv"},
		{name: "harmless settings", f: serverFlags{command: []string{"srv", "--dsn=postgres://u:PASSWORD@h/db?sslmode=require&application_name=mcp&password=PW2"}}, want: "srv '--dsn=postgres://u:[REDACTED]@h/db?sslmode=require&application_name=mcp&password=[REDACTED]'"},
		{name: "paths", f: serverFlags{command: []string{filepath.Join(wd, "bin", "srv"), "/usr/bin/other"}}, want: "./bin/srv /usr/bin/other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.source(); got != tt.want {
				t.Errorf("source() = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("home", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		f := serverFlags{command: []string{filepath.Join(home, "go", "bin", "srv"), "--db=" + filepath.Join(home, "x.db")}}
		if got, want := f.source(), "~/go/bin/srv --db=~/x.db"; got != want {
			t.Errorf("source() = %q, want %q", got, want)
		}
	})
}

// TestServerFlagsConnect connects through the flags to the go-sdk server
// over stdio, and checks that a failing connection names the source and
// never the token.
func TestServerFlagsConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := testenv.SDKServer(t)
	var stderr bytes.Buffer
	e := newEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	f := &serverFlags{name: "tools"}
	s, err := f.connect(ctx, e, []string{srv})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ServerInfo().Name; got == "" {
		t.Errorf("no server name")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	t.Setenv("MCPGEN_TEST_TOKEN", "s3cret-token")
	f = &serverFlags{name: "tools", url: "http://127.0.0.1:1/mcp", bearerEnv: "MCPGEN_TEST_TOKEN"}
	_, err = f.connect(ctx, e, nil)
	if err == nil {
		t.Fatal("connecting to a closed port succeeded")
	}
	if !strings.HasPrefix(err.Error(), "connecting to http://127.0.0.1:1/mcp: ") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %q", err)
	}
}
