package cli

import (
	"fmt"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/emit"
)

var generateCommand = &command{
	name:    "generate",
	summary: "generate a Go package from a tools/list snapshot",
	run:     runGenerate,
}

func runGenerate(e *env, args []string) error {
	fs := newFlagSet(e, "generate", "--snapshot FILE --package NAME --out DIR [flags]")
	snap := fs.String("snapshot", "", "the tools/list snapshot to read: a JSON-RPC response, its result, a bare array of tools, or a canonical mcpgen snapshot (required)")
	pkg := fs.String("package", "", "the Go package name of the generated code (default: the last element of --out)")
	out := fs.String("out", "", "the directory to write the package to; created if missing (required)")
	gemini := fs.String("gemini", emit.GeminiTyped, "the form of the Gemini declarations: typed (genai Schema values in Parameters) or json (the server's own schema in ParametersJsonSchema)")
	parts := fs.String("emit", strings.Join(emit.DefaultParts, ","), "comma-separated parts to write: types (types.go, validate.go, schemas.go), client (client.go, needs types), gemini (gemini.go), and on request anthropic (anthropic.go, needs types) and openai (openai.go, needs types), which import those providers' SDKs")
	openaiStrict := fs.Bool("openai-strict", false, "declare the tools of the openai part in OpenAI's strict mode where their schemas allow it")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("generate: unexpected argument %q", fs.Arg(0))
	}
	if *snap == "" {
		return usagef("generate: --snapshot is required")
	}
	if *out == "" {
		return usagef("generate: --out is required")
	}
	if *pkg == "" {
		*pkg = filepath.Base(filepath.Clean(*out))
	}
	if !token.IsIdentifier(*pkg) || token.IsKeyword(*pkg) || *pkg == "_" {
		return usagef("generate: package name %q is not a Go identifier (set --package)", *pkg)
	}
	if *gemini != emit.GeminiTyped && *gemini != emit.GeminiJSON {
		return usagef("generate: --gemini must be typed or json, not %q", *gemini)
	}
	var list []string
	for _, p := range strings.Split(*parts, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, ok := emit.FileNames[p]; !ok {
			return usagef("generate: unknown part %q in --emit (want %s)", p, strings.Join(emit.Parts, ", "))
		}
		list = append(list, p)
	}
	if len(list) == 0 {
		return usagef("generate: --emit names no part")
	}
	for _, p := range []string{emit.PartClient, emit.PartAnthropic, emit.PartOpenAI} {
		if containsPart(list, p) && !containsPart(list, emit.PartTypes) {
			return usagef("generate: --emit %s needs types too", p)
		}
	}
	if *openaiStrict && !containsPart(list, emit.PartOpenAI) {
		return usagef("generate: --openai-strict needs --emit openai")
	}
	written, removed, err := generator.Run(generator.Config{Snapshot: *snap, Package: *pkg, Out: *out, Gemini: *gemini, Parts: list, OpenAIStrict: *openaiStrict})
	for _, name := range written {
		fmt.Fprintf(e.stderr, "wrote %s\n", filepath.Join(*out, name))
	}
	for _, name := range removed {
		fmt.Fprintf(e.stderr, "removed %s (its part is no longer emitted)\n", filepath.Join(*out, name))
	}
	return err
}

func containsPart(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}
