package mcpimpl

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// PromptGetter is what a generated Client's prompt methods need of its
// runtime.Caller: a *runtime.Session has it.
type PromptGetter interface {
	GetPrompt(ctx context.Context, name string, args map[string]string) (*runtime.GetPromptResult, error)
}

// PromptArg is one argument a generated prompt method sends: its name, its
// value, and whether it is sent when empty.
type PromptArg struct {
	Name, Value string
	Required    bool
}

// RequiredArg returns a *runtime.ValidationError for a required argument of
// the prompt whose value is empty, and nil otherwise. Generated Validate
// methods of prompt arguments call it.
func RequiredArg(prompt, name, value string) error {
	if value != "" {
		return nil
	}
	return &runtime.ValidationError{Tool: "prompt " + prompt, Pointer: Pointer(name), Reason: "the argument is required and must not be empty"}
}

// GetPrompt is the body of a generated prompt method: it validates args,
// and gets the prompt through c, which must be a PromptGetter, with the
// arguments that are required or not empty.
func GetPrompt(ctx context.Context, c runtime.Caller, prompt string, args Args, list []PromptArg) (*runtime.GetPromptResult, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pg, ok := c.(PromptGetter)
	if !ok {
		return nil, fmt.Errorf("getting prompt %q: the client's caller (%T) does not get prompts; use a *runtime.Session", prompt, c)
	}
	var m map[string]string
	for _, a := range list {
		if a.Value == "" && !a.Required {
			continue
		}
		if m == nil {
			m = make(map[string]string, len(list))
		}
		m[a.Name] = a.Value
	}
	return pg.GetPrompt(ctx, prompt, m)
}
