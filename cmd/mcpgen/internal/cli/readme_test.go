package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// readme returns the repository's README, or with a name, that page of
// docs/.
func readme(t *testing.T, page ...string) string {
	t.Helper()
	name := testenv.FromRoot("README.md")
	if len(page) > 0 {
		name = testenv.FromRoot("docs/" + page[0])
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReadmeInstallBeforeUse checks that the README says how to get the
// mcpgen command before it first writes it bare, as a command to run: it
// said so only in its tenth section.
func TestReadmeInstallBeforeUse(t *testing.T) {
	text := readme(t)
	install := strings.Index(text, "go install ./cmd/mcpgen")
	bare := regexp.MustCompile("(?m)(^|`|\\$ )mcpgen (generate|snapshot|tools|call|read|check|diff|login|logout) ").FindStringIndex(text)
	if install < 0 || bare == nil || install > bare[0] {
		t.Errorf("the README says how to install mcpgen at offset %d, after it first writes it bare at %v", install, bare)
	}
}

// TestReadmeLineCounts measures the generated files of the Home Assistant
// package and of the DigitalOcean snapshot of the test corpus, and checks the
// counts the generated code's page quotes (they had gone stale). When the
// generator's output changes, update the page with what this test measures.
func TestReadmeLineCounts(t *testing.T) {
	m := regexp.MustCompile(`the two are now ([\d,]+) and ([\d,]+) lines`).FindStringSubmatch(readme(t, "generated-code.md"))
	if m == nil {
		t.Fatal("docs/generated-code.md quotes no line counts of the generated examples")
	}
	out := filepath.Join(t.TempDir(), "digitalocean")
	if code, _, stderr := runCLI(t, "generate", "--snapshot", testenv.FromRoot("testdata/servers/digitalocean.json"), "--out", out); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	for i, dir := range []string{testenv.FromRoot("generated/homeassistant"), out} {
		want := generatedLines(t, dir)
		if got, _ := strconv.Atoi(strings.ReplaceAll(m[i+1], ",", "")); got != want {
			t.Errorf("docs/generated-code.md says %s lines for %s; wc -l counts %d", m[i+1], filepath.Base(dir), want)
		}
	}
}

// generatedLines counts the lines of the generated Go files in dir that the
// default parts write: fake.go, which the Home Assistant package also has,
// is left out.
func generatedLines(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	n := 0
	for _, f := range files {
		if filepath.Base(f) == "fake.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("\n// Code generated ")) || bytes.HasPrefix(data, []byte("// Code generated ")) {
			n += bytes.Count(data, []byte("\n"))
		}
	}
	return n
}
