package cli

import (
	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/runtime"
)

// demoteUnselected lowers to INFO every change to a tool that the server's
// package leaves out (tools: in mcpgen.yaml) and drops its GO_API marker,
// since no generated code or declaration depends on that tool. The change
// is still listed, and its Why says so: the snapshot, and SnapshotHash,
// still cover the whole server.
func demoteUnselected(r *diff.Report, f runtime.ToolFilter) {
	if f.IsZero() {
		return
	}
	n := 0
	for i := range r.Changes {
		c := &r.Changes[i]
		if c.Tool == "" || f.Keep(c.Tool) {
			continue // prompts and resource templates are not selected
		}
		n++
		c.Severity, c.GoAPI = diff.Info, false
		c.Why += " The package generated for this server leaves this tool out (tools: in mcpgen.yaml), so the change is INFO."
	}
	if n > 0 {
		r.Warnings = append(r.Warnings, "changes to tools the generated package leaves out are reported as INFO")
	}
}
