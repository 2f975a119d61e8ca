package runtime

import (
	"context"
	"encoding/json"
)

// ToolAnnotations are the hints a server gives about what a tool does. A
// hint the server leaves out is nil and takes the default the protocol
// gives it: see ReadOnly and Destructive. They are hints: a server that is
// not trusted can say anything.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ParseAnnotations decodes a tool's annotations. Annotations that are
// absent or do not decode give the zero value, whose defaults are the
// cautious ones: not read-only, and destructive. Members are matched by
// their exact names, as the protocol spells them: a "DestructiveHint" is
// no destructiveHint, as it is none to every other reader of the listing.
func ParseAnnotations(raw json.RawMessage) ToolAnnotations {
	var members map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &members) != nil {
		return ToolAnnotations{}
	}
	var a ToolAnnotations
	for name, field := range map[string]any{
		"title":           &a.Title,
		"readOnlyHint":    &a.ReadOnlyHint,
		"destructiveHint": &a.DestructiveHint,
		"idempotentHint":  &a.IdempotentHint,
		"openWorldHint":   &a.OpenWorldHint,
	} {
		if v, ok := members[name]; ok && json.Unmarshal(v, field) != nil {
			return ToolAnnotations{}
		}
	}
	return a
}

// ReadOnly reports whether the tool says it does not change its
// environment (readOnlyHint, false by default).
func (a ToolAnnotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Destructive reports whether the tool may change its environment in a way
// that is not only additive: true when it says destructiveHint true, even
// if it also says it is read-only (contradictory hints count as
// destructive); otherwise false for a read-only tool, and destructiveHint,
// true by default, for the others.
func (a ToolAnnotations) Destructive() bool {
	if a.DestructiveHint != nil && *a.DestructiveHint {
		return true
	}
	if a.ReadOnly() {
		return false
	}
	return a.DestructiveHint == nil
}

// ConfirmPolicy says which tool calls a Confirmation asks about.
type ConfirmPolicy int

const (
	// ConfirmDestructive asks about the calls of destructive tools (see
	// ToolAnnotations.Destructive): every tool without annotations, every
	// tool that says destructiveHint true, and every tool not marked
	// read-only, unless it says destructiveHint false. It is the default.
	// With Confirmation.IgnoreAnnotations it asks about every tool but
	// those of Confirmation.ReadOnly.
	ConfirmDestructive ConfirmPolicy = iota
	// ConfirmEvery asks about every call.
	ConfirmEvery
	// ConfirmListed asks about the calls of the tools in
	// Confirmation.Tools only.
	ConfirmListed
)

// ProposedCall is a tool call a model asked for, as a Confirmation's Ask
// sees it: its arguments have passed the tool's input schema, and nothing
// has been sent to the server yet.
type ProposedCall struct {
	// Tool is the MCP tool, as the toolset was given it.
	Tool Tool
	// Annotations are the tool's annotations, decoded.
	Annotations ToolAnnotations
	// Arguments are the validated arguments, a JSON object.
	Arguments json.RawMessage
}

// Confirmation makes a model's tool calls wait for the user's consent. The
// toolsets of runtime/gemini, runtime/anthropic and runtime/openai take one
// (SetConfirmation). A call the user declines never reaches the server:
// the model is told that the user declined it, and can carry on.
type Confirmation struct {
	// Ask asks the user whether a call may run. It returns true to run
	// it. An error declines the call, and its text goes to the model. A
	// toolset calls Ask for one call at a time, even when a model turn
	// holds several calls; ctx is the conversation's.
	Ask func(ctx context.Context, call ProposedCall) (bool, error)
	// Policy says which calls Ask is asked about; the zero value is
	// ConfirmDestructive.
	Policy ConfirmPolicy
	// Tools are the MCP names of the tools ConfirmListed asks about.
	Tools []string
	// ReadOnly are the MCP names of tools that ConfirmDestructive takes as
	// read-only whatever their annotations say: for a server that sends
	// no annotations, the caller can mark the tools it knows only read.
	ReadOnly []string
	// IgnoreAnnotations makes ConfirmDestructive distrust the server's
	// annotations altogether: every tool counts as destructive, except
	// those the caller lists in ReadOnly. The protocol calls annotations
	// hints, which a server that is not trusted may get wrong on purpose;
	// this is the setting for such a server.
	IgnoreAnnotations bool
}
