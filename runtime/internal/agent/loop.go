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
	// the history, and returns the tool calls it holds: those the loop
	// runs, and those of tools the application declared itself, which are
	// the application's to answer. No calls of either kind means the model
	// answered. With an error, notRun still names the application's calls
	// of a turn that was appended.
	Request(ctx context.Context) (calls []C, notRun []NotRunCall, err error)
	// Run runs the calls of one model turn and appends their results to
	// the history. Where a provider wants all the answers to a turn in one
	// message (Claude, Gemini), it appends that message even for no calls,
	// for the application to complete.
	Run(ctx context.Context, calls []C)
	// Skip appends results saying that the calls were not run, and why,
	// so that the history stays valid for a later request; for no calls,
	// what Run appends for none.
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
//
// A turn that calls tools of the application's own ends the loop: the
// turn's other calls run (unless ctx is cancelled: they are skipped), no
// request follows, and Loop returns a *CallsNotRunError naming the
// application's calls, for the application to answer before it runs the
// loop again.
func Loop[C any](ctx context.Context, maxSteps int, m Model[C]) error {
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	for step := 1; ; step++ {
		calls, notRun, err := m.Request(ctx)
		if err != nil {
			return withNotRun(err, notRun)
		}
		if len(notRun) > 0 {
			if err := ctx.Err(); err != nil {
				m.Skip(calls, "the conversation was cancelled")
				return withNotRun(err, notRun)
			}
			m.Run(ctx, calls)
			return &CallsNotRunError{Calls: notRun}
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
