package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// A PromptHandler answers one prompts/get of a prompt. args are the
// arguments the client sent; every required argument is among them. A
// *runtime.RPCError it returns is sent as the request's JSON-RPC error; any
// other error, or a panic, as an internal error.
type PromptHandler func(ctx context.Context, args map[string]string) (*runtime.GetPromptResult, error)

// Prompt is one prompt a Server offers: how prompts/list shows it, and the
// handler that answers prompts/get.
type Prompt struct {
	// Prompt is the prompt as prompts/list lists it: its Raw bytes when
	// set, and its members otherwise. Its required arguments must be in
	// every prompts/get.
	Prompt runtime.Prompt
	// Handle answers prompts/get.
	Handle PromptHandler
}

// prompt is a Prompt with its listing.
type prompt struct {
	def    runtime.Prompt
	handle PromptHandler
	listed json.RawMessage
}

// UnknownPromptError returns the error a Server answers prompts/get of an
// unknown prompt with: a JSON-RPC invalid-params error naming it.
func UnknownPromptError(name string) *runtime.RPCError {
	return &runtime.RPCError{Code: runtime.CodeInvalidParams, Message: "Unknown prompt: " + name}
}

// addPrompts checks and indexes the prompts of a new Server.
func (s *Server) addPrompts(prompts []Prompt) error {
	s.prompts = make(map[string]*prompt, len(prompts))
	for i, p := range prompts {
		name := p.Prompt.Name
		switch {
		case name == "":
			return fmt.Errorf("server: prompt %d has no name", i)
		case p.Handle == nil:
			return fmt.Errorf("server: prompt %s has no handler", name)
		case s.prompts[name] != nil:
			return fmt.Errorf("server: prompt %s is listed twice", name)
		}
		sp := &prompt{def: p.Prompt, handle: p.Handle, listed: p.Prompt.Raw}
		if len(sp.listed) == 0 {
			sp.listed = encodePrompt(p.Prompt)
		}
		s.prompts[name] = sp
		s.promptOrder = append(s.promptOrder, sp)
	}
	return nil
}

// encodePrompt encodes a prompt as prompts/list lists it.
func encodePrompt(p runtime.Prompt) json.RawMessage {
	type arg struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
	}
	args := make([]arg, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = arg(a)
	}
	b, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Arguments   []arg  `json:"arguments,omitempty"`
	}{p.Name, p.Title, p.Description, args})
	return b
}

// listPrompts answers prompts/list with every prompt on one page.
func (s *Server) listPrompts(req *request) (json.RawMessage, *runtime.RPCError) {
	listed := make([]json.RawMessage, len(s.promptOrder))
	for i, p := range s.promptOrder {
		listed[i] = p.listed
	}
	return s.listing(req, "prompts", listed)
}

// getPrompt answers prompts/get.
func (s *Server) getPrompt(ctx context.Context, req *request) (json.RawMessage, *runtime.RPCError) {
	p := s.prompts[req.p.Name]
	if p == nil {
		return nil, UnknownPromptError(req.p.Name)
	}
	var args map[string]string
	if raw := req.p.Arguments; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, rpcError(runtime.CodeInvalidParams, "prompts/get "+p.def.Name+": the arguments are not an object of strings")
		}
	}
	for _, a := range p.def.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, rpcError(runtime.CodeInvalidParams, "prompts/get "+p.def.Name+": missing required argument "+a.Name)
		}
	}
	res, err := runPrompt(ctx, p, args)
	var rpc *runtime.RPCError
	switch {
	case errors.As(err, &rpc):
		return nil, rpc
	case err != nil:
		return nil, rpcError(runtime.CodeInternalError, "prompt "+p.def.Name+": "+err.Error())
	case res == nil:
		res = &runtime.GetPromptResult{}
	}
	type message struct {
		Role    string          `json:"role"`
		Content runtime.Content `json:"content"`
	}
	msgs := make([]message, len(res.Messages))
	for i, m := range res.Messages {
		msgs[i] = message(m)
	}
	body, err := json.Marshal(struct {
		Description string          `json:"description,omitempty"`
		Messages    []message       `json:"messages"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}{res.Description, msgs, res.Meta})
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, "encoding the result of prompt "+p.def.Name+": "+err.Error())
	}
	return s.complete(req, body[1:len(body)-1]), nil
}

// runPrompt calls the prompt's handler, turning a panic into an error.
func runPrompt(ctx context.Context, p *prompt, args map[string]string) (res *runtime.GetPromptResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("the handler panicked: %v", v)
		}
	}()
	return p.handle(ctx, args)
}
