package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/generator/diff"
)

var checkCommand = &command{
	name:    "check",
	summary: "compare a live server with its checked-in snapshot",
	run:     runCheck,
}

const checkHelp = `--snapshot FILE [--format text|json|markdown] [--fail-on ERR|WARN|INFO] ` + serverUsage + `
       mcpgen check --config mcpgen.yaml [--server NAME]... [--format ...] [--fail-on ...]

Captures the server's tool list and classifies every change since the
snapshot, with the rules and report formats of mcpgen diff. FILE may also
be REV:path, read from git, or "-" for standard input. The snapshot must
come from the same server: a different server name in its header is an
error.

With --config, every server of the file (or each one named by --server) is
checked against the snapshot its entry gives, one report per server; the
JSON format then prints an array of reports.

Exit status: 0 when no change reaches the --fail-on severity, 1 when one
does, 2 when the arguments are wrong, a snapshot cannot be read, or a
server cannot be reached.

` + serverHelp

func runCheck(e *env, args []string) error {
	fs := newFlagSet(e, "check", checkHelp)
	var sf serverFlags
	sf.register(fs)
	var rf reportFlags
	rf.register(fs)
	var cf configFlags
	cf.register(fs)
	snapPath := fs.String("snapshot", "", "the checked-in snapshot `file` (or REV:path) to compare the server with (required without --config)")
	pos, err := parseLive(e, fs, &sf, &cf, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("check: unexpected argument %q (a snapshot goes with --snapshot FILE, a server command after --)", pos[0])
	}
	switch {
	case cf.file != "" && *snapPath != "":
		return usagef("check: --config gives each server's snapshot: drop --snapshot")
	case cf.file == "" && *snapPath == "":
		return usagef("check: --snapshot is required")
	}
	format, threshold, err := rf.parse()
	if err != nil {
		return err
	}
	if cf.file != "" {
		return checkConfig(e, &cf, &sf, format, threshold)
	}
	ctx, cancel := sf.context()
	defer cancel()
	r, err := checkServer(ctx, e, &sf, *snapPath, diff.Options{})
	if err != nil {
		return err
	}
	return writeReport(e, r, format, threshold)
}

// checkServer compares the server sf describes with the snapshot at spec,
// naming the Go identifiers as generate does with gen. Its errors are
// *usageError or *exitError with status 2: the check could not be made,
// or an *interruptedError.
func checkServer(ctx context.Context, e *env, sf *serverFlags, spec string, gen diff.Options) (*diff.Report, error) {
	want, err := loadSnapshot(ctx, e, spec)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	live, _, err := capture(ctx, e, sf)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, failUsage(err)
	}
	if want.Server.Name != "" && want.Server.Name != live.Server.Name {
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf(
			"snapshot %s is of server %q, but %s is server %q: check compares a server with its own snapshot (capture a new one with mcpgen snapshot, or compare two snapshots with mcpgen diff)",
			spec, want.Server.Name, sf.source(), orUnknown(live.Server.Name))}
	}
	r, err := compareSnapshots(ctx, spec, sf.source(), want, live, gen)
	if err != nil {
		return nil, failUsage(sf.explain(ctx, err))
	}
	r.Command = "mcpgen check"
	if want.Server.Version != "" && want.Server.Version != live.Server.Version {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the server's version changed from %s to %s", want.Server.Version, orUnknown(live.Server.Version)))
	}
	return r, nil
}

// checkConfig checks every selected server of a config file. A server that
// cannot be checked is reported on standard error, and in the JSON array as
// an entry with its error, and does not stop the others.
func checkConfig(e *env, cf *configFlags, base *serverFlags, format diff.Format, threshold diff.Severity) error {
	servers, flags, err := configServers(cf, base, false)
	if err != nil {
		return err
	}
	interrupted, stop := interruptContext()
	defer stop()
	var reports []*diff.Report
	failed, hits := 0, 0
	for i, s := range servers {
		if interrupted.Err() != nil {
			// The servers not yet checked are not started.
			failed += len(servers) - i
			break
		}
		r, err := func() (*diff.Report, error) {
			if err := flags[i].checkEnv(); err != nil {
				return nil, err
			}
			ctx, cancel := flags[i].contextIn(interrupted)
			defer cancel()
			return checkServer(ctx, e, flags[i], s.Snapshot, serverDiffOptions(s))
		}()
		if err != nil {
			failed++
			fmt.Fprintf(e.stderr, "mcpgen: server %s: %v\n", s.Name, err)
			if format == diff.FormatJSON {
				reports = append(reports, &diff.Report{Command: "mcpgen check (server " + s.Name + ")", Old: s.Snapshot, New: flags[i].source(), Error: err.Error()})
			}
			continue
		}
		r.Command = "mcpgen check (server " + s.Name + ")"
		demoteUnselected(r, s.Tools.Filter())
		hits += countAtLeast(r, threshold)
		reports = append(reports, r)
	}
	if err := diff.WriteAll(e.stdout, reports, format); err != nil {
		return err
	}
	switch {
	case failed > 0:
		code := exitUsage
		if interrupted.Err() != nil {
			code = exitInterrupt
		}
		return &exitError{code: code, msg: fmt.Sprintf("%d of %d server(s) could not be checked", failed, len(servers))}
	case hits > 0:
		return &exitError{code: exitFail, msg: fmt.Sprintf("%d change(s) at %s or above (--fail-on %s)", hits, threshold, threshold)}
	}
	return nil
}
