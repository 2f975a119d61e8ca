package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// ErrResourceNotFound is the error a ResourceHandler returns for a URI that
// names no resource: the Server answers it as a real server does, with
// -32002 up to 2025-11-25 and invalid params in the 2026-07-28 era.
var ErrResourceNotFound = errors.New("resource not found")

// A ResourceHandler answers resources/read of a URI that matched a resource
// template. vars holds the template's variables the URI gave, each a string
// or, for a variable the template explodes ({ids*}), a []string. A
// *runtime.RPCError it returns is sent as the request's JSON-RPC error, and
// ErrResourceNotFound as the error for an unknown resource; any other
// error, or a panic, as an internal error. An item of the result without a
// URI is sent with the URI read.
type ResourceHandler func(ctx context.Context, uri string, vars map[string]any) (*runtime.ReadResourceResult, error)

// ResourceTemplate is one resource template a Server offers: how
// resources/templates/list shows it, and the handler that reads the URIs it
// matches.
type ResourceTemplate struct {
	// Template is the template as resources/templates/list lists it: its
	// Raw bytes when set, and its members otherwise. Its URITemplate, an
	// RFC 6570 template, decides which URIs the handler reads.
	Template runtime.ResourceTemplate
	// Handle reads a resource of the template.
	Handle ResourceHandler
}

// template is a ResourceTemplate with its listing and its parsed template.
type template struct {
	def    runtime.ResourceTemplate
	handle ResourceHandler
	listed json.RawMessage
	parsed *uriMatcher
}

// addTemplates checks and keeps the resource templates of a new Server.
func (s *Server) addTemplates(templates []ResourceTemplate) error {
	seen := map[string]bool{}
	for i, t := range templates {
		name := t.Template.Name
		switch {
		case name == "":
			return fmt.Errorf("server: resource template %d has no name", i)
		case t.Handle == nil:
			return fmt.Errorf("server: resource template %s has no handler", name)
		case seen[name]:
			return fmt.Errorf("server: resource template %s is listed twice", name)
		}
		seen[name] = true
		parsed, err := newURIMatcher(t.Template.URITemplate)
		if err != nil {
			return fmt.Errorf("server: resource template %s: uriTemplate %q: %w", name, t.Template.URITemplate, err)
		}
		st := &template{def: t.Template, handle: t.Handle, listed: t.Template.Raw, parsed: parsed}
		if len(st.listed) == 0 {
			st.listed, _ = json.Marshal(struct {
				URITemplate string `json:"uriTemplate"`
				Name        string `json:"name"`
				Title       string `json:"title,omitempty"`
				Description string `json:"description,omitempty"`
				MIMEType    string `json:"mimeType,omitempty"`
			}{t.Template.URITemplate, name, t.Template.Title, t.Template.Description, t.Template.MIMEType})
		}
		s.templates = append(s.templates, st)
	}
	return nil
}

// listTemplates answers resources/templates/list with every template on
// one page.
func (s *Server) listTemplates(req *request) (json.RawMessage, *runtime.RPCError) {
	listed := make([]json.RawMessage, len(s.templates))
	for i, t := range s.templates {
		listed[i] = t.listed
	}
	return s.listing(req, "resourceTemplates", listed)
}

// resourceNotFound is the error to resources/read of a URI no template
// matches: -32002 up to 2025-11-25, invalid params in the 2026-07-28 era.
func resourceNotFound(req *request, uri string) *runtime.RPCError {
	code := runtime.CodeResourceNotFound
	if req.modern {
		code = runtime.CodeInvalidParams
	}
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &runtime.RPCError{Code: code, Message: "Resource not found", Data: data}
}

// readResource answers resources/read with the handler of the first
// template the URI matches.
func (s *Server) readResource(ctx context.Context, req *request) (json.RawMessage, *runtime.RPCError) {
	uri := req.p.URI
	if uri == "" {
		return nil, rpcError(runtime.CodeInvalidParams, "resources/read: params have no uri")
	}
	for _, t := range s.templates {
		vars := t.parsed.match(uri)
		if vars == nil {
			continue
		}
		res, err := runTemplate(ctx, t, uri, vars)
		var rpc *runtime.RPCError
		switch {
		case errors.As(err, &rpc):
			return nil, rpc
		case errors.Is(err, ErrResourceNotFound):
			return nil, resourceNotFound(req, uri)
		case err != nil:
			return nil, rpcError(runtime.CodeInternalError, "resource template "+t.def.Name+": "+err.Error())
		case res == nil:
			res = &runtime.ReadResourceResult{}
		}
		// An item whose URI the handler left empty is sent with the URI
		// read: the protocol requires one, and clients refuse items
		// without it.
		contents := make([]runtime.ResourceContents, len(res.Contents))
		for i, c := range res.Contents {
			if c.URI == "" {
				c.URI = uri
			}
			contents[i] = c
		}
		body, err := json.Marshal(struct {
			Contents []runtime.ResourceContents `json:"contents"`
			Meta     json.RawMessage            `json:"_meta,omitempty"`
		}{contents, res.Meta})
		if err != nil {
			return nil, rpcError(runtime.CodeInternalError, "encoding the resource "+uri+": "+err.Error())
		}
		return s.complete(req, s.cacheable(req, body[1:len(body)-1])), nil
	}
	return nil, resourceNotFound(req, uri)
}

// runTemplate calls the template's handler, turning a panic into an error.
func runTemplate(ctx context.Context, t *template, uri string, vars map[string]any) (res *runtime.ReadResourceResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("the handler panicked: %v", v)
		}
	}()
	return t.handle(ctx, uri, vars)
}
