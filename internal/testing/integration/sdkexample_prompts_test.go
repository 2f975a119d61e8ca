package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// sdkExampleProgram gets the greeting prompt of the TypeScript SDK's
// example server through the package generated from its capture, and
// prints the prompt's text; a missing argument must fail before sending.
const sdkExampleProgram = `package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpgen/mcpgen/internal/testing/integration/PKG"
	"github.com/mcpgen/mcpgen/runtime"
)

func main() {
	ctx := context.Background()
	s, err := runtime.Connect(ctx, runtime.StreamableHTTP(os.Args[1], nil), nil)
	if err != nil {
		fmt.Println("connect:", err)
		os.Exit(1)
	}
	defer s.Close()
	c := p.NewClient(s)
	var ve *runtime.ValidationError
	if _, err := c.GreetingTemplatePrompt(ctx, p.GreetingTemplatePromptArgs{}); !errors.As(err, &ve) {
		fmt.Println("no validation error without the name:", err)
		os.Exit(1)
	}
	res, err := c.GreetingTemplatePrompt(ctx, p.GreetingTemplatePromptArgs{Name: "Ada"})
	if err != nil {
		fmt.Println("prompt:", err)
		os.Exit(1)
	}
	fmt.Println(res.Messages[0].Role, res.Text())
}
`

// TestSDKExamplePrompts captures the prompts of the TypeScript SDK's
// example server (simpleStreamableHttp), which lists one and no resource
// templates, generates a package from the capture, compiles it with a
// program that gets the prompt through the typed method, and runs it
// against the live server.
func TestSDKExamplePrompts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server and compiles a program")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx := testenv.Context(t)
	s, err := runtime.Connect(ctx, runtime.StreamableHTTP(url, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Capture(ctx, s, "simpleStreamableHttp")
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Prompts) != 1 || snap.Prompts[0].Name != "greeting-template" ||
		len(snap.Prompts[0].Arguments) != 1 || !snap.Prompts[0].Arguments[0].Required {
		t.Fatalf("prompts = %+v, want greeting-template with a required name", snap.Prompts)
	}
	if snap.ResourceTemplates == nil || len(snap.ResourceTemplates) != 0 {
		t.Errorf("resource templates = %#v, want an empty list", snap.ResourceTemplates)
	}

	// The package must be inside the module to import its runtime.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove("testdata") }) // only if empty: it is not checked in
	root, err := os.MkdirTemp("testdata", "sdkexample-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	_, _, err = generator.Run(generator.Config{From: snap, Snapshot: "simpleStreamableHttp", Out: filepath.Join(root, "p"),
		Options: ir.Options{Package: "p", Parts: []string{ir.PartTypes, ir.PartClient}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "p", "prompts.go")); err != nil {
		t.Fatal(err)
	}
	prog := strings.Replace(sdkExampleProgram, "PKG", filepath.ToSlash(root)+"/p", 1)
	if err := os.MkdirAll(filepath.Join(root, "main"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main", "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, "go", "run", "./"+filepath.ToSlash(filepath.Join(root, "main")), url).CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "user Please greet Ada in a friendly manner."; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}
