package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// listingServer offers a prompt with a required and an optional argument,
// and a resource template with a path variable and an exploded query.
func listingServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.New(nil, &server.Options{
		Prompts: []server.Prompt{{
			Prompt: runtime.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []runtime.PromptArgument{
				{Name: "who", Required: true}, {Name: "mood"},
			}},
			Handle: func(_ context.Context, args map[string]string) (*runtime.GetPromptResult, error) {
				if args["who"] == "nobody" {
					return nil, errors.New("nobody to greet")
				}
				return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{
					{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: "Say hello to " + args["who"] + " (" + args["mood"] + ")"}},
				}}, nil
			},
		}},
		ResourceTemplates: []server.ResourceTemplate{{
			Template: runtime.ResourceTemplate{Name: "file", URITemplate: "test://files/{name}{?tags*}", MIMEType: "text/plain"},
			Handle: func(_ context.Context, uri string, vars map[string]any) (*runtime.ReadResourceResult, error) {
				return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{
					{URI: uri, MIMEType: "text/plain", Text: fmt.Sprint(vars["name"], " ", vars["tags"])},
				}}, nil
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPromptsAndTemplatesInBothEras(t *testing.T) {
	ctx := context.Background()
	s := listingServer(t)
	for _, pin := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(pin, func(t *testing.T) {
			sess, err := s.Connect(ctx, &runtime.Options{ProtocolVersion: pin})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			prompts, err := sess.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" || len(prompts[0].Arguments) != 2 || !prompts[0].Arguments[0].Required {
				t.Fatalf("prompts/list: %+v, %v", prompts, err)
			}
			res, err := sess.GetPrompt(ctx, "greet", map[string]string{"who": "Ada", "mood": "glad"})
			if err != nil || res.Text() != "Say hello to Ada (glad)" {
				t.Fatalf("prompts/get: %+v, %v", res, err)
			}
			var rpc *runtime.RPCError
			if _, err := sess.GetPrompt(ctx, "greet", nil); !errors.As(err, &rpc) || rpc.Code != runtime.CodeInvalidParams || !strings.Contains(rpc.Message, "missing required argument who") {
				t.Errorf("prompts/get without who: %v", err)
			}
			if _, err := sess.GetPrompt(ctx, "nope", nil); !errors.As(err, &rpc) || rpc.Message != "Unknown prompt: nope" {
				t.Errorf("unknown prompt: %v", err)
			}
			if _, err := sess.GetPrompt(ctx, "greet", map[string]string{"who": "nobody"}); !errors.As(err, &rpc) || rpc.Code != runtime.CodeInternalError || !strings.Contains(rpc.Message, "nobody to greet") {
				t.Errorf("failing prompt: %v", err)
			}

			templates, err := sess.ListResourceTemplates(ctx)
			if err != nil || len(templates) != 1 || templates[0].URITemplate != "test://files/{name}{?tags*}" {
				t.Fatalf("resources/templates/list: %+v, %v", templates, err)
			}
			rr, err := sess.ReadResource(ctx, "test://files/a%20b?tags=x&tags=y")
			if err != nil || rr.Text() != "a b [x y]" {
				t.Fatalf("resources/read: %+v, %v", rr, err)
			}
			want := runtime.CodeResourceNotFound
			if pin == "2026-07-28" {
				want = runtime.CodeInvalidParams
			}
			if _, err := sess.ReadResource(ctx, "other://x"); !errors.As(err, &rpc) || rpc.Code != want {
				t.Errorf("resources/read of an unknown URI: %v", err)
			}
		})
	}
}
