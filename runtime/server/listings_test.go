package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/mcpimpl"
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

// varsServer offers templates whose handler answers with the variables it
// got, as JSON, so that a string and a one-item list tell apart.
func varsServer(t *testing.T, templates ...string) *server.Server {
	t.Helper()
	var rts []server.ResourceTemplate
	for i, tmpl := range templates {
		rts = append(rts, server.ResourceTemplate{
			Template: runtime.ResourceTemplate{Name: fmt.Sprint("t", i), URITemplate: tmpl},
			Handle: func(_ context.Context, uri string, vars map[string]any) (*runtime.ReadResourceResult, error) {
				b, err := json.Marshal(vars)
				return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: string(b)}}}, err
			},
		})
	}
	s, err := server.New(nil, &server.Options{ResourceTemplates: rts})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A URI the runtime expands from a template's variables (as a generated
// Client does) is read by the template's handler with those variables: a
// variable the template explodes as a list, however many items it has,
// any other as a string, and the variables an expression left out absent.
func TestTemplateVariablesRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		tmpl string
		vars []mcpimpl.URIVar
		want string
	}{
		{"tags://all{/tag*}", []mcpimpl.URIVar{{Name: "tag", IsList: true, List: []string{"a"}}}, `{"tag":["a"]}`},
		{"tags://all{/tag*}", []mcpimpl.URIVar{{Name: "tag", IsList: true, List: []string{"a", "b c"}}}, `{"tag":["a","b c"]}`},
		{"x://h{?q*}", []mcpimpl.URIVar{{Name: "q", IsList: true, List: []string{"a"}}}, `{"q":["a"]}`},
		{"x://h{?q*}", []mcpimpl.URIVar{{Name: "q", IsList: true}}, `{}`},
		{"search://q{?query,page}", []mcpimpl.URIVar{{Name: "query"}, {Name: "page"}}, `{}`},
		{"search://q{?query,page}", []mcpimpl.URIVar{{Name: "query"}, {Name: "page", Value: "2"}}, `{"page":"2"}`},
		{"search://q{?query,page}", []mcpimpl.URIVar{{Name: "query", Value: "a&b=c"}, {Name: "page", Value: "2"}}, `{"page":"2","query":"a\u0026b=c"}`},
		{"search://q{?query}{&page}", []mcpimpl.URIVar{{Name: "query", Value: "x"}, {Name: "page", Value: "2"}}, `{"page":"2","query":"x"}`},
		{"doc://{id}", []mcpimpl.URIVar{{Name: "id", Value: "a,b/é", Required: true}}, `{"id":"a,b/é"}`},
		{"file:///{+path}", []mcpimpl.URIVar{{Name: "path", Value: "a/b c", Required: true, Reserved: true}}, `{"path":"a/b c"}`},
		{"x://h{;p}", []mcpimpl.URIVar{{Name: "p"}}, `{}`},
		{"x://h{;p,q}", []mcpimpl.URIVar{{Name: "p", Value: "1"}, {Name: "q", Value: "2"}}, `{"p":"1","q":"2"}`},
		{"x://host{/seg*}{.ext}", []mcpimpl.URIVar{{Name: "seg", IsList: true, List: []string{"a", "b"}, Required: true}, {Name: "ext", Value: "json", Required: true}}, `{"ext":"json","seg":["a","b"]}`},
	} {
		uri, err := mcpimpl.ExpandURI("t", tc.tmpl, tc.vars)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(uri, func(t *testing.T) {
			sess, err := varsServer(t, tc.tmpl).Connect(ctx, &runtime.Options{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			rr, err := sess.ReadResource(ctx, uri)
			if err != nil || rr.Text() != tc.want {
				t.Errorf("reading %s of %s: %v; got %s, want %s", uri, tc.tmpl, err, rr.Text(), tc.want)
			}
		})
	}
}

// A variable the template does not explode is a string, whatever the URI
// holds: "a,b" is not a list.
func TestTemplateVariableNotExplodedIsAString(t *testing.T) {
	ctx := context.Background()
	sess, err := varsServer(t, "doc://{id}{?q}").Connect(ctx, &runtime.Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for uri, want := range map[string]string{
		"doc://a,b":       `{"id":"a,b"}`,
		"doc://a?q=x,y,z": `{"id":"a","q":"x,y,z"}`,
	} {
		rr, err := sess.ReadResource(ctx, uri)
		if err != nil || rr.Text() != want {
			t.Errorf("reading %s: %v; got %s, want %s", uri, err, rr.Text(), want)
		}
	}
}
