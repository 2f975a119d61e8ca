package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// CallsNotRunError reports the calls of a model turn that went to tools
// the application declared itself, beside the toolset's. The adapters
// export it under their own name, with their rules.
type CallsNotRunError struct {
	// Calls are the calls left for the application, in the model's order.
	Calls []NotRunCall
}

// NotRunCall is a call of one of the application's tools that a
// conversation did not run. Its fields are documented where the adapters
// export it.
type NotRunCall struct {
	// Type is the call's type as the provider's API names it.
	Type string
	// Name is the tool's name; empty for calls of tools without one.
	Name string
	// CallID is the ID its answer carries.
	CallID string
	// Input is what the model gave the tool: its arguments as JSON, or
	// a custom tool's free-form input.
	Input string
	// Item is the call as the API returned it.
	Item json.RawMessage
}

// maxNamedCalls bounds the calls the error message names.
const maxNamedCalls = 5

func (e *CallsNotRunError) Error() string {
	var b strings.Builder
	b.WriteString("the model called the application's own tools, which the conversation does not run: ")
	for i, c := range e.Calls {
		if i == maxNamedCalls {
			fmt.Fprintf(&b, " and %d more", len(e.Calls)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Type)
		if c.Name != "" {
			fmt.Fprintf(&b, " %q", c.Name)
		}
		fmt.Fprintf(&b, " (%q)", c.CallID)
	}
	b.WriteString("; answer each in History and call Run again")
	return b.String()
}

// withNotRun returns err joined with the error naming the calls left to the
// application.
func withNotRun(err error, calls []NotRunCall) error {
	if len(calls) == 0 {
		return err
	}
	return errors.Join(err, &CallsNotRunError{Calls: calls})
}
