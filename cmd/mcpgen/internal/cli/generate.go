package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
)

// generateGCPercent is the GC target while generating.
const generateGCPercent = 400

// generateMemoryLimit is the soft memory limit while generating, unless
// GOMEMLIMIT sets one: it keeps the GC target's extra memory in check on
// thousands of tools (see "Generation memory" in docs/reliability.md).
const generateMemoryLimit = 112 << 20

var generateCommand = &command{
	name:    "generate",
	summary: "generate a Go package from a tools/list snapshot or a live server",
	run:     runGenerate,
}

const generateHelp = `--snapshot FILE --out DIR [--package NAME] [flags]
       mcpgen generate --out DIR [--package NAME] [--write-snapshot FILE] [flags] ` + serverUsage + `
       mcpgen generate --config mcpgen.yaml [--server NAME]... [flags]

Generates a Go package from a tool list: a snapshot file (a JSON-RPC
response, its result, a bare array of tools, or a canonical mcpgen
snapshot), or the tool list of a live server, reached with the same flags
as mcpgen snapshot. From a live server, --write-snapshot FILE also saves
the canonical snapshot the package was generated from, so that generating
from that file later gives the same code.

With --config, every server of the file (or each one named by --server)
is generated from the snapshot path its entry gives into its out
directory and package, with the entry's overrides and tools selection.
--emit, --gemini and --openai-strict apply to each of them.

--tools and --exclude-tools generate only some of the tools: those whose
MCP names match one of the --tools globs (every tool without it), less
those matching an --exclude-tools glob. Globs follow Go's path.Match (*
matches any run of characters but /). The snapshot keeps every tool, and
SnapshotHash covers them all.

A tool no call of which can succeed is left out with a warning that names
it and says why: one whose schema the JSON Schema meta-schema rejects (the
validator could not compile it), or whose schema evidently admits no
arguments or no result (a required property with "enum": []). The other
tools are generated, and SnapshotHash still covers the whole list. --strict
(strict: true in mcpgen.yaml) refuses such a tool list instead.

--pinned (pinned: in mcpgen.yaml) generates the toolsets of a large server
in deferred mode: the package's ToolSearch value pins the tools matching
the comma-separated globs, which are declared on every request, and the
model finds the others with a search. Pass ToolSearch() as the Search
option of a toolset you build (gemini.NewToolset); NewAnthropicToolset and
NewOpenAIToolset do so themselves. A glob that matches no generated tool
is an error naming it.

` + serverHelp

// genFlags are the flags that say what generate writes, shared by all its
// forms.
type genFlags struct {
	gemini       string
	parts        string
	openaiStrict bool
	strict       bool
	list         []string
	// tools and excludeTools are the comma-separated patterns of --tools
	// and --exclude-tools; check parses them into filter.
	tools, excludeTools string
	filter              runtime.ToolFilter
	// pinned is the comma-separated list of --pinned; check parses it
	// into pinnedGlobs.
	pinned      string
	pinnedGlobs []string
}

func (g *genFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.gemini, "gemini", ir.GeminiTyped, "the form of the Gemini declarations: typed (genai Schema values in Parameters) or json (the server's own schema in ParametersJsonSchema)")
	fs.StringVar(&g.parts, "emit", strings.Join(ir.DefaultParts, ","), "comma-separated parts to write: types (types.go, validate.go, schemas.go), client (client.go, needs types), gemini (gemini.go), and on request anthropic (anthropic.go, needs types) and openai (openai.go, needs types), which import those providers' SDKs, and fake (fake.go, needs types: a Handler interface of the tools, and a server and an in-memory fake built on it)")
	fs.BoolVar(&g.openaiStrict, "openai-strict", false, "declare the tools of the openai part in OpenAI's strict mode where their schemas allow it")
	fs.BoolVar(&g.strict, "strict", false, "refuse a tool list with a tool no call of which can succeed (its schema is one the JSON Schema meta-schema rejects, or admits no arguments) instead of leaving that tool out with a warning")
	fs.StringVar(&g.tools, "tools", "", "generate only the tools whose MCP names match one of these comma-separated `globs` (path.Match syntax: *, ?, [a-z]); default: every tool")
	fs.StringVar(&g.excludeTools, "exclude-tools", "", "then leave out the tools whose names match one of these comma-separated `globs`")
	fs.StringVar(&g.pinned, "pinned", "", "generate the toolsets in deferred mode: declare on every request only the tools whose MCP names match one of these comma-separated `globs` (the syntax of --tools), and let the model search for the others; each glob must match a generated tool")
}

// check validates the flags and fills in list.
func (g *genFlags) check() error {
	for _, p := range strings.Split(g.parts, ",") {
		if p = strings.TrimSpace(p); p != "" {
			g.list = append(g.list, p)
		}
	}
	if g.list == nil {
		g.list = []string{}
	}
	if err := (generator.Options{Parts: g.list, Gemini: g.gemini}).CheckParts(); err != nil {
		flag := "--emit"
		if oe, ok := err.(*ir.OptionError); ok && oe.Option == "gemini" {
			flag = "--gemini"
		}
		return usagef("generate: %s: %v", flag, err)
	}
	if g.openaiStrict && !containsPart(g.list, ir.PartOpenAI) {
		return usagef("generate: --openai-strict needs --emit openai")
	}
	return g.checkTools()
}

// config returns the generator configuration for one package.
func (g *genFlags) config(pkg, out string) generator.Config {
	return generator.Config{Out: out, Tools: g.filter, Options: generator.Options{Package: pkg, Gemini: g.gemini, Parts: g.list, OpenAIStrict: g.openaiStrict, Strict: g.strict, Pinned: g.pinnedGlobs}}
}

func runGenerate(e *env, args []string) error {
	// Generation builds and formats large syntax trees once and exits: a
	// higher GC target trades memory for a fifth less CPU on thousands of
	// tools, up to the soft memory limit.
	defer debug.SetGCPercent(debug.SetGCPercent(generateGCPercent))
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(generateMemoryLimit))
	}
	adviseHugeHeap(generateMemoryLimit)
	fs := newFlagSet(e, "generate", generateHelp)
	snap := fs.String("snapshot", "", "the tools/list `file` to read: a JSON-RPC response, its result, a bare array of tools, or a canonical mcpgen snapshot")
	pkg := fs.String("package", "", "the Go package `name` of the generated code (default: the name of the --out directory); not main, since the code is a package for a program to import")
	out := fs.String("out", "", "the `directory` to write the package to; created if missing")
	writeSnap := fs.String("write-snapshot", "", "with a live server, also save the canonical snapshot generated from to this `file`")
	var gf genFlags
	gf.register(fs)
	var sf serverFlags
	sf.register(fs)
	var cf configFlags
	cf.register(fs)
	own, command := splitCommand(args)
	pos, err := parseInterspersed(e, fs, own)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("generate: unexpected argument %q (a snapshot goes with --snapshot FILE, a server command after --)", pos[0])
	}
	if sf.timeout < 0 {
		return usagef("generate: --timeout must not be negative")
	}
	live := sf.url != "" || sf.sse != "" || len(command) > 0 || len(sf.headers.header) > 0 || sf.headers.err != nil || sf.bearerEnv != "" || sf.auth.given()
	if cf.file != "" {
		if *snap != "" || *out != "" || *pkg != "" || *writeSnap != "" || live {
			return usagef("generate: --config takes each server's snapshot, out and package from the file: drop --snapshot, --out, --package, --write-snapshot and the server flags")
		}
		if gf.tools != "" || gf.excludeTools != "" {
			return usagef("generate: --tools and --exclude-tools select the tools of one package: with --config, give tools: in each server's entry")
		}
		if gf.pinned != "" {
			return usagef("generate: --pinned pins the tools of one package: with --config, give pinned: in each server's entry")
		}
		if err := gf.check(); err != nil {
			return err
		}
		return generateConfig(e, &cf, &gf, sf.timeout)
	}
	if len(cf.servers) > 0 {
		return usagef("generate: --server picks servers of a --config file")
	}
	switch {
	case *snap != "" && live:
		return usagef("generate: give either --snapshot or a live server (--url, --sse or -- COMMAND), not both")
	case *snap == "" && !live:
		return usagef("generate: give --snapshot FILE, a live server (--url URL, --sse URL or -- COMMAND ARGS...), or --config")
	case *snap != "" && *writeSnap != "":
		return usagef("generate: --write-snapshot saves a live server's tool list; with --snapshot the file is already there")
	}
	if err := checkOutFile("generate", "--write-snapshot", *writeSnap); err != nil {
		return err
	}
	if live {
		if err := sf.check(command); err != nil {
			return err
		}
	}
	if *out == "" {
		return usagef("generate: --out is required")
	}
	if *pkg == "" {
		name, err := packageFromOut(*out)
		if err != nil {
			return err
		}
		*pkg = name
	}
	if err := ir.CheckPackageName(*pkg); err != nil {
		return usagef("generate: %v (set --package)", err)
	}
	if err := gf.check(); err != nil {
		return err
	}
	cfg := gf.config(*pkg, *out)
	cfg.Snapshot = *snap
	ctx, cancel := sf.context()
	defer cancel()
	cfg.Context = ctx
	if live {
		from, data, err := capture(ctx, e, &sf)
		if err != nil {
			return err
		}
		cfg.Snapshot, cfg.From = sf.source(), from
		// The snapshot is saved before generating, so that a tool list the
		// generator rejects can still be looked at.
		if *writeSnap != "" {
			if err := saveSnapshot(e, "", *writeSnap, data); err != nil {
				return err
			}
		}
	}
	return sf.explain(ctx, writePackage(e, "", cfg))
}

// packageFromOut returns the package name --out implies: the last element
// of the directory, made absolute first, so that "." and ".." give the name
// of the directory they stand for. A root directory has no name to give.
func packageFromOut(out string) (string, error) {
	dir, err := filepath.Abs(out)
	if err != nil {
		return "", fmt.Errorf("generate: --out %q: %w", out, err)
	}
	name := filepath.Base(dir)
	if name == string(filepath.Separator) {
		return "", usagef("generate: --out %q is a root directory, which has no name to take the package name from (set --package)", out)
	}
	return name, nil
}

// writePackage generates one package and reports the files it wrote and
// removed; label prefixes the messages.
func writePackage(e *env, label string, cfg generator.Config) error {
	if cfg.Warn == nil {
		cfg.Warn = func(w generator.Warning) {
			fmt.Fprintf(e.stderr, "mcpgen: warning: %s%s\n", label, w.Msg)
		}
	}
	written, removed, err := generator.Run(cfg)
	for _, name := range written {
		fmt.Fprintf(e.stderr, "%swrote %s\n", label, filepath.Join(cfg.Out, name))
	}
	for _, name := range removed {
		fmt.Fprintf(e.stderr, "%sremoved %s (its part is no longer emitted)\n", label, filepath.Join(cfg.Out, name))
	}
	return err
}

// generateConfig generates every selected server of a config file from its
// snapshot. A server that fails does not stop the others.
func generateConfig(e *env, cf *configFlags, gf *genFlags, timeout time.Duration) error {
	file, err := config.Load(cf.file)
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	servers, err := file.Select(cf.servers)
	if err != nil {
		return usagef("%v", err)
	}
	for _, s := range servers {
		if s.Out == "" {
			return &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%d: server %s: out is required to generate it", file.Path, s.Line, s.Name)}
		}
	}
	interrupted, stop := interruptContext()
	defer stop()
	failed := 0
	for i, s := range servers {
		if interrupted.Err() != nil {
			// The packages not yet generated are left as they are.
			failed += len(servers) - i
			break
		}
		cfg := gf.config(s.Package, s.Out)
		cfg.Snapshot = s.Snapshot
		cfg.Tools = s.Tools.Filter()
		cfg.Warn = configWarn(e, file.Path, s)
		opts := serverOptions(s)
		cfg.Overrides, cfg.Sharing = opts.Overrides, opts.Sharing
		cfg.Strict = gf.strict || s.Strict
		cfg.Pinned = s.PinnedGlobs()
		ctx, cancel := withTimeout(interrupted, timeout)
		cfg.Context = ctx
		err := explainDone(ctx, writePackage(e, "server "+s.Name+": ", cfg), timeout)
		cancel()
		if err != nil {
			failed++
			var oe *ir.OverrideError
			if errors.As(err, &oe) {
				// Name the line of the override in the config file.
				for _, o := range s.Overrides {
					if o.Key == oe.Key {
						err = fmt.Errorf("%s:%d: %w", file.Path, o.Line, oe)
					}
				}
			}
			var pin *ir.PinnedError
			if errors.As(err, &pin) {
				for _, p := range s.Pinned {
					if p.Glob == pin.Pattern {
						err = fmt.Errorf("%s:%d: %w", file.Path, p.Line, pin)
						break
					}
				}
			}
			var pe *ir.PerToolTypeError
			if errors.As(err, &pe) {
				for _, p := range s.PerToolTypes {
					if p.Name == pe.Entry {
						err = fmt.Errorf("%s:%d: per_tool_types: %w", file.Path, p.Line, pe)
					}
				}
			}
			fmt.Fprintf(e.stderr, "mcpgen: server %s: %v\n", s.Name, err)
		}
	}
	if failed > 0 {
		code := exitFail
		if interrupted.Err() != nil {
			code = exitInterrupt
		}
		return &exitError{code: code, msg: fmt.Sprintf("%d of %d server(s) could not be generated", failed, len(servers))}
	}
	return nil
}

func containsPart(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}
