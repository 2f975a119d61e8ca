// Package agent is the conversation loop that runtime/gemini,
// runtime/anthropic and runtime/openai share: how many model requests a
// turn of the user may take, and what happens to the tool calls of the
// model's last turn when the loop stops early.
package agent

import (
	"context"
	"errors"
	"fmt"
)

// DefaultMaxSteps is the number of model requests one run makes at most
// when no limit is set.
const DefaultMaxSteps = 10

// ErrMaxSteps is returned (wrapped) when the model still asks for tools
// after the last allowed request.
var ErrMaxSteps = errors.New("the model kept calling tools past the step limit")

// A Model is one conversation, seen by the loop. C is a provider's tool
// call.
type Model[C any] interface {
	// Request sends the history to the model, appends the model's turn to
	// the history, and returns the tool calls it holds. No calls means the
	// model answered.
	Request(ctx context.Context) ([]C, error)
	// Run runs the calls of one model turn and appends their results to
	// the history.
	Run(ctx context.Context, calls []C)
	// Skip appends results saying that the calls were not run, and why,
	// so that the history stays valid for a later request.
	Skip(calls []C, why string)
}

// Loop asks the model and runs its tool calls until it answers, making at
// most maxSteps requests (DefaultMaxSteps when maxSteps is not positive).
//
// No tool call starts once the loop has decided to stop: the calls of the
// turn that reaches the limit are not run, and neither are the calls of a
// turn that arrives after ctx was cancelled; both are recorded through
// Skip. Loop returns nil when the model answered, an error wrapping
// ErrMaxSteps at the limit, and ctx's error when it was cancelled.
func Loop[C any](ctx context.Context, maxSteps int, m Model[C]) error {
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	for step := 1; ; step++ {
		calls, err := m.Request(ctx)
		if err != nil {
			return err
		}
		if len(calls) == 0 {
			return nil
		}
		if step >= maxSteps {
			m.Skip(calls, fmt.Sprintf("the conversation reached its limit of %d model requests first", maxSteps))
			return fmt.Errorf("%w (%d requests)", ErrMaxSteps, maxSteps)
		}
		if err := ctx.Err(); err != nil {
			m.Skip(calls, "the conversation was cancelled")
			return err
		}
		m.Run(ctx, calls)
	}
}
