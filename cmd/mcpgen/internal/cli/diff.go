package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config"
	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/gitfile"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

var diffCommand = &command{
	name:    "diff",
	summary: "classify the changes between two snapshots as ERR, WARN or INFO",
	run:     runDiff,
}

const diffHelp = `[--format text|json|markdown] [--fail-on ERR|WARN|INFO] [--timeout D] [--config mcpgen.yaml [--server NAME]] OLD NEW

OLD and NEW are snapshot files, REV:path to read a snapshot from git as
"git show REV:path" does (for example HEAD:testdata/tools.json), or "-"
for standard input (one side only), such as the output of mcpgen snapshot.

The GO_API marker names the identifiers generate writes. With --config,
they are those of the server's entry, its overrides and its tools
selection included; --server picks the entry when the file has several.

Exit status: 0 when no change reaches the --fail-on severity, 1 when one
does, 2 when the arguments or the snapshots cannot be used.`

// reportFlags are the flags diff and check share.
type reportFlags struct {
	format string
	failOn string
}

func (rf *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&rf.format, "format", "text", "report `format`: text, json or markdown")
	fs.StringVar(&rf.failOn, "fail-on", "ERR", "exit with status 1 when a change is at least this `severity`: ERR, WARN or INFO")
}

// parse checks the flag values.
func (rf *reportFlags) parse() (diff.Format, diff.Severity, error) {
	format, err := diff.ParseFormat(rf.format)
	if err != nil {
		return "", 0, usagef("--format: %v", err)
	}
	threshold, err := diff.ParseSeverity(rf.failOn)
	if err != nil {
		return "", 0, usagef("--fail-on: %v", err)
	}
	return format, threshold, nil
}

func runDiff(e *env, args []string) error {
	fs := newFlagSet(e, "diff", diffHelp)
	var rf reportFlags
	rf.register(fs)
	timeout := fs.Duration("timeout", defaultTimeout, "how long the comparison may take; 0 for no limit")
	configFile := fs.String("config", "", "an mcpgen.yaml `file`: name the Go identifiers as generate does for its server, overrides and tools selection included")
	server := fs.String("server", "", "with --config, the `name` of the server whose entry applies (needed when the file has several)")
	pos, err := parseInterspersed(e, fs, args)
	if err != nil {
		return err
	}
	gen, err := diffConfig(*configFile, *server)
	if err != nil {
		return err
	}
	format, threshold, err := rf.parse()
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("diff takes two snapshots, OLD and NEW; got %d argument(s)", len(pos))
	}
	if pos[0] == "-" && pos[1] == "-" {
		return usagef("diff: only one of OLD and NEW can be standard input")
	}
	if *timeout < 0 {
		return usagef("diff: --timeout must not be negative")
	}
	ctx, cancel := commandContext(*timeout)
	defer cancel()
	oldSnap, err := loadSnapshot(ctx, e, pos[0])
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	newSnap, err := loadSnapshot(ctx, e, pos[1])
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	r, err := compareSnapshots(ctx, pos[0], pos[1], oldSnap, newSnap, gen)
	if err != nil {
		return failUsage(explainDone(ctx, err, *timeout))
	}
	if oldSnap.Server.Name != "" && newSnap.Server.Name != "" && oldSnap.Server.Name != newSnap.Server.Name {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s is a snapshot of server %q but %s is of server %q: the two may not be versions of one server",
			pos[0], oldSnap.Server.Name, pos[1], newSnap.Server.Name))
	}
	return writeReport(e, r, format, threshold)
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, and returns the positional arguments.
func parseInterspersed(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(e, fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// loadSnapshot reads a snapshot from a file, from standard input when spec
// is "-", or from git when spec is REV:path and no file of that name exists.
func loadSnapshot(ctx context.Context, e *env, spec string) (*snapshot.Snapshot, error) {
	if spec == "-" {
		data, err := snapshot.ReadAll(e.stdin)
		if err != nil {
			return nil, fmt.Errorf("reading snapshot from standard input: %w", err)
		}
		return snapshot.Read("standard input", data)
	}
	data, err := readSnapshotFile(spec)
	switch {
	case err == nil:
		return snapshot.Read(spec, data)
	case errors.Is(err, fs.ErrNotExist):
		rev, path, ok := gitfile.Split(spec)
		if !ok {
			return nil, fmt.Errorf("reading snapshot %s: no such file", spec)
		}
		data, err := gitfile.Read(ctx, "", rev, path)
		if err != nil {
			var ge *gitfile.Error
			if errors.As(err, &ge) {
				return nil, fmt.Errorf("reading snapshot %s: %s", spec, ge.Msg)
			}
			return nil, fmt.Errorf("reading snapshot %s: %w", spec, err)
		}
		return snapshot.Read(spec, data)
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("reading snapshot %s: %v", spec, err)
	}
}

// readSnapshotFile reads the file at path, no more than one byte beyond
// snapshot.MaxFileSize.
func readSnapshotFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return snapshot.ReadAll(f)
}

// diffConfig returns the options generate writes the package of the
// server named in the config file with, its tools selection included; both
// empty give the defaults.
func diffConfig(file, server string) (diff.Options, error) {
	if file == "" {
		if server != "" {
			return diff.Options{}, usagef("diff: --server picks a server of a --config file")
		}
		return diff.Options{}, nil
	}
	f, err := config.Load(file)
	if err != nil {
		return diff.Options{}, &exitError{code: exitUsage, msg: err.Error()}
	}
	var names []string
	if server != "" {
		names = []string{server}
	}
	servers, err := f.Select(names)
	if err != nil {
		return diff.Options{}, usagef("%v", err)
	}
	if len(servers) != 1 {
		return diff.Options{}, usagef("diff: %s has %d servers: pick one with --server", file, len(servers))
	}
	return serverDiffOptions(servers[0]), nil
}

// serverOptions are the options generate writes the package of the config
// entry s with, as far as they decide its Go identifiers.
func serverOptions(s *config.Server) generator.Options {
	var opts generator.Options
	opts.Sharing.PerTool = s.NoSharedTypes
	for _, p := range s.PerToolTypes {
		opts.Sharing.Except = append(opts.Sharing.Except, p.Name)
	}
	if len(s.Overrides) > 0 {
		opts.Overrides = map[string]ir.Override{}
		for _, o := range s.Overrides {
			opts.Overrides[o.Key] = ir.Override{GoName: o.GoName, GoType: o.GoType}
		}
	}
	return opts
}

// serverDiffOptions say how generate writes the package of the config
// entry s, as far as they decide its Go API: its options and its tools
// selection.
func serverDiffOptions(s *config.Server) diff.Options {
	return diff.Options{Generate: serverOptions(s), Tools: s.Tools.Filter()}
}

// compareSnapshots classifies the changes from oldSnap to newSnap, its
// tools and then its prompts and resource templates, naming
// the Go identifiers as generate does with gen; it stops once ctx is done.
func compareSnapshots(ctx context.Context, oldName, newName string, oldSnap, newSnap *snapshot.Snapshot, gen diff.Options) (*diff.Report, error) {
	changes, err := diff.ToolsOptions(ctx, oldSnap.RuntimeTools(), newSnap.RuntimeTools(), gen)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", oldName, newName, err)
	}
	listings, warnings, err := diff.ListingsOptions(ctx, oldSnap.RuntimeTools(), newSnap.RuntimeTools(),
		oldSnap.RuntimePrompts(), newSnap.RuntimePrompts(), oldSnap.RuntimeTemplates(), newSnap.RuntimeTemplates(), gen)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", oldName, newName, err)
	}
	changes = append(changes, listings...)
	return &diff.Report{Old: oldName, New: newName, Changes: changes, Warnings: warnings}, nil
}

// writeReport prints r and turns a change at or above threshold into exit
// status 1.
func writeReport(e *env, r *diff.Report, format diff.Format, threshold diff.Severity) error {
	if err := r.Write(e.stdout, format); err != nil {
		return err
	}
	n := countAtLeast(r, threshold)
	if n == 0 {
		return nil
	}
	return &exitError{code: exitFail, msg: fmt.Sprintf("%d change(s) at %s or above (--fail-on %s)", n, threshold, threshold)}
}

// countAtLeast returns how many changes of r are at least as severe as
// threshold.
func countAtLeast(r *diff.Report, threshold diff.Severity) int {
	n := 0
	for i := range r.Changes {
		if r.Changes[i].Severity >= threshold {
			n++
		}
	}
	return n
}
