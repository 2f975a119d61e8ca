package integration

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// TestInputRequestsSDKServer calls the go-sdk server's tools that ask for
// input (sdkserver -input) with elicitation, sampling and roots handlers: in
// the 2026-07-28 era the server answers input_required and the client
// retries with the handlers' responses; pinned to 2025-11-25 over stdio the
// SDK sends elicitation/create, sampling/createMessage and roots/list
// requests instead. Both must reach the same results.
func TestInputRequestsSDKServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	checkLeaks(t)
	bin := testenv.SDKServer(t)
	url := testenv.ServeSDKArgs(t, "-input")
	cases := []struct {
		name      string
		transport func() runtime.Transport
		pin, want string
	}{
		{"stdio/2026-07-28", func() runtime.Transport { return runtime.NewCommandTransport(bin, "-input") }, "", "2026-07-28"},
		{"streamable-http/2026-07-28", func() runtime.Transport { return runtime.StreamableHTTP(url, nil) }, "", "2026-07-28"},
		{"stdio/2025-11-25", func() runtime.Transport { return runtime.NewCommandTransport(bin, "-input") }, "2025-11-25", "2025-11-25"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			s, err := runtime.Connect(ctx, tc.transport(), &runtime.Options{
				ProtocolVersion: tc.pin,
				Elicitation: func(_ context.Context, r *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
					if r.Message == "Deploy billing?" {
						return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
					}
					return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: map[string]any{"confirm": true}}, nil
				},
				Sampling: func(_ context.Context, r *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
					answer := "I do not know"
					if r.Messages[0].Text() == "Capital of France?" {
						answer = "Paris"
					}
					return &runtime.SamplingResult{Content: []runtime.Content{{Type: runtime.ContentText, Text: answer}}, Model: "fake-model", StopReason: "endTurn"}, nil
				},
				Roots: func(context.Context) ([]runtime.Root, error) {
					return []runtime.Root{{URI: "file:///srv/b"}, {URI: "file:///srv/a", Name: "a"}}, nil
				},
			})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			if got := s.ProtocolVersion(); got != tc.want {
				t.Fatalf("ProtocolVersion = %s, want %s", got, tc.want)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"deploy", map[string]any{"service": "api"}, `deployed api to staging (confirm=true, state "deploy:api")`},
				{"deploy", map[string]any{"service": "billing"}, "deployment of billing declined"},
				{"ask", map[string]any{"question": "Capital of France?"}, "fake-model says: Paris"},
				{"roots", nil, "roots: file:///srv/a file:///srv/b"},
			} {
				res, err := s.CallTool(ctx, c.tool, c.args)
				if err != nil {
					t.Errorf("%s: %v", c.tool, err)
					continue
				}
				if res.Text() != c.want {
					t.Errorf("%s = %q, want %q", c.tool, res.Text(), c.want)
				}
			}
		})
	}
}

// geminiModels is a stand-in for the Gemini API that answers every request
// with a fixed text.
type geminiModels struct{ text string }

func (g geminiModels) GenerateContent(_ context.Context, _ string, contents []*genai.Content, _ *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return &genai.GenerateContentResponse{ModelVersion: "gemini-fake-001", Candidates: []*genai.Candidate{{
		Content:      genai.NewContentFromText(g.text+" ("+contents[0].Parts[0].Text+")", genai.RoleModel),
		FinishReason: genai.FinishReasonStop,
	}}}, nil
}

// TestGeminiSamplesForSDKServer: the go-sdk server's sampling tool is
// answered by gemini.Sampler, in both eras.
func TestGeminiSamplesForSDKServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	bin := testenv.SDKServer(t)
	for _, pin := range []string{"", "2025-11-25"} {
		ctx := testenv.Context(t)
		sampler := &gemini.Sampler{Models: geminiModels{"Paris"}, Model: "gemini-2.5-flash"}
		s, err := runtime.Connect(ctx, runtime.NewCommandTransport(bin, "-input"), &runtime.Options{ProtocolVersion: pin, Sampling: sampler.Handle})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallTool(ctx, "ask", map[string]any{"question": "Capital of France?"})
		s.Close()
		if err != nil {
			t.Fatalf("%s: %v", pin, err)
		}
		if want := "gemini-fake-001 says: Paris (Capital of France?)"; res.Text() != want {
			t.Errorf("%s: %q, want %q", pin, res.Text(), want)
		}
	}
}
