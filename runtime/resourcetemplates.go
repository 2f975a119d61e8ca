package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// ResourceTemplate is one resource template a server lists in
// resources/templates/list: an RFC 6570 URI template and what the resources
// it names are.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Raw is the whole template object as the server sent it, unknown keys
	// included.
	Raw json.RawMessage
}

// ListResourceTemplates returns every resource template the server lists,
// following each page's cursor under the same bounds as ListTools.
func (s *Session) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return listItems(ctx, s, "resources/templates/list", "resourceTemplates", "resource template", ParseResourceTemplate)
}

// ParseResourceTemplate decodes one resource template as a server lists it
// in a resources/templates/list result, or as a snapshot keeps it. Members
// are matched by their exact names; Raw is a copy of raw.
func ParseResourceTemplate(raw []byte) (ResourceTemplate, error) {
	t := ResourceTemplate{Raw: bytes.Clone(raw)}
	err := jsonrpc.ObjectEach(t.Raw, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		var text *string
		switch string(k) {
		case "uriTemplate":
			text = &t.URITemplate
		case "name":
			text = &t.Name
		case "title":
			text = &t.Title
		case "description":
			text = &t.Description
		case "mimeType":
			text = &t.MIMEType
		}
		if text == nil || jsonrpc.IsNull(v) {
			return nil
		}
		if *text, err = jsonrpc.String(v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	switch {
	case t.Name == "":
		return t, errors.New("the resource template has no name")
	case t.URITemplate == "":
		return t, fmt.Errorf("resource template %s has no uriTemplate", redact.Quote(t.Name))
	}
	return t, nil
}
