package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestExampleConsumer keeps examples/consumer, the module the README's
// "Using mcpgen in your repository" section describes, honest: its snapshot
// is canonical, its generated package is what go generate writes today, and
// it builds, vets and runs against the real server.
func TestExampleConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := filepath.Join(testenv.RepoRoot(), "examples", "consumer")
	snapPath := filepath.Join(dir, "tools", "everything.json")

	data, err := os.ReadFile(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Read(snapPath, data)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := snapshot.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(canonical, data) {
		t.Errorf("%s is not a canonical snapshot", snapPath)
	}

	out := t.TempDir()
	code, _, stderr := runCLI(t, "generate", "--snapshot", snapPath, "--package", "everything", "--out", out)
	if code != 0 {
		t.Fatalf("generate: status %d: %s", code, stderr)
	}
	files, err := filepath.Glob(filepath.Join(out, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("generate wrote no files (%v)", err)
	}
	for _, f := range files {
		fresh, _ := os.ReadFile(f)
		checkedIn, err := os.ReadFile(filepath.Join(dir, "everything", filepath.Base(f)))
		if err != nil || !bytes.Equal(fresh, checkedIn) {
			t.Errorf("examples/consumer/everything/%s is stale: run make generate (or go generate ./examples) and commit it", filepath.Base(f))
		}
	}

	goTool := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly -buildvcs=false"))
		outb, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in examples/consumer: %v\n%s", strings.Join(args, " "), err, outb)
		}
		return string(outb)
	}
	goTool("vet", "./...")
	bin := filepath.Join(t.TempDir(), "consumer")
	goTool("build", "-o", bin, ".")

	useEverything(t)
	cmd := exec.Command(bin, "-strict", "--", "node_modules/.bin/mcp-server-everything", "stdio")
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the example: %v\n%s", err, outb)
	}
	if !strings.Contains(string(outb), "Echo: hello from a generated client") || !strings.Contains(string(outb), "Chicago: ") {
		t.Errorf("example output:\n%s", outb)
	}
}

// TestExampleConsumerGoGenerate runs the commands examples/consumer
// documents, in a copy of that module with its own go.mod and go.sum: go
// generate ./... builds mcpgen as the module's tool, so every package the
// command imports needs a go.sum entry there. It once failed with "missing
// go.sum entry" for the Anthropic and OpenAI SDKs, which the command
// imported although it never calls them. The module proxy is switched off:
// what the root module's go mod download fetched must be enough.
func TestExampleConsumerGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root := testenv.RepoRoot()
	src := filepath.Join(root, "examples", "consumer")
	dir := filepath.Join(t.TempDir(), "consumer")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOPROXY=off", "GOFLAGS=-buildvcs=false")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in a copy of examples/consumer: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The copy builds against this checkout, as the original does through
	// its relative replace directive.
	run("mod", "edit", "-replace", "github.com/mcpgen/mcpgen="+root)
	for _, f := range []string{"everything/types.go", "everything/client.go"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	run("generate", "./...")
	run("build", "./...")
	files, err := filepath.Glob(filepath.Join(src, "everything", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("examples/consumer/everything has no files (%v)", err)
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(dir, "everything", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("go generate ./... in the consumer module wrote a different everything/%s (%v)", filepath.Base(f), err)
		}
	}
}

// TestInstallFromClone follows the README's way of adding mcpgen as a tool
// of another module before mcpgen is published, where go get -tool ...@latest
// cannot find it: a requirement replaced by a clone, then go mod tidy. The
// module then generates a package with go tool mcpgen, runs go mod tidy
// again for what the package imports, and builds it.
func TestInstallFromClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root := testenv.RepoRoot()
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "init", "example.com/app")
	run("mod", "edit", "-require", "github.com/mcpgen/mcpgen@v0.0.0",
		"-replace", "github.com/mcpgen/mcpgen="+root,
		"-tool", "github.com/mcpgen/mcpgen/cmd/mcpgen")
	run("mod", "tidy")
	requiresGenai := func() bool {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(data), "google.golang.org/genai ")
	}
	if requiresGenai() {
		t.Error("go.mod requires genai before any package is generated: the command links it")
	}
	run("tool", "mcpgen", "generate", "--snapshot", filepath.Join(root, "testdata", "homeassistant-tools-list.json"), "--package", "homeassistant", "--out", "homeassistant")
	// The command does not link genai; the generated package imports it.
	run("mod", "tidy")
	if !requiresGenai() {
		t.Error("go.mod does not require genai after a package importing it was generated")
	}
	run("build", "./...")
	if out := run("list", "./..."); !strings.Contains(out, "example.com/app/homeassistant") {
		t.Errorf("go list ./... = %q, want the generated package", out)
	}
}
