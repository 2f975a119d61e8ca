package ir

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/schema"
)

// Defaults for Limits.
const (
	// DefaultMaxTools is the most tools one package is generated from.
	DefaultMaxTools = 10000
	// DefaultMaxSchemaDepth is how deeply schemas may nest, counting every
	// property, item, map value, union branch and $ref step on the way
	// down. The Gemini declarations have the same limit.
	DefaultMaxSchemaDepth = 64
	// DefaultMaxSchemaSteps is how many conversions and allOf merge steps
	// one tool's input or output schema may take. Shared definitions are
	// converted once, so only a schema that reaches them through very many
	// paths, each making a type of its own (a $ref with a constraint beside
	// it at every level of a fan-out), comes near it: the largest schema of
	// the corpus takes 899.
	DefaultMaxSchemaSteps = 50000
)

// Limits bound what Build accepts from a snapshot, so that a hostile or
// broken server cannot make generation run away. A zero field takes its
// default.
type Limits struct {
	MaxTools       int
	MaxSchemaDepth int
	MaxSchemaSteps int
}

func (l Limits) withDefaults() Limits {
	if l.MaxTools <= 0 {
		l.MaxTools = DefaultMaxTools
	}
	if l.MaxSchemaDepth <= 0 {
		l.MaxSchemaDepth = DefaultMaxSchemaDepth
	}
	if l.MaxSchemaSteps <= 0 {
		l.MaxSchemaSteps = DefaultMaxSchemaSteps
	}
	return l
}

// TooManyToolsError reports a tool list over Limits.MaxTools.
type TooManyToolsError struct {
	Count, Limit int
}

func (e *TooManyToolsError) Error() string {
	return fmt.Sprintf("the snapshot lists %d tools, more than the limit of %d", e.Count, e.Limit)
}

// StoppedError reports a build stopped by its Options.Context, such as the
// timeout of a command: Tool and Pointer say where it was. It matches
// the context's error with errors.Is.
type StoppedError struct {
	Tool, Pointer string
	Err           error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("building the Go types stopped at tool %q, %s: %v", e.Tool, e.Pointer, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// stopped counts one step of the conversion in the schema's budget, which
// its allOf merges share (see schema.Budget), and returns an error once the
// schema takes more than Limits.MaxSchemaSteps or the build's context is
// done (a *StoppedError). It is checked at every conversion and every
// $ref and allOf merge step, so that no schema keeps a build running.
func (c *converter) stopped(ptr string) error {
	return c.stepsError(c.budget.Step(ptr))
}

// checkContext is the budget's check that the build's context is not done.
func (c *converter) checkContext(ptr string) error {
	if c.ctx == nil {
		return nil
	}
	if err := c.ctx.Err(); err != nil {
		return &StoppedError{Tool: c.tool, Pointer: ptr, Err: err}
	}
	return nil
}

// stepsError words a spent step budget for the tool; other errors are
// returned as they are.
func (c *converter) stepsError(err error) error {
	if err == nil {
		return nil
	}
	var se *schema.StepsError
	if errors.As(err, &se) {
		return c.limitf(se.Pointer, "the schema takes more than %d steps to convert (conversions and allOf merges): it reaches its definitions through too many paths", se.Max)
	}
	return err
}

// limitf is errf for a schema over the Limits.
func (c *converter) limitf(ptr, format string, args ...any) error {
	return &Error{Tool: c.tool, Pointer: ptr, Msg: fmt.Sprintf(format, args...), limit: true}
}
