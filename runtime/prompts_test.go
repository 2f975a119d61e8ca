package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestListPromptsAndTemplatesFollowPages lists prompts over two pages and
// templates whose cursor loops, and gets prompts, in both protocol eras.
func TestListPromptsAndTemplatesFollowPages(t *testing.T) {
	for _, era := range []struct {
		name    string
		version string
		wrap    func(func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error
	}{{"legacy", "2025-06-18", legacyMem}, {"2026-07-28", "2026-07-28", modernMem}} {
		t.Run(era.name, func(t *testing.T) { testPromptsAndTemplates(t, era.version, era.wrap) })
	}
}

func testPromptsAndTemplates(t *testing.T, version string, wrap func(func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error) {
	var gotArgs []string
	conn := newMemConn(wrap(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Cursor    *string          `json:"cursor"`
			Name      string           `json:"name"`
			Arguments *json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		switch m.Method {
		case "prompts/list":
			if p.Cursor == nil {
				c.reply(m, `{"prompts":[{"name":"a","arguments":[{"name":"x","required":true,"description":"X"}],"x-extra":1}],"nextCursor":"p2"}`)
			} else {
				c.reply(m, `{"prompts":[{"name":"b","title":"B"}]}`)
			}
		case "resources/templates/list":
			if p.Cursor == nil {
				c.reply(m, `{"resourceTemplates":[{"uriTemplate":"demo://{id}","name":"one","mimeType":"text/plain"}],"nextCursor":""}`)
			} else if *p.Cursor == "" {
				c.reply(m, `{"resourceTemplates":[{"uriTemplate":"demo://two/{id}","name":"two"}],"nextCursor":""}`)
			}
		case "prompts/get":
			if p.Arguments != nil {
				gotArgs = append(gotArgs, string(*p.Arguments))
			} else {
				gotArgs = append(gotArgs, "none")
			}
			if p.Name == "missing" {
				c.replyError(m, CodeInvalidParams, `{}`)
				return nil
			}
			c.reply(m, `{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hi"}},{"role":"assistant","content":{"type":"text","text":"there"}}]}`)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.ProtocolVersion(); got != version {
		t.Fatalf("ProtocolVersion = %s, want %s", got, version)
	}
	ctx := context.Background()
	prompts, err := s.ListPrompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 2 || prompts[0].Name != "a" || prompts[1].Title != "B" ||
		len(prompts[0].Arguments) != 1 || !prompts[0].Arguments[0].Required || prompts[0].Arguments[0].Description != "X" ||
		!strings.Contains(string(prompts[0].Raw), `"x-extra":1`) {
		t.Errorf("ListPrompts = %+v", prompts)
	}
	_, err = s.ListResourceTemplates(ctx)
	if err == nil || !strings.Contains(err.Error(), "resources/templates/list") || !strings.Contains(err.Error(), "twice") {
		t.Errorf("ListResourceTemplates with a looping cursor: err = %v, want the loop named", err)
	}
	res, err := s.GetPrompt(ctx, "a", map[string]string{"y": "2", "x": "1\""})
	if err != nil {
		t.Fatal(err)
	}
	if res.Description != "d" || len(res.Messages) != 2 || res.Messages[1].Role != "assistant" || res.Text() != "hi\nthere" {
		t.Errorf("GetPrompt = %+v", res)
	}
	if _, err := s.GetPrompt(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"x":"1\"","y":"2"}`, "none"}; strings.Join(gotArgs, "|") != strings.Join(want, "|") {
		t.Errorf("arguments sent = %q, want %q", gotArgs, want)
	}
	if _, err := s.GetPrompt(ctx, "missing", nil); err == nil || !strings.Contains(err.Error(), `prompt "missing"`) {
		t.Errorf("GetPrompt(missing) err = %v, want the prompt named", err)
	}
}

func TestParseResourceTemplateNeedsNameAndTemplate(t *testing.T) {
	for raw, want := range map[string]string{
		`{"uriTemplate":"x://{a}"}`:      "no name",
		`{"name":"n"}`:                   "no uriTemplate",
		`{"name":"n","uriTemplate":3}`:   "uriTemplate",
		`{"name":"n","uriTemplate":"x"}`: "",
	} {
		_, err := ParseResourceTemplate([]byte(raw))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseResourceTemplate(%s) err = %v, want %q", raw, err, want)
		}
	}
}

// TestPromptMessageRoles: a prompt message's role is user or assistant, as
// PromptMessage documents and the protocol requires; a message with another
// role, or none, is an error naming the message, in both eras. Before, a
// program reading Role as "assistant or else the user's" took a "system"
// message, or one without a role, for the user's words.
func TestPromptMessageRoles(t *testing.T) {
	for _, era := range []struct {
		name string
		wrap func(func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error
	}{{"legacy", legacyMem}, {"2026-07-28", modernMem}} {
		t.Run(era.name, func(t *testing.T) {
			msg := func(role string) string {
				return `{` + role + `"content":{"type":"text","text":"x"}}`
			}
			results := map[string]string{
				"ok":      `{"messages":[` + msg(`"role":"user",`) + `,` + msg(`"role":"assistant",`) + `]}`,
				"system":  `{"messages":[` + msg(`"role":"user",`) + `,` + msg(`"role":"system",`) + `]}`,
				"empty":   `{"messages":[` + msg(`"role":"",`) + `]}`,
				"case":    `{"messages":[` + msg(`"role":"User",`) + `]}`,
				"missing": `{"messages":[` + msg(``) + `]}`,
				"long":    `{"messages":[` + msg(`"role":"`+strings.Repeat("\\u001b[2J", 10000)+`",`) + `]}`,
			}
			conn := newMemConn(era.wrap(func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method == "prompts/get" {
					var p struct {
						Name string `json:"name"`
					}
					json.Unmarshal(m.Params, &p)
					c.reply(m, results[p.Name])
				}
				return nil
			}))
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			res, err := s.GetPrompt(ctx, "ok", nil)
			if err != nil || len(res.Messages) != 2 || res.Messages[0].Role != "user" || res.Messages[1].Role != "assistant" {
				t.Fatalf("GetPrompt(ok) = %+v, %v; want a user and an assistant message", res, err)
			}
			for name, want := range map[string]string{
				"system":  `messages[1]: role "system" is neither user nor assistant`,
				"empty":   `messages[0]: role "" is neither user nor assistant`,
				"case":    `messages[0]: role "User" is neither user nor assistant`,
				"missing": `messages[0]: the message has no role`,
				"long":    `messages[0]: role "\x1b[2J`,
			} {
				res, err := s.GetPrompt(ctx, name, nil)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("GetPrompt(%s) = %+v, %v; want an error saying %q", name, res, err, want)
					continue
				}
				if len(err.Error()) > 1000 || strings.Contains(err.Error(), "\x1b") {
					t.Errorf("GetPrompt(%s): the error holds the role whole or raw (%d bytes)", name, len(err.Error()))
				}
			}
		})
	}
}

// TestResultsGiveTheirArrayOnce: a prompts/get result giving messages twice,
// or a resources/read result giving contents twice, is an error naming the
// member. Before, the Session took both arrays, one after the other, where
// encoding/json and JavaScript's JSON.parse, reading the result's Raw as a
// program or another client does, take the last one alone.
func TestResultsGiveTheirArrayOnce(t *testing.T) {
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "prompts/get":
			c.reply(m, `{"messages":[{"role":"user","content":{"type":"text","text":"shown"}}],"messag\u0065s":[{"role":"user","content":{"type":"text","text":"read by others"}}]}`)
		case "resources/read":
			c.reply(m, `{"contents":[{"uri":"demo://a","text":"shown"}],"contents":[]}`)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if res, err := s.GetPrompt(ctx, "p", nil); err == nil || !strings.Contains(err.Error(), "malformed result: messages is given twice") {
		t.Errorf("GetPrompt = %+v, %v; want an error saying messages is given twice", res, err)
	}
	if res, err := s.ReadResource(ctx, "demo://a"); err == nil || !strings.Contains(err.Error(), "malformed result: contents is given twice") {
		t.Errorf("ReadResource = %+v, %v; want an error saying contents is given twice", res, err)
	}
}
