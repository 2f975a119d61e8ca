package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// ReadResourceResult is the result of a resources/read request.
type ReadResourceResult struct {
	// Contents are the resource's contents, in the order the server sent
	// them: one item for a plain resource, more for one that holds others.
	Contents []ResourceContents
	// Meta is the result's _meta object, if any.
	Meta json.RawMessage
	// Raw is the whole result as the server sent it.
	Raw json.RawMessage
}

// Text joins the text of every text item of the contents with newlines.
func (r *ReadResourceResult) Text() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	joined := false // an item is written: the next one follows a newline
	for i := range r.Contents {
		if r.Contents[i].IsBlob() {
			continue
		}
		if joined {
			b.WriteByte('\n')
		}
		joined = true
		b.WriteString(r.Contents[i].Text)
	}
	return b.String()
}

// IsBlob reports whether the item is binary (the server sent blob, in
// base64) rather than text.
func (r *ResourceContents) IsBlob() bool { return r.Blob != nil }

// Bytes returns the item's content: the decoded blob, or the text as UTF-8.
func (r *ResourceContents) Bytes() []byte {
	if r.IsBlob() {
		return r.Blob
	}
	return []byte(r.Text)
}

// ReadResource reads the resource uri with resources/read. Blob contents
// come back decoded from base64. A resource the server does not have is an
// error for which IsResourceNotFound reports true.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if uri == "" {
		return nil, errors.New("reading a resource: the URI is empty")
	}
	st, err := s.current(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.quote(uri), err)
	}
	var res *ReadResourceResult
	err = s.doInputRounds(ctx, st, "resources/read", uri, func(b []byte) []byte {
		b = append(b, `"uri":`...)
		return jsonrpc.AppendString(b, uri)
	}, func(data []byte) (more *inputRequired, err error) {
		res, more, err = decodeReadResult(data)
		return more, err
	})
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) && rpc.Code == CodeMethodNotFound && !st.caps.Resources {
			return nil, fmt.Errorf("reading %s: the server does not serve resources (it declares no resources capability): %w", s.quote(uri), err)
		}
		return nil, fmt.Errorf("reading %s: %w", s.quote(uri), err)
	}
	return res, nil
}

// ReadLink reads the resource a resource_link content block points to. A
// block of another type is an error naming it.
func (s *Session) ReadLink(ctx context.Context, link Content) (*ReadResourceResult, error) {
	if link.Type != ContentResourceLink {
		return nil, fmt.Errorf("reading a resource link: the content block is of type %s, not %q", s.quote(link.Type), ContentResourceLink)
	}
	if link.URI == "" {
		return nil, fmt.Errorf("reading resource link %s: it has no URI", s.quote(link.Name))
	}
	return s.ReadResource(ctx, link.URI)
}

// ResourceLinks returns the resource_link blocks of the result's content, in
// order. Session.ReadLink follows one.
func (r *Result) ResourceLinks() []Content {
	if r == nil {
		return nil
	}
	var links []Content
	for _, c := range r.Content {
		if c.Type == ContentResourceLink {
			links = append(links, c)
		}
	}
	return links
}

// IsResourceNotFound reports whether err is a server's answer that the
// resource does not exist: -32002 up to 2025-11-25, -32602 (invalid params)
// from 2026-07-28 on.
func IsResourceNotFound(err error) bool {
	var rpc *RPCError
	return errors.As(err, &rpc) && (rpc.Code == CodeResourceNotFound || rpc.Code == CodeInvalidParams)
}

// decodeReadResult decodes a resources/read result. Its members alias data,
// which the caller owns. Each item must have its uri and either text or a
// blob (a null blob counts as none), as the protocol's text and blob
// contents do. It returns a non-nil *inputRequired instead of a
// result when the server asks for input first (2026-07-28).
func decodeReadResult(data []byte) (*ReadResourceResult, *inputRequired, error) {
	res := &ReadResourceResult{Raw: json.RawMessage(data)}
	var sawContents bool
	var input inputMembers
	err := jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "contents"):
			if sawContents {
				return errors.New("contents is given twice")
			}
			sawContents = true
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, func(item []byte) error {
				var c ResourceContents
				hasText, err := c.decode(item, func(b []byte) json.RawMessage { return json.RawMessage(b) })
				switch {
				case err != nil:
				case c.URI == "":
					err = errors.New("the item has no uri")
				case hasText && c.IsBlob():
					err = errors.New("the item has both text and blob")
				case !hasText && !c.IsBlob():
					err = errors.New("the item has neither text nor blob")
				}
				if err != nil {
					return fmt.Errorf("contents[%d]: %w", len(res.Contents), err)
				}
				res.Contents = append(res.Contents, c)
				return nil
			})
		case jsonrpc.KeyIs(key, escaped, "_meta"):
			res.Meta = json.RawMessage(v)
		default:
			return input.read(key, escaped, v)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("malformed result: %w", err)
	}
	if more, err := input.result(); more != nil || err != nil {
		return nil, more, err
	}
	if !sawContents {
		return nil, nil, errors.New("malformed result: it has no contents array")
	}
	return res, nil, nil
}
