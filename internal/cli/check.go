package cli

import (
	"errors"
	"fmt"
)

var checkCommand = &command{
	name:    "check",
	summary: "compare a live server with its checked-in snapshot",
	run:     runCheck,
}

const checkHelp = `--snapshot FILE [--format text|json|markdown] [--fail-on ERR|WARN|INFO] ` + serverUsage + `

Captures the server's tool list and classifies every change since the
snapshot, with the rules and report formats of mcpgen diff. FILE may also
be REV:path, read from git. The snapshot must come from the same server:
a different server name in its header is an error.

Exit status: 0 when no change reaches the --fail-on severity, 1 when one
does, 2 when the arguments are wrong, the snapshot cannot be read, or the
server cannot be reached.

` + serverHelp

func runCheck(e *env, args []string) error {
	fs := newFlagSet(e, "check", checkHelp)
	var sf serverFlags
	sf.register(fs)
	var rf reportFlags
	rf.register(fs)
	snapPath := fs.String("snapshot", "", "the checked-in snapshot `file` (or REV:path) to compare the server with (required)")
	pos, err := sf.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("check: unexpected argument %q (a server command goes after --)", pos[0])
	}
	if *snapPath == "" {
		return usagef("check: --snapshot is required")
	}
	format, threshold, err := rf.parse()
	if err != nil {
		return err
	}
	ctx, cancel := sf.context()
	defer cancel()
	want, err := loadSnapshot(ctx, e, *snapPath)
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	live, _, err := capture(ctx, e, &sf)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return err
		}
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	if want.Server.Name != "" && want.Server.Name != live.Server.Name {
		return &exitError{code: exitUsage, msg: fmt.Sprintf(
			"snapshot %s is of server %q, but %s is server %q: check compares a server with its own snapshot (capture a new one with mcpgen snapshot, or compare two snapshots with mcpgen diff)",
			*snapPath, want.Server.Name, sf.source(), orUnknown(live.Server.Name))}
	}
	r, err := compareSnapshots(*snapPath, sf.source(), want, live)
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	r.Command = "mcpgen check"
	if want.Server.Version != "" && want.Server.Version != live.Server.Version {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the server's version changed from %s to %s", want.Server.Version, orUnknown(live.Server.Version)))
	}
	return writeReport(e, r, format, threshold)
}
