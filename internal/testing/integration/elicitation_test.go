package integration

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestElicitationTSServer answers the TypeScript SDK example server's
// collect-user-info tool, which asks the client for a form (legacy
// elicitation/create over Streamable HTTP), through an elicitation handler:
// the server must get the values, with the form's default filled in, and a
// decline must reach it as one.
func TestElicitationTSServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx := testenv.Context(t)
	var mu sync.Mutex
	var asked []*runtime.ElicitRequest
	s, err := runtime.Connect(ctx, runtime.HTTP(url, nil), &runtime.Options{
		Elicitation: func(_ context.Context, r *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r)
			mu.Unlock()
			if strings.Contains(r.Message, "feedback") {
				return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
			}
			return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: map[string]any{"theme": "dark", "frequency": "weekly"}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-11-25" {
		t.Errorf("ProtocolVersion = %s", s.ProtocolVersion())
	}
	res, err := s.CallTool(ctx, "collect-user-info", map[string]any{"infoType": "preferences"})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(res.Text()), " ")
	if want := `Collected preferences information: { "frequency": "weekly", "notifications": true, "theme": "dark" }`; !strings.Contains(text, want) {
		t.Errorf("result %q, want it to contain %q", text, want)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Mode != runtime.ElicitForm || asked[0].Server.Name == "" {
		t.Errorf("handler asked %+v", asked)
	}
	mu.Unlock()
	res, err = s.CallTool(ctx, "collect-user-info", map[string]any{"infoType": "feedback"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "User declined feedback information request."; !strings.Contains(res.Text(), want) {
		t.Errorf("result %q, want %q", res.Text(), want)
	}
}
