package gemini

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// SetConfirmation makes the toolset ask c.Ask before it runs a call that
// c's policy covers; a nil c asks nothing. A declined call never reaches
// the server: its response says that the user declined it. It returns an
// error when c has no Ask or names a tool the toolset does not have. Call
// it before the toolset is used.
func (ts *Toolset) SetConfirmation(c *runtime.Confirmation) error {
	if err := ts.tools.Confirm(c); err != nil {
		return fmt.Errorf("gemini toolset: %w", err)
	}
	return nil
}
