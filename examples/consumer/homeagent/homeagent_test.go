package homeagent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generated/homeassistant"
	"github.com/mcpgen/mcpgen/runtime"
)

// home implements only HassTurnOn: the fake server answers the other tools
// as a server without them does.
type home struct {
	homeassistant.UnimplementedHandler
	mu     sync.Mutex
	turned []homeassistant.HassTurnOnArgs
}

func (h *home) HassTurnOn(_ context.Context, args homeassistant.HassTurnOnArgs) (*runtime.Result, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.turned = append(h.turned, args)
	return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "Turned on the kitchen light."}}}, nil
}

// fakeGemini answers generateContent requests with replies in turn and
// keeps the request bodies.
type fakeGemini struct {
	replies []string
	mu      sync.Mutex
	bodies  []string
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	if n >= len(f.replies) {
		http.Error(w, "no more replies", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[n])
}

const (
	turnOnReply = `{"candidates":[{"content":{"role":"model","parts":[
		{"functionCall":{"id":"call-1","name":"HassTurnOn","args":{"name":"kitchen light","domain":["light"]}}}]},
		"finishReason":"STOP"}]}`
	doneReply = `{"candidates":[{"content":{"role":"model","parts":[{"text":"The kitchen light is on."}]},"finishReason":"STOP"}]}`
)

// TestAskTurnsOnTheLight runs the agent against a fake Gemini endpoint that
// asks for HassTurnOn, and the generated fake server, in both protocol
// eras: the handler gets the model's arguments as typed values, and the
// model gets the handler's result.
func TestAskTurnsOnTheLight(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			ctx := context.Background()
			fake := &fakeGemini{replies: []string{turnOnReply, doneReply}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			client, err := genai.NewClient(ctx, &genai.ClientConfig{
				APIKey:      "test",
				Backend:     genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
			})
			if err != nil {
				t.Fatal(err)
			}
			h := &home{}
			session, err := homeassistant.NewFake(h, &runtime.Options{ProtocolVersion: era})
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()

			answer, err := Ask(ctx, client, "gemini-test", session, "Turn on the kitchen light")
			if err != nil {
				t.Fatal(err)
			}
			if answer != "The kitchen light is on." {
				t.Errorf("answer %q", answer)
			}
			if session.ProtocolVersion() != era {
				t.Errorf("the session spoke %s", session.ProtocolVersion())
			}

			h.mu.Lock()
			defer h.mu.Unlock()
			if len(h.turned) != 1 {
				t.Fatalf("HassTurnOn ran %d times", len(h.turned))
			}
			got := h.turned[0]
			if got.Name == nil || *got.Name != "kitchen light" || !slices.Equal(got.Domain, []string{"light"}) || got.Area != nil || got.Floor != nil || got.DeviceClass != nil {
				t.Errorf("HassTurnOn got %+v", got)
			}

			// The second request hands the handler's result back to the
			// model as the call's function response.
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if len(fake.bodies) != 2 {
				t.Fatalf("%d requests to Gemini", len(fake.bodies))
			}
			var second struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse *struct {
							ID       string          `json:"id"`
							Name     string          `json:"name"`
							Response json.RawMessage `json:"response"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal([]byte(fake.bodies[1]), &second); err != nil {
				t.Fatal(err)
			}
			last := second.Contents[len(second.Contents)-1].Parts
			if len(last) != 1 || last[0].FunctionResponse == nil || last[0].FunctionResponse.Name != "HassTurnOn" ||
				!strings.Contains(string(last[0].FunctionResponse.Response), "Turned on the kitchen light.") {
				t.Errorf("the model got back %s", fake.bodies[1])
			}
		})
	}
}
