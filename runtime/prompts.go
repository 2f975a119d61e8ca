package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Prompt is one prompt a server lists in prompts/list.
type Prompt struct {
	Name        string
	Title       string
	Description string
	// Arguments are the prompt's arguments in the order the server listed
	// them.
	Arguments []PromptArgument
	// Raw is the whole prompt object as the server sent it, unknown keys
	// included.
	Raw json.RawMessage
}

// PromptArgument is one argument of a prompt. Every argument's value is a
// string.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// PromptMessage is one message of a prompt as prompts/get returns it.
type PromptMessage struct {
	// Role is "user" or "assistant".
	Role string
	// Content is the message's one content block.
	Content Content
}

// GetPromptResult is the result of a prompts/get request.
type GetPromptResult struct {
	// Description is the prompt's description, if the server sent one.
	Description string
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage
	// Meta is the result's _meta object, if any.
	Meta json.RawMessage
	// Raw is the whole result as the server sent it.
	Raw json.RawMessage
}

// Text joins the text of every text message with newlines.
func (r *GetPromptResult) Text() string {
	if r == nil {
		return ""
	}
	var b bytes.Buffer
	joined := false // a message is written: the next one follows a newline
	for _, m := range r.Messages {
		if m.Content.Type != ContentText {
			continue
		}
		if joined {
			b.WriteByte('\n')
		}
		joined = true
		b.WriteString(m.Content.Text)
	}
	return b.String()
}

// ListPrompts returns every prompt the server lists, following each page's
// cursor under the same bounds as ListTools. A server that declares no
// prompts capability is asked all the same; its error says so.
func (s *Session) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return listItems(ctx, s, "prompts/list", "prompts", "prompt", parsePrompt)
}

// GetPrompt gets the prompt name with prompts/get, sending args as its
// arguments (none when args is empty). Arguments are sent in the order of
// their names, so that the same call always sends the same bytes.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	if name == "" {
		return nil, errors.New("getting a prompt: the name is empty")
	}
	st, err := s.current(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting prompt %q: %w", name, err)
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var res *GetPromptResult
	err = s.doInputRounds(ctx, st, "prompts/get", name, func(b []byte) []byte {
		b = append(b, `"name":`...)
		b = jsonrpc.AppendString(b, name)
		if len(keys) == 0 {
			return b
		}
		b = append(b, `,"arguments":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonrpc.AppendString(b, k)
			b = append(b, ':')
			b = jsonrpc.AppendString(b, args[k])
		}
		return append(b, '}')
	}, func(data []byte) (more *inputRequired, err error) {
		res, more, err = decodePromptResult(data)
		return more, err
	})
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) && rpc.Code == CodeMethodNotFound && !st.caps.Prompts {
			return nil, fmt.Errorf("getting prompt %q: the server does not serve prompts (it declares no prompts capability): %w", name, err)
		}
		return nil, fmt.Errorf("getting prompt %q: %w", name, err)
	}
	return res, nil
}

// ParsePrompt decodes one prompt as a server lists it in a prompts/list
// result, or as a snapshot keeps it. Members are matched by their exact
// names; Raw is a copy of raw.
func ParsePrompt(raw []byte) (Prompt, error) {
	return parsePrompt(raw)
}

func parsePrompt(raw []byte) (Prompt, error) {
	p := Prompt{Raw: bytes.Clone(raw)}
	err := jsonrpc.ObjectEach(p.Raw, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		var text *string
		switch string(k) {
		case "name":
			text = &p.Name
		case "title":
			text = &p.Title
		case "description":
			text = &p.Description
		case "arguments":
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, func(item []byte) error {
				a, err := parsePromptArgument(item)
				if err != nil {
					return fmt.Errorf("arguments[%d]: %w", len(p.Arguments), err)
				}
				p.Arguments = append(p.Arguments, a)
				return nil
			})
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
		return p, err
	}
	if p.Name == "" {
		return p, errors.New("the prompt has no name")
	}
	return p, nil
}

func parsePromptArgument(raw []byte) (PromptArgument, error) {
	var a PromptArgument
	err := jsonrpc.ObjectEach(raw, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		if jsonrpc.IsNull(v) {
			return nil
		}
		switch string(k) {
		case "name":
			a.Name, err = jsonrpc.String(v)
		case "title":
			a.Title, err = jsonrpc.String(v)
		case "description":
			a.Description, err = jsonrpc.String(v)
		case "required":
			a.Required, err = jsonrpc.Bool(v)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return a, err
	}
	if a.Name == "" {
		return a, errors.New("the argument has no name")
	}
	return a, nil
}

// decodePromptResult decodes a prompts/get result. Its members alias data,
// which the caller owns. It returns a non-nil *inputRequired instead of a
// result when the server asks for input first (2026-07-28).
func decodePromptResult(data []byte) (*GetPromptResult, *inputRequired, error) {
	res := &GetPromptResult{Raw: json.RawMessage(data)}
	var sawMessages bool
	var input inputMembers
	err := jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "messages"):
			if sawMessages {
				return errors.New("messages is given twice")
			}
			sawMessages = true
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, func(item []byte) error {
				m, err := decodePromptMessage(item)
				if err != nil {
					return fmt.Errorf("messages[%d]: %w", len(res.Messages), err)
				}
				res.Messages = append(res.Messages, m)
				return nil
			})
		case jsonrpc.KeyIs(key, escaped, "description"):
			if jsonrpc.IsNull(v) {
				return nil
			}
			d, err := jsonrpc.String(v)
			if err != nil {
				return fmt.Errorf("description: %w", err)
			}
			res.Description = d
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
	if !sawMessages {
		return nil, nil, errors.New("malformed result: it has no messages array")
	}
	return res, nil, nil
}

// decodePromptMessage decodes one message of a prompts/get result. Its role
// must be user or assistant, as the protocol's Role is.
func decodePromptMessage(raw []byte) (PromptMessage, error) {
	var m PromptMessage
	var sawRole, sawContent bool
	err := jsonrpc.ObjectEach(raw, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "role"):
			sawRole = true
			r, err := jsonrpc.String(v)
			if err != nil {
				return fmt.Errorf("role: %w", err)
			}
			if r != "user" && r != "assistant" {
				return fmt.Errorf("role %s is neither user nor assistant", redact.Quote(r))
			}
			m.Role = r
		case jsonrpc.KeyIs(key, escaped, "content"):
			sawContent = true
			if err := m.Content.decode(v, true); err != nil {
				return fmt.Errorf("content: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	if !sawRole {
		return m, errors.New("the message has no role")
	}
	if !sawContent {
		return m, errors.New("the message has no content")
	}
	return m, nil
}
