package mcpimpl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// A ToolServer makes the server.ToolHandler of one tool from a generated
// package's Handler.
type ToolServer[H any] struct {
	tool string
	make func(h H) server.ToolHandler
}

// NewServer is the body of a generated NewServer: a server.Server offering
// tools, each answered by the ToolServer of its name, made from h.
func NewServer[H any](h H, tools []runtime.Tool, opts *server.Options, handlers ...ToolServer[H]) (*server.Server, error) {
	if any(h) == nil {
		return nil, errors.New("the handler of the fake server is nil")
	}
	byName := make(map[string]ToolServer[H], len(handlers))
	for _, ts := range handlers {
		byName[ts.tool] = ts
	}
	table := make([]server.Tool, len(tools))
	for i, t := range tools {
		ts, ok := byName[t.Name]
		if !ok {
			return nil, fmt.Errorf("tool %s has no handler: regenerate the package", t.Name)
		}
		table[i] = server.Tool{Tool: t, Handle: ts.make(h)}
	}
	return server.New(table, opts)
}

// ServeTool is the ToolServer of the tool named tool, which has no output
// schema: method, a method expression of the Handler interface, gets the
// arguments decoded into the tool's arguments struct.
func ServeTool[H, A any](tool string, method func(H, context.Context, A) (*runtime.Result, error)) ToolServer[H] {
	return ToolServer[H]{tool, func(h H) server.ToolHandler {
		return func(ctx context.Context, raw json.RawMessage) (*runtime.Result, error) {
			var args A
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("decoding the arguments: %w", err)
			}
			return method(h, ctx, args)
		}
	}}
}

// ServeToolInto is the ToolServer of the tool named tool, which has an
// output schema: the result method returns is sent as the structured
// content, and as its JSON text in a text block for clients that read no
// structured content.
func ServeToolInto[H, A, R any](tool string, method func(H, context.Context, A) (*R, error)) ToolServer[H] {
	return ToolServer[H]{tool, func(h H) server.ToolHandler {
		return func(ctx context.Context, raw json.RawMessage) (*runtime.Result, error) {
			var args A
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("decoding the arguments: %w", err)
			}
			out, err := method(h, ctx, args)
			if err != nil {
				return nil, err
			}
			if out == nil {
				return nil, errors.New("the handler returned neither a result nor an error")
			}
			data, err := json.Marshal(out)
			if err != nil {
				return nil, fmt.Errorf("encoding the result: %w", err)
			}
			return &runtime.Result{
				Content:           []runtime.Content{{Type: runtime.ContentText, Text: string(data)}},
				StructuredContent: data,
			}, nil
		}
	}}
}

// Unimplemented is what the methods of a generated UnimplementedHandler
// return: the error a server answers a call of an unknown tool with.
func Unimplemented(tool string) error {
	return server.UnknownToolError(tool)
}
