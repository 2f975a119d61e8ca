package everything

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// weather implements one tool, one prompt and one resource template.
type weather struct {
	UnimplementedHandler
}

func (weather) Echo(_ context.Context, args EchoArgs) (*runtime.Result, error) {
	return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "Echo: " + args.Message}}}, nil
}

func (weather) ArgsPromptPrompt(_ context.Context, args ArgsPromptPromptArgs) (*runtime.GetPromptResult, error) {
	return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{
		{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: "Weather in " + args.City + ", " + args.State + "?"}},
	}}, nil
}

func (weather) ReadDynamicTextResource(_ context.Context, params DynamicTextResourceParams) (*runtime.ReadResourceResult, error) {
	if params.ResourceID == "0" {
		return nil, server.ErrResourceNotFound
	}
	return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{
		{URI: "demo://resource/dynamic/text/" + params.ResourceID, MIMEType: "text/plain", Text: "Resource " + params.ResourceID},
	}}, nil
}

// The generated fake serves the typed prompt and resource template methods
// beside the tools, in both eras, through the generated Client; the
// methods left to UnimplementedHandler answer as a server without them.
func TestFakePromptsAndTemplates(t *testing.T) {
	ctx := context.Background()
	for _, pin := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(pin, func(t *testing.T) {
			sess, err := NewFake(weather{}, &runtime.Options{ProtocolVersion: pin})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			c := NewClient(sess)

			if res, err := c.Echo(ctx, EchoArgs{Message: "hi"}); err != nil || res.Text() != "Echo: hi" {
				t.Fatalf("Echo = %+v, %v", res, err)
			}

			prompts, err := sess.ListPrompts(ctx)
			if err != nil || len(prompts) != 4 || prompts[0].Name != "args-prompt" || !prompts[0].Arguments[0].Required {
				t.Fatalf("prompts/list = %+v, %v", prompts, err)
			}
			got, err := c.ArgsPromptPrompt(ctx, ArgsPromptPromptArgs{City: "Oslo", State: "Oslo"})
			if err != nil || got.Text() != "Weather in Oslo, Oslo?" {
				t.Fatalf("ArgsPromptPrompt = %+v, %v", got, err)
			}
			var rpc *runtime.RPCError
			if _, err := c.SimplePromptPrompt(ctx, SimplePromptPromptArgs{}); !errors.As(err, &rpc) || rpc.Message != "Unknown prompt: simple-prompt" {
				t.Errorf("SimplePromptPrompt (unimplemented) = %v", err)
			}

			templates, err := sess.ListResourceTemplates(ctx)
			if err != nil || len(templates) != 2 || templates[1].URITemplate != "demo://resource/dynamic/text/{resourceId}" {
				t.Fatalf("resources/templates/list = %+v, %v", templates, err)
			}
			rr, err := c.ReadDynamicTextResource(ctx, DynamicTextResourceParams{ResourceID: "7"})
			if err != nil || rr.Text() != "Resource 7" {
				t.Fatalf("ReadDynamicTextResource = %+v, %v", rr, err)
			}
			notFound := runtime.CodeResourceNotFound
			if pin == "2026-07-28" {
				notFound = runtime.CodeInvalidParams
			}
			for _, read := range []func() error{
				func() error {
					_, err := c.ReadDynamicTextResource(ctx, DynamicTextResourceParams{ResourceID: "0"})
					return err
				},
				func() error {
					_, err := c.ReadDynamicBlobResource(ctx, DynamicBlobResourceParams{ResourceID: "1"})
					return err
				},
			} {
				if err := read(); !errors.As(err, &rpc) || rpc.Code != notFound || !strings.Contains(rpc.Message, "not found") {
					t.Errorf("a resource that does not exist: %v", err)
				}
			}
		})
	}
}

// confirming asks the user before it adds.
type confirming struct {
	UnimplementedHandler
}

func (confirming) GetSum(ctx context.Context, args GetSumArgs) (*runtime.Result, error) {
	answer, err := server.Elicit(ctx, &runtime.ElicitRequest{
		Message:         "Add them?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"sure":{"type":"boolean"}},"required":["sure"]}`),
	})
	if err != nil {
		return nil, err
	}
	if answer.Action != runtime.ElicitAccept || answer.Content["sure"] != true {
		return nil, errors.New("the user did not confirm")
	}
	return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: fmt.Sprint(args.A + args.B)}}}, nil
}

// A handler of the generated fake asks the user through the agent's
// elicitation handler, in both eras, and a decline reaches it too.
func TestFakeHandlerAsksTheUser(t *testing.T) {
	ctx := context.Background()
	for _, pin := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(pin, func(t *testing.T) {
			sure := true
			sess, err := NewFake(confirming{}, &runtime.Options{
				ProtocolVersion: pin,
				Elicitation: func(_ context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
					if req.Message != "Add them?" {
						return nil, fmt.Errorf("unexpected request %+v", req)
					}
					return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: map[string]any{"sure": sure}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			c := NewClient(sess)
			if res, err := c.GetSum(ctx, GetSumArgs{A: 2, B: 3}); err != nil || res.Text() != "5" {
				t.Fatalf("GetSum = %+v, %v", res, err)
			}
			sure = false
			var te *runtime.ToolError
			if _, err := c.GetSum(ctx, GetSumArgs{A: 2, B: 3}); !errors.As(err, &te) || !strings.Contains(err.Error(), "the user did not confirm") {
				t.Fatalf("GetSum declined = %v", err)
			}
		})
	}
}
