// Package generator turns an MCP tool-list snapshot into a Go package.
//
// The pipeline is: snapshot (package snapshot: tools with their raw bytes and
// key order) → tool selection → IR (package ir: normalized schemas, resolved
// $refs, assigned names) → Go files (package emit, rendered with jennifer and
// formatted) → write. Generate runs it up to the files, with one Options
// value; WriteFiles puts the result into a directory without ever leaving it
// half-written, and Run does both.
package generator

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

// Options are the settings of one generation: the package, its parts and
// the IR's limits, overrides and sharing. They are passed once, to the IR
// build and then to the rendering.
type Options = ir.Options

// File is one generated file: its name in the package's directory and its
// contents.
type File = emit.File

// Header is the first line of every generated Go file, the mark that lets
// WriteFiles replace or remove it.
const Header = emit.Header

// DataHeader is the first line of the JSON Lines files a package embeds,
// such as tools.jsonl: Header's sentence as a JSON string.
const DataHeader = emit.DataHeader

// Config says what to generate from which snapshot, and where to write it.
type Config struct {
	// Snapshot is the path of the tool-list snapshot. When From is set, it
	// only names the snapshot in errors.
	Snapshot string
	// From, when set, is the snapshot to generate from instead of reading
	// Snapshot: a live server's tool list, for instance.
	From *snapshot.Snapshot
	// Out is the output directory; it is created if missing.
	Out string
	// Tools selects the tools the package declares; the zero filter keeps
	// them all. SnapshotHash still covers the whole snapshot, so a session
	// compares it with the server's whole list.
	Tools runtime.ToolFilter
	// Warn, when set, receives warnings: a pattern of Tools that matches
	// no tool, or more tools than a provider part's documented limit.
	Warn func(Warning)
	// Options are the package name, its parts, and the IR's limits,
	// overrides and sharing; their Context, when set, stops generation
	// once it is done.
	Options
}

// Generate runs the pipeline up to the files: it reads the snapshot,
// selects the tools, builds the IR and renders the files of the package.
func Generate(cfg Config) ([]File, error) {
	opts := cfg.Options
	snap := cfg.From
	if snap == nil {
		var err error
		if snap, err = snapshot.ReadFile(cfg.Snapshot); err != nil {
			return nil, err
		}
	}
	warn := cfg.Warn
	if warn == nil {
		warn = func(Warning) {}
	}
	if !cfg.Tools.IsZero() {
		opts.SnapshotHash, opts.SnapshotTools = runtime.ToolsHash(snap.RuntimeTools()), len(snap.Tools)
	}
	snap, err := selectTools(snap, cfg.Tools, warn)
	if err != nil {
		return nil, cfg.wrap(err)
	}
	warnLimits(opts.Parts, len(snap.Tools), opts.Pinned, snap, warn)
	if err := opts.Check(); err != nil {
		return nil, cfg.wrap(err)
	}
	// The Gemini declarations, which take longer than any other part,
	// are begun now, beside the IR's build.
	early := emit.StartGemini(snap.RuntimeTools(), snap.Inputs(), opts)
	pkg, err := ir.BuildOptions(snap.Tools, opts)
	if err != nil {
		return nil, cfg.wrap(err)
	}
	if err := pkg.AddListings(snap.Prompts, snap.ResourceTemplates); err != nil {
		return nil, cfg.wrap(err)
	}
	if len(pkg.Skipped) > 0 {
		if len(pkg.Tools) == 0 {
			return nil, cfg.wrap(fmt.Errorf("no tool can be generated: %w", pkg.Skipped[0]))
		}
		for _, e := range pkg.Skipped {
			warn(Warning{Msg: fmt.Sprintf("tool %q is left out of the package, since no call of it can succeed: %s: %s (strict mode refuses the tool list instead)", e.Tool, e.Pointer, e.Msg), Tool: e.Tool})
		}
		// SnapshotHash covers every tool the server lists, as it does when
		// only some tools are selected.
		if opts.SnapshotHash == "" {
			opts.SnapshotHash, opts.SnapshotTools = runtime.ToolsHash(snap.RuntimeTools()), len(snap.Tools)
		}
	}
	if bad := ir.PinnedUnmatched(opts.Pinned, pkg.Tools); len(bad) > 0 {
		return nil, cfg.wrap(&ir.PinnedError{Pattern: bad[0], Reason: fmt.Sprintf("matches none of the package's %d tools", len(pkg.Tools))})
	}
	files, err := emit.RenderWith(pkg, opts, early)
	if err != nil {
		return nil, cfg.wrap(err)
	}
	return files, nil
}

// wrap names the snapshot in err, when there is a name to give.
func (cfg *Config) wrap(err error) error {
	if cfg.Snapshot == "" {
		return err
	}
	return fmt.Errorf("generating from %s: %w", cfg.Snapshot, err)
}

// Run generates the package and writes it to cfg.Out. It returns the names
// of the files written and of the stale generated files removed.
func Run(cfg Config) (written, removed []string, err error) {
	files, err := Generate(cfg)
	if err != nil {
		return nil, nil, err
	}
	return WriteFiles(cfg.Out, files)
}

// WriteFiles writes files into dir and returns the names of those whose
// contents changed, and of the stale generated files it removed. Every file
// is first written to a temporary file in dir; only when all of them are
// written are they renamed into place, so a
// failure leaves the previous output as it was. Generated files of parts
// that are no longer written are removed, but only if they start with the
// generated-code header: files mcpgen did not write are never touched.
func WriteFiles(dir string, files []File) (written, removed []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("creating output directory: %w", err)
	}
	type pending struct{ tmp, final, name string }
	var todo []pending
	cleanup := func() {
		for _, p := range todo {
			os.Remove(p.tmp)
		}
	}
	for _, f := range files {
		final := filepath.Join(dir, f.Name)
		// A file that cannot be read (a directory of the name, say) is
		// refused here, before any file is replaced, rather than by the
		// rename below, which would leave the output half replaced.
		if old, err := os.ReadFile(final); err == nil && bytes.Equal(old, f.Data) {
			continue
		} else if err == nil && !IsGenerated(final) {
			cleanup()
			return nil, nil, fmt.Errorf("%s exists and was not generated by mcpgen (its first line is not %s); refusing to overwrite it", final, headerFor(f.Name))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			cleanup()
			return nil, nil, fmt.Errorf("%s cannot be replaced: %w", final, err)
		}
		tmp, err := os.CreateTemp(dir, ".mcpgen-"+f.Name+"-*")
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("writing %s: %w", final, err)
		}
		todo = append(todo, pending{tmp: tmp.Name(), final: final, name: f.Name})
		_, werr := tmp.Write(f.Data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("writing %s: %w", final, err)
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("writing %s: %w", final, err)
		}
	}
	for i, p := range todo {
		if err := os.Rename(p.tmp, p.final); err != nil {
			for _, q := range todo[i:] {
				os.Remove(q.tmp)
			}
			return written, nil, fmt.Errorf("writing %s: %w", p.final, err)
		}
		written = append(written, p.name)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	for _, part := range ir.Parts {
		for _, name := range ir.FileNames[part] {
			path := filepath.Join(dir, name)
			if slices.Contains(names, name) || !IsGenerated(path) {
				continue
			}
			if err := os.Remove(path); err != nil {
				return written, removed, fmt.Errorf("removing stale %s: %w", path, err)
			}
			removed = append(removed, name)
		}
	}
	return written, removed, nil
}

// headerFor returns the first line that marks the file name as generated:
// DataHeader for the JSON Lines files, Header for the Go files.
func headerFor(name string) string {
	if strings.HasSuffix(name, ".jsonl") {
		return DataHeader
	}
	return Header
}

// IsGenerated reports whether the file at path starts with the header of
// generated code, the mark that lets WriteFiles replace or remove it:
// Header for Go files, DataHeader for the JSON Lines files they embed.
func IsGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimRight(line, "\r\n") == headerFor(path)
}
