package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Elicitation modes and actions.
const (
	// ElicitForm asks for values that fit RequestedSchema.
	ElicitForm = "form"
	// ElicitURL asks the user to visit URL (2025-11-25 and later).
	ElicitURL = "url"

	// ElicitAccept, ElicitDecline and ElicitCancel are the actions of an
	// ElicitResult: the user submitted, refused, or dismissed the request.
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitRequest is a server's request for input from the user: an
// elicitation/create request of the legacy era, or an input request of a
// 2026-07-28 tools/call.
type ElicitRequest struct {
	// Server is the server that asks, to be shown to the user.
	Server Implementation
	// Mode is ElicitForm or ElicitURL; a request without a mode is a form.
	Mode string
	// Message says what the server wants and why.
	Message string
	// RequestedSchema is the form's JSON Schema: an object of primitive
	// properties. Set in form mode.
	RequestedSchema json.RawMessage
	// URL and ElicitationID are set in URL mode. The user must consent
	// before the URL is opened; accepting means only that consent. URL is
	// an absolute http or https URL with a host: the Session declines any
	// other (javascript:, file:, data:, ...) without calling the handler.
	URL           string
	ElicitationID string
}

// ElicitResult is the answer to an ElicitRequest. Content holds the form's
// values when Action is ElicitAccept in form mode.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationHandler answers a server's elicitation request, usually by
// asking the user. Returning an error declines the request; a handler that
// outlives Options.HandlerTimeout cancels it.
type ElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)

// elicitParams is the wire form of an elicitation request.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
}

// elicit runs the elicitation handler for the raw params of a request and
// returns the ElicitResult to send. A handler error becomes a decline and a
// handler timeout a cancel, so that the server always gets an answer; the
// error returned is only for bad params.
func (s *Session) elicit(ctx context.Context, params []byte) ([]byte, error) {
	var p elicitParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create: malformed params: " + err.Error()}
		}
	}
	if p.Mode == "" {
		p.Mode = ElicitForm
	}
	if p.Mode != ElicitForm && p.Mode != ElicitURL {
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("elicitation/create: unsupported mode %s", s.quote(p.Mode))}
	}
	if v := s.declaredVersion(); p.Mode == ElicitURL && v != "" && v < "2025-11-25" {
		// Before 2025-11-25 the capability names no modes: it is form
		// mode alone.
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("elicitation/create: unsupported mode %s: the client declared form mode only", s.quote(p.Mode))}
	}
	req := &ElicitRequest{
		Mode:            p.Mode,
		Message:         p.Message,
		RequestedSchema: p.RequestedSchema,
		URL:             p.URL,
		ElicitationID:   p.ElicitationID,
	}
	if st := s.state.Load(); st != nil {
		req.Server = st.serverInfo
	}
	if req.Mode == ElicitURL && !isWebURL(req.URL) {
		// A javascript:, file: or data: URL has no page to visit and no
		// domain to show the user; it is never shown, and declined.
		s.log.Warn("declined a URL elicitation whose URL is not http or https", "url", snippet([]byte(s.scrub(req.URL))))
		return json.Marshal(&ElicitResult{Action: ElicitDecline})
	}
	res, err := runHandler(ctx, s.opts.HandlerTimeout, "elicitation/create", func(ctx context.Context) (*ElicitResult, error) {
		return s.opts.Elicitation(ctx, req)
	})
	if err == nil && res == nil {
		err = errors.New("the elicitation handler returned no result")
	}
	if err == nil {
		err = checkElicitResult(req, res)
	}
	if err != nil {
		action := ElicitDecline
		var te *HandlerTimeoutError
		if errors.As(err, &te) {
			action = ElicitCancel
		}
		s.log.Warn("answering an elicitation request with "+action, "error", err)
		return json.Marshal(&ElicitResult{Action: action})
	}
	return json.Marshal(res)
}

// checkElicitResult checks a handler's answer and, for an accepted form,
// fills in the schema's defaults and validates the values.
func checkElicitResult(req *ElicitRequest, res *ElicitResult) error {
	switch res.Action {
	case ElicitAccept:
	case ElicitDecline, ElicitCancel:
		res.Content = nil
		return nil
	default:
		return fmt.Errorf("the elicitation handler returned action %q (want accept, decline or cancel)", res.Action)
	}
	if req.Mode == ElicitURL {
		res.Content = nil
		return nil
	}
	var err error
	if res.Content, err = ApplyElicitationDefaults(req.RequestedSchema, res.Content); err != nil {
		return err
	}
	return ValidateElicitation(req.RequestedSchema, res.Content)
}

// ElicitationField is one property of an elicitation form.
type ElicitationField struct {
	Name        string
	Title       string
	Description string
	// Type is the JSON Schema type: string, number, integer, boolean or
	// array (a multi-select).
	Type     string
	Format   string
	Required bool
	// Default is the property's default, nil when it has none.
	Default any
	// Enum lists the allowed values of a single or multi-select, with their
	// display names in EnumNames when the schema gives them.
	Enum      []string
	EnumNames []string
}

// ElicitationFields returns the properties of an elicitation form schema, in
// the order the schema lists them.
func ElicitationFields(schema json.RawMessage) ([]ElicitationField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	props := &jsontree.Node{Kind: jsontree.Object}
	if len(s.Properties) > 0 && string(s.Properties) != "null" {
		var err error
		if props, err = jsontree.ParseUnique(s.Properties); err != nil {
			return nil, fmt.Errorf("requestedSchema: properties: %w", err)
		}
		if props.Kind != jsontree.Object {
			return nil, errors.New("requestedSchema: properties: not an object")
		}
	}
	required := make(map[string]bool, len(s.Required))
	for _, r := range s.Required {
		required[r] = true
	}
	fields := make([]ElicitationField, 0, len(props.Members))
	for _, m := range props.Members {
		name := m.Key
		var p struct {
			Type        string          `json:"type"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			Format      string          `json:"format"`
			Default     json.RawMessage `json:"default"`
			Enum        []string        `json:"enum"`
			EnumNames   []string        `json:"enumNames"`
			OneOf       []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
			AnyOf []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"anyOf"`
			Items struct {
				Enum  []string `json:"enum"`
				AnyOf []struct {
					Const string `json:"const"`
					Title string `json:"title"`
				} `json:"anyOf"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(m.Value.String()), &p); err != nil {
			return nil, fmt.Errorf("requestedSchema: /properties/%s: %w", jsontree.EscapeToken(name), err)
		}
		f := ElicitationField{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Format: p.Format, Required: required[name], Enum: p.Enum, EnumNames: p.EnumNames}
		consts := p.OneOf
		if len(consts) == 0 {
			consts = p.AnyOf
		}
		if p.Type == "array" {
			f.Enum, consts = p.Items.Enum, p.Items.AnyOf
		}
		if len(f.Enum) == 0 {
			for _, c := range consts {
				f.Enum = append(f.Enum, c.Const)
				f.EnumNames = append(f.EnumNames, c.Title)
			}
		}
		if len(p.Default) > 0 && !bytes.Equal(p.Default, []byte("null")) {
			if err := json.Unmarshal(p.Default, &f.Default); err != nil {
				return nil, fmt.Errorf("requestedSchema: /properties/%s/default: %w", jsontree.EscapeToken(name), err)
			}
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// ApplyElicitationDefaults returns content with the default of every
// property of schema that content lacks (SEP-1034). content may be nil.
func ApplyElicitationDefaults(schema json.RawMessage, content map[string]any) (map[string]any, error) {
	fields, err := ElicitationFields(schema)
	if err != nil {
		return content, err
	}
	for _, f := range fields {
		if f.Default == nil {
			continue
		}
		if _, ok := content[f.Name]; ok {
			continue
		}
		if content == nil {
			content = make(map[string]any, len(fields))
		}
		content[f.Name] = f.Default
	}
	return content, nil
}

// ValidateElicitation checks the values of an accepted form against its
// schema. The error names the first offending property by JSON pointer.
func ValidateElicitation(schema json.RawMessage, content map[string]any) error {
	if len(schema) == 0 {
		return nil
	}
	if content == nil {
		content = map[string]any{}
	}
	b, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("elicitation content: %w", err)
	}
	return NewSchema("the elicitation form", schema).Validate(b)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isWebURL reports whether raw is an absolute http or https URL with a host.
func isWebURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
}
