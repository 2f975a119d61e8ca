package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/everything"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestEverythingPromptsAndTemplates gets the prompts and reads the
// resource templates of server-everything through the methods generated
// from its snapshot, over stdio and Streamable HTTP.
func TestEverythingPromptsAndTemplates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	stdio := testenv.Everything(t, "stdio")
	streamable := testenv.ServeEverything(t, "streamableHttp")
	for _, tt := range []struct {
		name      string
		transport runtime.Transport
	}{
		{"stdio", runtime.NewCommandTransport(stdio[0], stdio[1:]...)},
		{"streamable-http", runtime.StreamableHTTP(streamable, nil)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testenv.Context(t)
			s, err := runtime.Connect(ctx, tt.transport, nil)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			c := everything.NewClient(s)

			simple, err := c.SimplePromptPrompt(ctx, everything.SimplePromptPromptArgs{})
			if err != nil {
				t.Fatalf("SimplePromptPrompt: %v", err)
			}
			if len(simple.Messages) == 0 || simple.Messages[0].Role != "user" || simple.Text() == "" {
				t.Errorf("simple-prompt = %+v", simple)
			}

			args, err := c.ArgsPromptPrompt(ctx, everything.ArgsPromptPromptArgs{City: "Lyon", State: "Rhône"})
			if err != nil {
				t.Fatalf("ArgsPromptPrompt: %v", err)
			}
			if got := args.Text(); !strings.Contains(got, "Lyon") || !strings.Contains(got, "Rhône") {
				t.Errorf("args-prompt text = %q, want the city and the state in it", got)
			}
			noState, err := c.ArgsPromptPrompt(ctx, everything.ArgsPromptPromptArgs{City: "Lyon"})
			if err != nil {
				t.Fatalf("ArgsPromptPrompt without the optional state: %v", err)
			}
			if got := noState.Text(); !strings.Contains(got, "Lyon") {
				t.Errorf("args-prompt text = %q", got)
			}

			// A required argument left empty is refused before anything is sent.
			_, err = c.ArgsPromptPrompt(ctx, everything.ArgsPromptPromptArgs{State: "Rhône"})
			var ve *runtime.ValidationError
			if !errors.As(err, &ve) || ve.Pointer != "/city" || !strings.Contains(err.Error(), "args-prompt") {
				t.Errorf("ArgsPromptPrompt without city: err = %v, want a validation error at /city naming the prompt", err)
			}

			res, err := c.ResourcePromptPrompt(ctx, everything.ResourcePromptPromptArgs{ResourceType: "Text", ResourceID: "2"})
			if err != nil {
				t.Fatalf("ResourcePromptPrompt: %v", err)
			}
			embedded := false
			for _, m := range res.Messages {
				if m.Content.Type == runtime.ContentResource && m.Content.Resource != nil && strings.Contains(m.Content.Resource.URI, "2") {
					embedded = true
				}
			}
			if !embedded {
				t.Errorf("resource-prompt has no embedded resource 2: %+v", res.Messages)
			}

			params := everything.DynamicTextResourceParams{ResourceID: "7"}
			uri, err := params.URI()
			if err != nil || uri != "demo://resource/dynamic/text/7" {
				t.Errorf("URI = %q, %v", uri, err)
			}
			text, err := c.ReadDynamicTextResource(ctx, params)
			if err != nil {
				t.Fatalf("ReadDynamicTextResource: %v", err)
			}
			if len(text.Contents) != 1 || text.Contents[0].URI != uri || text.Contents[0].IsBlob() || !strings.Contains(text.Text(), "7") {
				t.Errorf("text resource = %+v", text)
			}
			blob, err := c.ReadDynamicBlobResource(ctx, everything.DynamicBlobResourceParams{ResourceID: "8"})
			if err != nil {
				t.Fatalf("ReadDynamicBlobResource: %v", err)
			}
			if len(blob.Contents) != 1 || !blob.Contents[0].IsBlob() || len(blob.Contents[0].Bytes()) == 0 {
				t.Errorf("blob resource = %+v", blob)
			}
			if _, err := c.ReadDynamicTextResource(ctx, everything.DynamicTextResourceParams{}); !errors.As(err, &ve) || ve.Pointer != "/resourceId" {
				t.Errorf("ReadDynamicTextResource without an id: err = %v, want a validation error at /resourceId", err)
			}
		})
	}
}
