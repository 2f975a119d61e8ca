package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

var snapshotCommand = &command{
	name:    "snapshot",
	summary: "capture a live server's tool list as a canonical snapshot",
	run:     runSnapshot,
}

const snapshotHelp = `[--out FILE] ` + serverUsage + `
       mcpgen snapshot --config mcpgen.yaml [--server NAME]...

Writes the server's tool list in mcpgen's canonical snapshot format: a
header naming the server, its protocol version and where it was captured
from (secrets removed), then the tools sorted by name, each exactly as the
server sent it, and the prompts and resource templates of a server that
offers them. The output has no timestamps, so capturing an unchanged
server gives the same bytes. Without --out the snapshot goes to standard
output; with it, the file is only rewritten when its content changes.

With --config, every server of the file (or each one named by --server)
is captured into the snapshot path its entry gives. A server that fails
does not stop the others; the exit status is then 1.

` + serverHelp

func runSnapshot(e *env, args []string) error {
	fs := newFlagSet(e, "snapshot", snapshotHelp)
	var sf serverFlags
	sf.register(fs)
	out := fs.String("out", "", "the `file` to write the snapshot to (default: standard output)")
	var cf configFlags
	cf.register(fs)
	pos, err := parseLive(e, fs, &sf, &cf, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("snapshot: unexpected argument %q (a server command goes after --)", pos[0])
	}
	if cf.file != "" {
		if *out != "" {
			return usagef("snapshot: --config writes each server's snapshot to its own path: drop --out")
		}
		return snapshotConfig(e, &cf, &sf)
	}
	if err := checkOutFile("snapshot", "--out", *out); err != nil {
		return err
	}
	ctx, cancel := sf.context()
	defer cancel()
	_, data, err := capture(ctx, e, &sf)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := e.data.Write(data)
		return err
	}
	return saveSnapshot(e, "", *out, data)
}

// snapshotConfig captures every selected server of a config file into its
// snapshot path.
func snapshotConfig(e *env, cf *configFlags, base *serverFlags) error {
	servers, flags, err := configServers(cf, base, false)
	if err != nil {
		return err
	}
	interrupted, stop := interruptContext()
	defer stop()
	failed := 0
	for i, s := range servers {
		if interrupted.Err() != nil {
			// The servers not yet captured are not started.
			failed += len(servers) - i
			break
		}
		err := func() error {
			if err := flags[i].checkEnv(); err != nil {
				return err
			}
			ctx, cancel := flags[i].contextIn(interrupted)
			defer cancel()
			_, data, err := capture(ctx, e, flags[i])
			if err != nil {
				return err
			}
			return saveSnapshot(e, "server "+s.Name+": ", s.Snapshot, data)
		}()
		if err != nil {
			failed++
			fmt.Fprintf(e.stderr, "mcpgen: server %s: %v\n", s.Name, err)
		}
	}
	if failed > 0 {
		code := exitFail
		if interrupted.Err() != nil {
			code = exitInterrupt
		}
		return &exitError{code: code, msg: fmt.Sprintf("%d of %d server(s) could not be captured", failed, len(servers))}
	}
	return nil
}

// capture connects to the server sf describes, lists its tools, prompts
// and resource templates (see snapshot.Capture) and returns them as a
// canonical snapshot, parsed and encoded. The snapshot is read
// back as generate would read it, so that a capture never writes a file the
// other commands reject.
func capture(ctx context.Context, e *env, sf *serverFlags) (*snapshot.Snapshot, []byte, error) {
	s, err := sf.connect(ctx, e, sf.command)
	if err != nil {
		return nil, nil, sf.explain(ctx, err)
	}
	defer closeSession(ctx, s)
	snap, err := snapshot.Capture(ctx, s, sf.source())
	if err != nil {
		return nil, nil, sf.explain(ctx, err)
	}
	data, err := snapshot.Marshal(snap)
	if err != nil {
		return nil, nil, fmt.Errorf("the tool list of %s: %w", sf.source(), err)
	}
	if clean, found := e.secrets.redactFound(data); found {
		fmt.Fprintf(e.stderr, "mcpgen: warning: the tool list of %s repeats a credential sent to the server; it is replaced by %s\n", sf.source(), redacted)
		data = clean
	}
	parsed, err := snapshot.Read(sf.source(), data)
	if err != nil {
		return nil, nil, fmt.Errorf("the tool list of %s cannot be used: %w", sf.source(), err)
	}
	return parsed, data, nil
}

// saveSnapshot writes a captured snapshot to path unless the file already
// holds it, and says which on standard error; label prefixes the message.
func saveSnapshot(e *env, label, path string, data []byte) error {
	changed, err := writeIfChanged(path, data)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(e.stderr, "%swrote %s\n", label, path)
	} else {
		fmt.Fprintf(e.stderr, "%s%s is up to date\n", label, path)
	}
	return nil
}

// checkOutFile refuses an output file that exists and is not a regular
// file (a directory, a FIFO, a device such as /dev/stdout), before the
// server is started: the file is written as a temporary file renamed over
// it, which a directory refuses only once the work is done, and which
// replaces any other kind of file. name and flag say where path came from.
func checkOutFile(name, flag, path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	if fi.IsDir() {
		what = "a directory"
	}
	hint := ""
	if flag == "--out" {
		hint = " (without --out the output goes to standard output)"
	}
	return usagef("%s: %s %q is %s: give the path of a file%s", name, flag, path, what, hint)
}

// writeIfChanged writes data to path unless the file already holds it, and
// reports whether it wrote. It writes a temporary file beside path and
// renames it, so that a failure never leaves half a snapshot.
func writeIfChanged(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	return true, nil
}
