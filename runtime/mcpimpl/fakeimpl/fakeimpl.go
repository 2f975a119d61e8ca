// Package fakeimpl holds the helpers the fake part of a package generated
// by mcpgen calls (fake.go): they build a runtime/server Server on the
// package's typed Handler. Like package mcpimpl, it is for generated code
// only, and changes whenever the generator does; it is apart from mcpimpl
// so that only packages generated with the fake part link the server.
package fakeimpl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Served is one tool, prompt or resource template that a generated
// package's Handler answers, as NewServer puts it in a server.Server.
type Served[H any] struct {
	tool         string
	makeTool     func(h H) server.ToolHandler
	prompt       string
	makePrompt   func(h H, p runtime.Prompt) (server.PromptHandler, error)
	template     string
	makeTemplate func(h H) server.ResourceHandler
}

// NewServer is the body of a generated NewServer: a server.Server offering
// tools, each answered by the Served of its name, and the prompts and
// resource templates of served, all answered by h, followed by those of
// opts.
func NewServer[H any](h H, tools []runtime.Tool, opts *server.Options, served ...Served[H]) (*server.Server, error) {
	if any(h) == nil {
		return nil, errors.New("the handler of the fake server is nil")
	}
	var o server.Options
	if opts != nil {
		o = *opts
	}
	// The options' own prompts and templates come after the package's.
	extraPrompts, extraTemplates := o.Prompts, o.ResourceTemplates
	o.Prompts, o.ResourceTemplates = nil, nil
	byName := make(map[string]Served[H], len(served))
	for _, s := range served {
		switch {
		case s.makeTool != nil:
			byName[s.tool] = s
		case s.makePrompt != nil:
			p, err := runtime.ParsePrompt([]byte(s.prompt))
			if err != nil {
				return nil, fmt.Errorf("decoding prompt %s: %w", s.prompt, err)
			}
			handle, err := s.makePrompt(h, p)
			if err != nil {
				return nil, fmt.Errorf("prompt %s: %w", p.Name, err)
			}
			o.Prompts = append(o.Prompts, server.Prompt{Prompt: p, Handle: handle})
		case s.makeTemplate != nil:
			t, err := runtime.ParseResourceTemplate([]byte(s.template))
			if err != nil {
				return nil, fmt.Errorf("decoding resource template %s: %w", s.template, err)
			}
			o.ResourceTemplates = append(o.ResourceTemplates, server.ResourceTemplate{Template: t, Handle: s.makeTemplate(h)})
		}
	}
	o.Prompts = append(o.Prompts, extraPrompts...)
	o.ResourceTemplates = append(o.ResourceTemplates, extraTemplates...)
	table := make([]server.Tool, len(tools))
	for i, t := range tools {
		s, ok := byName[t.Name]
		if !ok {
			return nil, fmt.Errorf("tool %s has no handler: regenerate the package", t.Name)
		}
		table[i] = server.Tool{Tool: t, Handle: s.makeTool(h)}
	}
	return server.New(table, &o)
}

// ServeTool serves the tool named tool, which has no output schema: method,
// a method expression of the Handler interface, gets the arguments decoded
// into the tool's arguments struct.
func ServeTool[H, A any](tool string, method func(H, context.Context, A) (*runtime.Result, error)) Served[H] {
	return Served[H]{tool: tool, makeTool: func(h H) server.ToolHandler {
		return func(ctx context.Context, raw json.RawMessage) (*runtime.Result, error) {
			var args A
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("decoding the arguments: %w", err)
			}
			return method(h, ctx, args)
		}
	}}
}

// ServeToolInto serves the tool named tool, which has an output schema: the
// result method returns is sent as the structured content, and as its JSON
// text in a text block for clients that read no structured content.
func ServeToolInto[H, A, R any](tool string, method func(H, context.Context, A) (*R, error)) Served[H] {
	return Served[H]{tool: tool, makeTool: func(h H) server.ToolHandler {
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

// ServePrompt serves the prompt that prompt, its JSON as prompts/list lists
// it, describes: method gets the arguments in the prompt's arguments
// struct, A, whose exported fields are the prompt's arguments in their
// order, each a string.
func ServePrompt[H, A any](prompt string, method func(H, context.Context, A) (*runtime.GetPromptResult, error)) Served[H] {
	return Served[H]{prompt: prompt, makePrompt: func(h H, p runtime.Prompt) (server.PromptHandler, error) {
		fields, err := argFields(reflect.TypeFor[A](), p)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, raw map[string]string) (*runtime.GetPromptResult, error) {
			var args A
			v := reflect.ValueOf(&args).Elem()
			for i, a := range p.Arguments {
				v.Field(fields[i]).SetString(raw[a.Name])
			}
			return method(h, ctx, args)
		}, nil
	}}
}

// argFields returns the indices of the fields of t, a prompt's arguments
// struct, that hold the prompt's arguments, in their order. The arguments
// are matched to fields by position, not by their JSON names: the field
// of an argument whose name a struct tag cannot hold is left out of the
// struct's JSON.
func argFields(t reflect.Type, p runtime.Prompt) ([]int, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("the arguments type %s is not a struct", t)
	}
	var fields []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			if f.Type.Kind() != reflect.String {
				return nil, fmt.Errorf("field %s of the arguments type %s is not a string", f.Name, t)
			}
			fields = append(fields, i)
		}
	}
	if len(fields) != len(p.Arguments) {
		return nil, fmt.Errorf("the arguments type %s has %d fields for %d arguments: regenerate the package", t, len(fields), len(p.Arguments))
	}
	return fields, nil
}

// ServeTemplate serves the resource template that template, its JSON as
// resources/templates/list lists it, describes: method gets the variables
// the URI matched in the template's parameter struct.
func ServeTemplate[H, P any](template string, method func(H, context.Context, P) (*runtime.ReadResourceResult, error)) Served[H] {
	return Served[H]{template: template, makeTemplate: func(h H) server.ResourceHandler {
		return func(ctx context.Context, _ string, vars map[string]any) (*runtime.ReadResourceResult, error) {
			var params P
			if err := remarshal(vars, &params); err != nil {
				return nil, fmt.Errorf("decoding the variables: %w", err)
			}
			return method(h, ctx, params)
		}
	}}
}

// remarshal decodes v, a map of strings or lists of them, into out, a
// struct whose fields have the map's keys as JSON names.
func remarshal(v any, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// Unimplemented is what the tool methods of a generated
// UnimplementedHandler return: the error a server answers a call of an
// unknown tool with.
func Unimplemented(tool string) error {
	return server.UnknownToolError(tool)
}

// UnimplementedPrompt is what the prompt methods of a generated
// UnimplementedHandler return: the error a server answers prompts/get of
// an unknown prompt with.
func UnimplementedPrompt(prompt string) error {
	return server.UnknownPromptError(prompt)
}

// UnimplementedTemplate is what the resource template methods of a
// generated UnimplementedHandler return: the error a server answers
// resources/read of an unknown resource with.
func UnimplementedTemplate() error {
	return server.ErrResourceNotFound
}
