//go:build unix

package cli

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptStopsConfigCommands interrupts snapshot --config and check
// --config while the first of three servers, which never answer, is
// connecting: the command stops there, and the other two servers are never
// started. Each server's turn had an interrupt context of its own, so that
// Ctrl-C stopped only the server at work and the command went on to the
// next, waiting out its --timeout (and between two turns, with no handler
// installed, an interrupt killed mcpgen without a word).
func TestInterruptStopsConfigCommands(t *testing.T) {
	// An interrupt that finds no handler of mcpgen's must not kill the
	// test binary.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	for _, cmd := range []string{"snapshot", "check"} {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			text := "servers:\n"
			for _, name := range []string{"a", "b", "c"} {
				if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte("[]\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				// The server says it started, then never answers.
				text += "  " + name + ":\n" +
					"    snapshot: " + name + ".json\n" +
					"    command: [sh, -c, 'echo > " + filepath.Join(dir, name+".started") + "; exec sleep 600']\n"
			}
			cfg := filepath.Join(dir, "mcpgen.yaml")
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := runCLI(t, cmd, "--config", cfg, "--timeout", "20s")
				done <- result{code, stderr}
			}()
			started := filepath.Join(dir, "a.started")
			for {
				if _, err := os.Stat(started); err == nil {
					break
				}
				select {
				case r := <-done:
					t.Fatalf("the command ended before server a started: exit %d, stderr %q", r.code, r.stderr)
				case <-time.After(10 * time.Millisecond):
				}
			}
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.code == 0 || !strings.Contains(r.stderr, "server a: connecting to sh -c") || !strings.Contains(r.stderr, "(interrupted)") {
				t.Errorf("exit %d, stderr %q; want server a's connection interrupted", r.code, r.stderr)
			}
			for _, name := range []string{"b", "c"} {
				if _, err := os.Stat(filepath.Join(dir, name+".started")); err == nil {
					t.Errorf("server %s was started after the interrupt; stderr %q", name, r.stderr)
				}
			}
		})
	}
}

// TestInterruptExitStatus interrupts a command connecting to a server that
// never answers, alone and as one server of a config file: mcpgen exits
// 130, as a shell reports a command ended by Ctrl-C (128 + SIGINT), not 1
// as for a command that failed, nor 2 as for a usage error.
func TestInterruptExitStatus(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	for _, tc := range []struct {
		name string
		args func(dir, server string) []string
	}{
		{"tools", func(dir, server string) []string {
			return []string{"tools", "--timeout", "2m", "--", "sh", "-c", server}
		}},
		{"check", func(dir, server string) []string {
			snap := filepath.Join(dir, "a.json")
			if err := os.WriteFile(snap, []byte("[]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"check", "--snapshot", snap, "--timeout", "2m", "--", "sh", "-c", server}
		}},
		{"snapshot --config", func(dir, server string) []string {
			cfg := filepath.Join(dir, "mcpgen.yaml")
			text := "servers:\n  a:\n    snapshot: a.json\n    command: [sh, -c, '" + server + "']\n"
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"snapshot", "--config", cfg, "--timeout", "2m"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			started := filepath.Join(dir, "started")
			// The server says it started, then never answers.
			args := tc.args(dir, "echo > "+started+"; exec sleep 600")
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := runCLI(t, args...)
				done <- result{code, stderr}
			}()
			for {
				if _, err := os.Stat(started); err == nil {
					break
				}
				select {
				case r := <-done:
					t.Fatalf("the command ended before the server started: exit %d, stderr %q", r.code, r.stderr)
				case <-time.After(10 * time.Millisecond):
				}
			}
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.code != 130 || !strings.Contains(r.stderr, "(interrupted)") {
				t.Errorf("exit %d, stderr %q; want exit 130 and the connection interrupted", r.code, r.stderr)
			}
		})
	}
}
