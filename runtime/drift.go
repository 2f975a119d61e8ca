package runtime

import "log/slog"

// DriftError reports that the server's live tool list differs from the
// snapshot a generated package was made from.
type DriftError struct {
	Snapshot string // the generated package's SnapshotHash
	Live     string // ToolsHash of the tools the server lists now
}

func (e *DriftError) Error() string {
	return "the server's tools changed since the snapshot (snapshot " + e.Snapshot + ", server " + e.Live +
		"): regenerate the package or review the difference with mcpgen diff"
}

// checkDrift compares tools with Options.SnapshotHash: it logs a warning the
// first time they differ, and returns a *DriftError with FailOnDrift. With
// no Options.Logger the warning goes to slog.Default(), since setting
// SnapshotHash asks for it; the Session's other records are still discarded.
func (s *Session) checkDrift(tools []Tool) error {
	if s.opts.SnapshotHash == "" {
		return nil
	}
	live := ToolsHash(tools)
	if live == s.opts.SnapshotHash {
		return nil
	}
	err := &DriftError{Snapshot: s.opts.SnapshotHash, Live: live}
	if s.opts.FailOnDrift {
		return err
	}
	s.driftOnce.Do(func() {
		log := s.opts.Logger
		if log == nil {
			log = slog.Default()
		}
		log.Warn("the server's tools differ from the snapshot", "snapshot", err.Snapshot, "server", err.Live)
	})
	return nil
}
