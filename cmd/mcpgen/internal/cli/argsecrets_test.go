package cli

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestCommandArgumentSecrets gives a stdio server passwords in URLs among
// its arguments: inside --flag=VALUE, as a bare argument with a secret
// query parameter, and as the value of a KEY=VALUE argument. The snapshot's
// source keeps none of them, and keeps a harmless sslmode; a server that
// fails and echoes its argument gets no password into the error either.
func TestCommandArgumentSecrets(t *testing.T) {
	const (
		pw1 = "PASSWORD-one-77a1"
		pw2 = "PASSWORD-two-88b2"
		pw3 = "PASSWORD-three-99c3"
		key = "KEY-SECRET-5d6e7f"
	)
	args := []string{
		"--dsn=mysql://root:" + pw1 + "@localhost:3306/db?sslmode=require",
		"https://user:" + pw2 + "@example.com/x?api_key=" + key,
		"DATABASE_URL=postgres://u:" + pw3 + "@h/db",
	}
	secrets := []string{pw1, pw2, pw3, key}
	t.Run("snapshot", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts a server")
		}
		cmd := append([]string{"snapshot", "--", "sh", "-c", `exec "$MCPGEN_TEST_SERVER"`, "sh"}, args...)
		t.Setenv("MCPGEN_TEST_SERVER", testenv.SDKServer(t))
		code, out, stderr := runCLI(t, cmd...)
		if code != 0 {
			t.Fatalf("snapshot: exit %d: %s", code, stderr)
		}
		snap, err := snapshot.Read("stdout", []byte(out))
		if err != nil {
			t.Fatal(err)
		}
		want := `sh -c 'exec "$MCPGEN_TEST_SERVER"' sh '--dsn=mysql://root:[REDACTED]@localhost:3306/db?sslmode=require' 'https://user:[REDACTED]@example.com/x?api_key=[REDACTED]' 'DATABASE_URL=postgres://u:[REDACTED]@h/db'`
		if snap.Source != want {
			t.Errorf("source = %s\nwant     %s", snap.Source, want)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) || strings.Contains(stderr, s) {
				t.Errorf("the output holds %s", s)
			}
		}
	})
	t.Run("error", func(t *testing.T) {
		// The server writes its arguments to standard error and exits,
		// as one that cannot reach its database would.
		cmd := append([]string{"tools", "--", "sh", "-c", `echo "cannot connect: $*" >&2; exit 3`, "sh"}, args...)
		code, _, stderr := runCLI(t, cmd...)
		if code != 1 || !strings.Contains(stderr, "exit status 3") || !strings.Contains(stderr, "cannot connect") {
			t.Fatalf("tools: exit %d, stderr %q", code, stderr)
		}
		for _, s := range secrets {
			if strings.Contains(stderr, s) {
				t.Errorf("the error holds %s:\n%s", s, stderr)
			}
		}
		code, _, stderr = runCLI(t, "tools", "--", "false", "--dsn=postgres://u:"+pw1+"@h/db")
		if code != 1 || strings.Contains(stderr, pw1) || !strings.Contains(stderr, "--dsn=postgres://u:[REDACTED]@h/db") {
			t.Errorf("tools -- false: exit %d, stderr %q", code, stderr)
		}
	})
}
