package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// runCLI runs mcpgen in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// writeSnapshot writes a canonical-shaped snapshot of server with tools
// (JSON tool objects) and returns its path.
func writeSnapshot(t *testing.T, dir, file, server, tools string) string {
	t.Helper()
	path := filepath.Join(dir, file)
	data := `{"server":{"name":"` + server + `","version":"1"},"protocolVersion":"2025-06-18","source":"test","tools":[` + tools + `]}` + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	toolA     = `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`
	toolAWarn = `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string","maxLength":8}}}}`
	toolB     = `{"name":"b","inputSchema":{"type":"object"}}`
)

// TestDiffExitStatus runs diff on the Home Assistant pair in each format:
// the pair has changes at ERR, so diff fails. The golden case
// testdata/golden/homeassistant pins its output.
func TestDiffExitStatus(t *testing.T) {
	t.Chdir(testenv.RepoRoot())
	for _, args := range [][]string{nil, {"--format", "json"}, {"--format=markdown"}} {
		args := append(append([]string{"diff"}, args...), "testdata/homeassistant-tools-list.json", "testdata/golden/homeassistant/new.json")
		code, stdout, stderr := runCLI(t, args...)
		if code != 1 {
			t.Errorf("%v: exit status %d, want 1 (the pair has ERR changes); stderr: %s", args, code, stderr)
		}
		if !strings.Contains(stderr, "3 change(s) at ERR or above") {
			t.Errorf("%v: stderr = %q", args, stderr)
		}
		if stdout == "" {
			t.Errorf("%v: no report on standard output", args)
		}
	}
}

func TestDiffFailOn(t *testing.T) {
	dir := t.TempDir()
	base := writeSnapshot(t, dir, "base.json", "srv", toolA)
	same := writeSnapshot(t, dir, "same.json", "srv", toolA)
	warn := writeSnapshot(t, dir, "warn.json", "srv", toolAWarn)
	added := writeSnapshot(t, dir, "added.json", "srv", toolA+","+toolB)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{base, same}, 0},
		{[]string{base, warn}, 0},
		{[]string{"--fail-on", "WARN", base, warn}, 1},
		{[]string{base, warn, "--fail-on=warn"}, 1},
		{[]string{base, added}, 0},
		{[]string{"--fail-on", "INFO", base, added}, 1},
		{[]string{"--fail-on", "WARN", base, added}, 0},
		{[]string{added, base}, 1}, // a removed tool is ERR
	} {
		code, stdout, stderr := runCLI(t, append([]string{"diff"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("diff %v: exit status %d, want %d\n%s%s", tc.args, code, tc.code, stdout, stderr)
		}
	}

	code, stdout, _ := runCLI(t, "diff", base, same)
	if code != 0 || !strings.Contains(stdout, "No changes.") {
		t.Errorf("identical snapshots: status %d, output %q", code, stdout)
	}
	code, stdout, _ = runCLI(t, "diff", "--format", "json", base, warn)
	var report struct {
		Summary map[string]int `json:"summary"`
		Changes []struct {
			Tool, Pointer, Severity, Rule string
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("json report: %v\n%s", err, stdout)
	}
	if code != 0 || len(report.Changes) != 1 || report.Changes[0].Rule != "limit-added" ||
		report.Changes[0].Pointer != "/properties/x/maxLength" || report.Summary["WARN"] != 1 {
		t.Errorf("json report: status %d, %+v", code, report)
	}
}

func TestDiffStdin(t *testing.T) {
	dir := t.TempDir()
	base := writeSnapshot(t, dir, "base.json", "srv", toolA)
	// A bare array of tools, as mcpgen tools --json prints it.
	var out, errb bytes.Buffer
	code := Main([]string{"diff", base, "-"}, strings.NewReader("["+toolA+","+toolB+"]"), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "mcpgen diff "+base+" → -") || !strings.Contains(out.String(), "tool b added") {
		t.Errorf("diff with standard input: status %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = Main([]string{"diff", "-", base}, strings.NewReader("{"), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "standard input:1:2: malformed JSON") {
		t.Errorf("broken standard input: status %d, stderr %q", code, errb.String())
	}
	code, _, stderr := runCLI(t, "diff", "-", "-")
	if code != 2 || !strings.Contains(stderr, "only one of OLD and NEW can be standard input") {
		t.Errorf("diff - -: status %d, stderr %q", code, stderr)
	}
}

func TestDiffUsage(t *testing.T) {
	dir := t.TempDir()
	base := writeSnapshot(t, dir, "base.json", "srv", toolA)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "diff takes two snapshots"},
		{[]string{base}, "got 1 argument"},
		{[]string{base, base, base}, "got 3 argument"},
		{[]string{"--format", "xml", base, base}, `format "xml" is not one of text, json, markdown`},
		{[]string{"--fail-on", "FATAL", base, base}, `severity "FATAL" is not one of ERR, WARN, INFO`},
		{[]string{"--colour", base, base}, "flag provided but not defined"},
	} {
		code, _, stderr := runCLI(t, append([]string{"diff"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("diff %v: status %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, stdout, _ := runCLI(t, "diff", "--help")
	if code != 0 || !strings.Contains(stdout, "REV:path") || !strings.Contains(stdout, "-fail-on") {
		t.Errorf("diff --help: status %d, output %q", code, stdout)
	}
}

func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	base := writeSnapshot(t, dir, "base.json", "srv", toolA)
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{\"tools\": [\n  {\"name\": \"a\",}\n]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badSchema := writeSnapshot(t, dir, "bad-schema.json", "srv", `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}}`)
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{missing, base}, "reading snapshot " + missing + ": no such file"},
		{"missing new file", []string{base, missing}, "reading snapshot " + missing + ": no such file"},
		{"unreadable JSON", []string{base, broken}, broken + ":2:16: malformed JSON"},
		{"directory", []string{dir, base}, "is a directory"},
		{"dangling $ref", []string{base, badSchema}, `$ref "#/$defs/missing" does not resolve`},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"diff"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want 2 and %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
}

func TestDiffDifferentServers(t *testing.T) {
	dir := t.TempDir()
	a := writeSnapshot(t, dir, "a.json", "weather", toolA)
	b := writeSnapshot(t, dir, "b.json", "calendar", toolA)
	for _, format := range []string{"text", "json", "markdown"} {
		code, stdout, _ := runCLI(t, "diff", "--format", format, a, b)
		if code != 0 || !strings.Contains(stdout, `of server \"weather\"`) && !strings.Contains(stdout, `of server "weather"`) {
			t.Errorf("%s: status %d, output lacks the server warning:\n%s", format, code, stdout)
		}
	}
}

// TestDiffGit reads snapshots from git revisions of a temporary repository.
func TestDiffGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeSnapshot(t, dir, "tools.json", "srv", toolA+","+toolB)
	git("add", "tools.json")
	git("commit", "-q", "-m", "one")
	writeSnapshot(t, dir, "tools.json", "srv", toolA)
	t.Chdir(dir)

	code, stdout, stderr := runCLI(t, "diff", "HEAD:tools.json", "tools.json")
	if code != 1 || !strings.Contains(stdout, "tool b removed") {
		t.Errorf("HEAD:tools.json vs the work tree: status %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		spec, want string
	}{
		{"v9.9.9:tools.json", "reading snapshot v9.9.9:tools.json: git revision v9.9.9 does not exist"},
		{"HEAD~3:tools.json", "git revision HEAD~3 does not exist"},
		{"HEAD:other.json", "reading snapshot HEAD:other.json: other.json does not exist in revision HEAD"},
	} {
		code, _, stderr := runCLI(t, "diff", tc.spec, "tools.json")
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("diff %s: status %d, stderr %q; want 2 and %q", tc.spec, code, stderr, tc.want)
		}
	}
}

// TestDiffWithOverrides compares two snapshots with the overrides of a
// config entry: the GO_API marker names the field generate writes for the
// override, not the name the property alone would give.
func TestDiffWithOverrides(t *testing.T) {
	dir := t.TempDir()
	old := writeSnapshot(t, dir, "old.json", "s", `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)
	new := writeSnapshot(t, dir, "new.json", "s", `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}}}`)
	cfg := filepath.Join(dir, "mcpgen.yaml")
	yaml := "servers:\n  s:\n    snapshot: old.json\n    out: s\n    url: http://127.0.0.1:1/mcp\n" +
		"    overrides:\n      \"a#/inputSchema/properties/x\":\n        go_name: Amount\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "diff", "--config", cfg, old, new)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !strings.Contains(stdout, "field AArgs.Amount") || strings.Contains(stdout, "AArgs.X") {
		t.Errorf("the report does not name the overridden field AArgs.Amount:\n%s", stdout)
	}
	// Generate writes the same name.
	out := filepath.Join(dir, "s")
	if code, _, stderr := runCLI(t, "generate", "--config", cfg); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(out, "types.go")); err != nil || !strings.Contains(string(data), "\tAmount ") {
		t.Errorf("generate did not write the field Amount (%v)", err)
	}
	if code, _, stderr := runCLI(t, "diff", "--server", "s", old, new); code != 2 || !strings.Contains(stderr, "--server picks") {
		t.Errorf("--server without --config: exit %d, %s", code, stderr)
	}
}

// TestDiffListingCollisionIsGoAPI checks that an identifier of a prompt or
// a resource template taken over by something added is a Go API change,
// as generate names them: code that still compiles would get another
// prompt or send another argument, or no longer compiles.
func TestDiffListingCollisionIsGoAPI(t *testing.T) {
	dir := t.TempDir()
	snap := func(file, tools, prompts, templates string) string {
		path := filepath.Join(dir, file)
		data := `{"server":{"name":"s","version":"1"},"protocolVersion":"2025-06-18","source":"test","tools":[` + tools +
			`],"prompts":[` + prompts + `],"resourceTemplates":[` + templates + `]}` + "\n"
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name                  string
		oldTools, newTools    string
		oldPrompts, newPrompt string
		oldTmpl, newTmpl      string
		want                  string // the identifier the report names
	}{
		{name: "an argument is taken over by a new argument",
			oldPrompts: `{"name":"weather","arguments":[{"name":"city","required":true}]}`,
			newPrompt:  `{"name":"weather","arguments":[{"name":"city","required":true},{"name":"City"}]}`,
			want:       "field WeatherPromptArgs.City"},
		{name: "a prompt's method is taken over by a new prompt",
			oldPrompts: `{"name":"get-weather"}`,
			newPrompt:  `{"name":"get-weather"},{"name":"GetWeather"}`,
			want:       "method GetWeatherPrompt"},
		{name: "a prompt's method is taken over by a new tool",
			oldTools:   toolB,
			newTools:   toolB + `,{"name":"XPrompt","inputSchema":{"type":"object"}}`,
			oldPrompts: `{"name":"x"}`,
			newPrompt:  `{"name":"x"}`,
			want:       "method XPrompt"},
		{name: "a variable is taken over by a new variable",
			oldTmpl: `{"name":"doc","uriTemplate":"doc://{id}{?q}"}`,
			newTmpl: `{"name":"doc","uriTemplate":"doc://{id}{?q,ID}"}`,
			want:    "field DocParams.ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldTools, newTools := tc.oldTools, tc.newTools
			if oldTools == "" {
				oldTools, newTools = toolB, toolB
			}
			old := snap("old.json", oldTools, tc.oldPrompts, tc.oldTmpl)
			cur := snap("new.json", newTools, tc.newPrompt, tc.newTmpl)
			code, stdout, stderr := runCLI(t, "diff", "--format", "json", old, cur)
			if code == 2 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var r struct {
				Changes []struct {
					GoAPI    bool   `json:"goAPI"`
					Summary  string `json:"summary"`
					Why      string `json:"why"`
					Prompt   string `json:"prompt"`
					Template string `json:"resourceTemplate"`
				} `json:"changes"`
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			for _, c := range r.Changes {
				if c.GoAPI && (c.Prompt != "" || c.Template != "") && strings.Contains(c.Summary+c.Why, tc.want) {
					return
				}
			}
			t.Errorf("no change of a prompt or template is marked GO_API naming %s:\n%s", tc.want, stdout)
		})
	}
}
