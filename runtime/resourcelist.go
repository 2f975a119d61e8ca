package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Resource is one resource a server lists in resources/list: a URI to read
// with ReadResource, and what it holds.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Size is the resource's size in bytes, as the server estimates it
	// before encoding; -1 when it gave none.
	Size int64
	// Raw is the whole resource object as the server sent it, unknown keys
	// (annotations, icons, _meta) included.
	Raw json.RawMessage
}

// ListResources returns every resource the server lists, following each
// page's cursor under the same bounds as ListTools. A server's resource list
// may be long and change while it runs (notifications/resources/list_changed),
// so it is not cached: each call lists again.
func (s *Session) ListResources(ctx context.Context) ([]Resource, error) {
	return listItems(ctx, s, "resources/list", "resources", "resource", ParseResource)
}

// ParseResource decodes one resource as a server lists it in a
// resources/list result. Members are matched by their exact names; Raw is a
// copy of raw.
func ParseResource(raw []byte) (Resource, error) {
	r := Resource{Raw: bytes.Clone(raw), Size: -1}
	err := jsonrpc.ObjectEach(r.Raw, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		if jsonrpc.IsNull(v) {
			return nil
		}
		switch string(k) {
		case "uri":
			r.URI, err = jsonrpc.String(v)
		case "name":
			r.Name, err = jsonrpc.String(v)
		case "title":
			r.Title, err = jsonrpc.String(v)
		case "description":
			r.Description, err = jsonrpc.String(v)
		case "mimeType":
			r.MIMEType, err = jsonrpc.String(v)
		case "size":
			var size float64
			if json.Unmarshal(v, &size) != nil || size < 0 || size >= 1<<62 || size != float64(int64(size)) {
				return fmt.Errorf("size %s is not a whole number of bytes", snippet(v))
			}
			r.Size = int64(size)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	switch {
	case r.URI == "":
		return r, fmt.Errorf("resource %s has no uri", redact.Quote(r.Name))
	case r.Name == "":
		return r, fmt.Errorf("resource %s has no name", redact.Quote(r.URI))
	}
	return r, nil
}
