package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// UnmarshalJSON decodes one content block of any type. Image and audio data
// and embedded blobs are decoded from base64; a block of a type this package
// does not know keeps its bytes in Raw.
func (c *Content) UnmarshalJSON(data []byte) error {
	return c.decode(data, false)
}

// MarshalJSON encodes the block as the server sent it: a block of unknown
// type is written from Raw. A text block's text is written even when empty,
// as the protocol requires it.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 && !knownContentType(c.Type) {
		return c.Raw, nil
	}
	type plain Content
	if c.Type == ContentText && c.Text == "" {
		// The outer Text hides the one of plain, whose omitempty would
		// leave it out.
		return json.Marshal(struct {
			plain
			Text string `json:"text"`
		}{plain(c), c.Text})
	}
	return json.Marshal(plain(c))
}

// MarshalJSON encodes the contents with their text, or with their blob when
// IsBlob reports true, even when empty: the protocol requires one of them,
// and an empty blob stays a blob.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	w := struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType,omitempty"`
		Text     *string         `json:"text,omitempty"`
		Blob     *[]byte         `json:"blob,omitempty"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.IsBlob() {
		w.Blob = &r.Blob
	} else {
		w.Text = &r.Text
	}
	return json.Marshal(w)
}

func knownContentType(t string) bool {
	switch t {
	case ContentText, ContentImage, ContentAudio, ContentResourceLink, ContentResource:
		return true
	}
	return false
}

// decode decodes the block data. When alias is set, raw members point into
// data instead of copies of it.
func (c *Content) decode(data []byte, alias bool) error {
	*c = Content{}
	keep := func(v []byte) json.RawMessage {
		if alias {
			return json.RawMessage(v)
		}
		return bytes.Clone(v)
	}
	err := jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		switch string(k) {
		case "type":
			c.Type, err = contentType(v)
		case "text":
			c.Text, err = jsonrpc.String(v)
		case "data":
			c.Data, err = decodeBase64(v)
		case "mimeType":
			c.MIMEType, err = jsonrpc.String(v)
		case "uri":
			c.URI, err = jsonrpc.String(v)
		case "name":
			c.Name, err = jsonrpc.String(v)
		case "title":
			c.Title, err = jsonrpc.String(v)
		case "description":
			c.Description, err = jsonrpc.String(v)
		case "size":
			if jsonrpc.IsNull(v) {
				return nil
			}
			n, ok := wholeNumber(v)
			switch {
			case !ok && beyondInt64(v):
				// A size of 1e30 bytes tells nothing: it is left unknown,
				// and the result that holds the block is not lost.
			case !ok:
				return errors.New("size: expected an integer")
			default:
				c.Size = &n
			}
		case "resource":
			if jsonrpc.IsNull(v) {
				return nil
			}
			c.Resource = &ResourceContents{}
			_, err = c.Resource.decode(v, keep)
		case "icons":
			if !jsonrpc.IsNull(v) {
				c.Icons = keep(v)
			}
		case "annotations":
			c.Annotations = keep(v)
		case "_meta":
			c.Meta = keep(v)
		default:
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Type == "" {
		return errors.New("content block has no type")
	}
	if !knownContentType(c.Type) {
		c.Raw = bytes.Clone(data)
	}
	return nil
}

// decode decodes the contents data, and reports whether they have a text
// member.
func (r *ResourceContents) decode(data []byte, keep func([]byte) json.RawMessage) (hasText bool, err error) {
	err = jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "uri"):
			r.URI, err = jsonrpc.String(v)
		case jsonrpc.KeyIs(key, escaped, "mimeType"):
			r.MIMEType, err = jsonrpc.String(v)
		case jsonrpc.KeyIs(key, escaped, "text"):
			hasText = true
			r.Text, err = jsonrpc.String(v)
		case jsonrpc.KeyIs(key, escaped, "blob"):
			r.Blob, err = decodeBase64(v)
		case jsonrpc.KeyIs(key, escaped, "_meta"):
			r.Meta = keep(v)
		}
		if err != nil {
			k, _ := jsonrpc.Key(key, escaped)
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	return hasText, err
}

// wholeNumber parses v as a JSON number with no fractional part, however
// written (12, 12.0, 1.2e1), as JSON Schema's "integer" accepts it, that an
// int64 holds.
func wholeNumber(v []byte) (int64, bool) {
	if n, ok := jsonrpc.Int(v); ok {
		return n, true
	}
	return jsontree.Int64(string(v))
}

// beyondInt64 reports whether v is a JSON number beyond the range of an
// int64, such as 1e30 or 1e400.
func beyondInt64(v []byte) bool {
	hi, ok1 := jsontree.CompareNumbers(string(v), "9223372036854775807")
	lo, ok2 := jsontree.CompareNumbers(string(v), "-9223372036854775808")
	return ok1 && ok2 && (hi > 0 || lo < 0)
}

// decodeBase64 decodes a JSON string of standard base64.
func decodeBase64(v []byte) ([]byte, error) {
	if jsonrpc.IsNull(v) {
		return nil, nil
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, errors.New("expected a base64 string")
	}
	src := v[1 : len(v)-1]
	if bytes.IndexByte(src, '\\') >= 0 {
		s, err := jsonrpc.String(v)
		if err != nil {
			return nil, err
		}
		src = []byte(s)
	}
	dst := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
	n, err := base64.StdEncoding.Decode(dst, src)
	if err != nil {
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	return dst[:n], nil
}

// contentType decodes a block's type, without allocating for known types.
func contentType(v []byte) (string, error) {
	switch string(v) {
	case `"text"`:
		return ContentText, nil
	case `"image"`:
		return ContentImage, nil
	case `"audio"`:
		return ContentAudio, nil
	case `"resource_link"`:
		return ContentResourceLink, nil
	case `"resource"`:
		return ContentResource, nil
	}
	return jsonrpc.String(v)
}
