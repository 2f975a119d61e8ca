package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime"
)

// A Gate decides whether a call whose arguments passed validation may run.
// It returns "" to run it, or the message, for the model, saying why it was
// not run.
type Gate func(ctx context.Context, args json.RawMessage) string

// Confirmer applies a runtime.Confirmation for one toolset: it knows which
// tools need the user's consent, and asks about one call at a time.
type Confirmer struct {
	conf     runtime.Confirmation
	listed   map[string]bool
	readOnly map[string]bool
	// turn holds one token, taken while Ask runs: one question at a time,
	// and a call whose context ends while it waits for its turn leaves
	// the queue at once.
	turn chan struct{}
}

// NewConfirmer checks c against the MCP names of the toolset's tools and
// returns its Confirmer. A nil c gives a nil Confirmer, which asks nothing.
func NewConfirmer(c *runtime.Confirmation, tools []string) (*Confirmer, error) {
	if c == nil {
		return nil, nil
	}
	if c.Ask == nil {
		return nil, errors.New("confirmation: Ask is nil")
	}
	switch c.Policy {
	case runtime.ConfirmDestructive, runtime.ConfirmEvery, runtime.ConfirmListed:
	default:
		return nil, fmt.Errorf("confirmation: unknown policy %d", c.Policy)
	}
	cf := &Confirmer{conf: *c, listed: map[string]bool{}, readOnly: map[string]bool{}, turn: make(chan struct{}, 1)}
	for _, list := range []struct {
		field string
		names []string
		set   map[string]bool
	}{{"Tools", c.Tools, cf.listed}, {"ReadOnly", c.ReadOnly, cf.readOnly}} {
		for _, n := range list.names {
			if !slices.Contains(tools, n) {
				return nil, fmt.Errorf("confirmation: %s names %q, which is not a tool of the toolset", list.field, n)
			}
			list.set[n] = true
		}
	}
	return cf, nil
}

// ShareTurn makes cf ask its questions in turn with those of other, one at
// a time across both, as it does across its own calls. It does nothing
// when either is nil. Call it before cf is used.
func (cf *Confirmer) ShareTurn(other *Confirmer) {
	if cf != nil && other != nil {
		cf.turn = other.turn
	}
}

// Gate returns the gate for calls of tool: nil when its calls need no
// consent.
func (cf *Confirmer) Gate(tool runtime.Tool) Gate {
	if cf == nil {
		return nil
	}
	ann := runtime.ParseAnnotations(tool.Annotations)
	switch cf.conf.Policy {
	case runtime.ConfirmListed:
		if !cf.listed[tool.Name] {
			return nil
		}
	case runtime.ConfirmDestructive:
		if cf.readOnly[tool.Name] || !cf.conf.IgnoreAnnotations && !ann.Destructive() {
			return nil
		}
	}
	return func(ctx context.Context, args json.RawMessage) string {
		select {
		case cf.turn <- struct{}{}:
		case <-ctx.Done():
			return NotRun(tool.Name, "the conversation was cancelled")
		}
		defer func() { <-cf.turn }()
		if ctx.Err() != nil {
			return NotRun(tool.Name, "the conversation was cancelled")
		}
		ok, err := askSafely(ctx, cf.conf.Ask, runtime.ProposedCall{Tool: tool, Annotations: ann, Arguments: args})
		switch {
		case ctx.Err() != nil:
			return NotRun(tool.Name, "the conversation was cancelled")
		case err != nil:
			return fmt.Sprintf("the call to %s was not run: asking the user for confirmation failed: %v", tool.Name, err)
		case !ok:
			return fmt.Sprintf("the user declined the call to %s; it was not run", tool.Name)
		}
		return ""
	}
}

// askSafely calls ask, turning a panic into an error.
func askSafely(ctx context.Context, ask func(context.Context, runtime.ProposedCall) (bool, error), call runtime.ProposedCall) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("internal error: %v", p)
		}
	}()
	return ask(ctx, call)
}

// NotRun returns the message for a call that was not run, and why.
func NotRun(tool, why string) string {
	return fmt.Sprintf("the call to %s was not run: %s", tool, why)
}
