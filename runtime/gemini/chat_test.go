package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// fakeGemini is a Gemini API stand-in speaking the REST format of
// generateContent. It answers the n-th request with replies[n] (the last
// reply repeats) and keeps every request body.
type fakeGemini struct {
	replies []string
	mu      sync.Mutex
	bodies  [][]byte
	paths   []string
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	n := len(f.bodies) - 1
	f.mu.Unlock()
	if n >= len(f.replies) {
		n = len(f.replies) - 1
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[n])
}

func (f *fakeGemini) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

func newFakeGemini(t *testing.T, replies ...string) (*fakeGemini, *genai.Client) {
	t.Helper()
	f := &fakeGemini{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, client
}

// The signatures are opaque bytes to the client; these are base64 as the API
// sends them.
const (
	sigThought = "c2lnbmF0dXJlIG9uZQ=="
	sigCall    = "AAECAwQFBgcICf/+/fz7+g=="
)

const twoCallsReply = `{
  "candidates": [{
    "content": {
      "role": "model",
      "parts": [
        {"text": "I should echo and turn on the light.", "thought": true, "thoughtSignature": "` + sigThought + `"},
        {"functionCall": {"id": "call-1", "name": "echo", "args": {"message": "hi"}}, "thoughtSignature": "` + sigCall + `"},
        {"functionCall": {"id": "call-2", "name": "light.turn_on", "args": {"entity": "light.kitchen", "brightness": 30}}}
      ]
    },
    "finishReason": "STOP"
  }],
  "modelVersion": "gemini-test"
}`

const textReply = `{"candidates": [{"content": {"role": "model", "parts": [{"text": "Done: "}, {"text": "hi, and the light is on."}]}, "finishReason": "STOP"}]}`

// wireRequest is the part of a generateContent request body the tests read.
type wireRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			ThoughtSignature json.RawMessage `json:"thoughtSignature"`
			FunctionCall     *struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				ID       string         `json:"id"`
				Name     string         `json:"name"`
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func decodeRequest(t *testing.T, body []byte) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	return r
}

func echoCaller() *fakeCaller {
	return &fakeCaller{answer: func(name string, args json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: name + " " + string(args)}}}, nil
	}}
}

func TestChatTwoCallsInOneTurn(t *testing.T) {
	fake, client := newFakeGemini(t, twoCallsReply, textReply)
	caller := echoCaller()
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	chat := &Chat{Client: client, Model: "gemini-test", Toolset: ts}
	answer, err := chat.Send(context.Background(), "echo hi and turn on the kitchen light")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "Done: hi, and the light is on." {
		t.Errorf("answer = %q", answer)
	}
	if got := len(chat.History); got != 4 {
		t.Fatalf("history has %d turns, want 4 (user, model, responses, model)", got)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, p := range fake.paths {
		if p != "POST /v1beta/models/gemini-test:generateContent" {
			t.Errorf("request to %s", p)
		}
	}
	first := decodeRequest(t, reqs[0])
	if len(first.Tools) != 1 || len(first.Tools[0].FunctionDeclarations) != len(testTools) {
		t.Errorf("first request declares %+v", first.Tools)
	}
	second := decodeRequest(t, reqs[1])
	if len(second.Contents) != 3 {
		t.Fatalf("second request has %d contents, want 3", len(second.Contents))
	}
	model := second.Contents[1]
	if model.Role != "model" || len(model.Parts) != 3 {
		t.Fatalf("model turn sent back as %+v", model)
	}
	if got := string(model.Parts[0].ThoughtSignature); got != `"`+sigThought+`"` {
		t.Errorf("thought signature sent back as %s, want %q", got, sigThought)
	}
	if got := string(model.Parts[1].ThoughtSignature); got != `"`+sigCall+`"` {
		t.Errorf("call signature sent back as %s, want %q", got, sigCall)
	}
	if model.Parts[2].ThoughtSignature != nil {
		t.Errorf("a signature appeared on the second call: %s", model.Parts[2].ThoughtSignature)
	}
	responses := second.Contents[2]
	if responses.Role != "user" || len(responses.Parts) != 2 {
		t.Fatalf("function responses sent as %+v", responses)
	}
	want := []struct{ id, name, output string }{
		{"call-1", "echo", `echo {"message":"hi"}`},
		{"call-2", "light.turn_on", `light.turn_on {"brightness":30,"entity":"light.kitchen"}`},
	}
	for i, w := range want {
		fr := responses.Parts[i].FunctionResponse
		if fr == nil || fr.ID != w.id || fr.Name != w.name || fr.Response["output"] != w.output {
			t.Errorf("function response %d = %+v, want id %s, name %s, output %q", i, fr, w.id, w.name, w.output)
		}
	}
	if n := len(caller.recorded()); n != 2 {
		t.Errorf("%d tool calls, want 2", n)
	}
}

func TestChatInvalidArguments(t *testing.T) {
	bad := `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "x1", "name": "light.turn_on", "args": {"brightness": "full"}}}]}}]}`
	fake, client := newFakeGemini(t, bad, textReply)
	caller := echoCaller()
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "light"); err != nil {
		t.Fatal(err)
	}
	if calls := caller.recorded(); len(calls) != 0 {
		t.Errorf("invalid arguments reached the tool: %v", calls)
	}
	second := decodeRequest(t, fake.requests()[1])
	fr := second.Contents[2].Parts[0].FunctionResponse
	msg, _ := fr.Response["error"].(string)
	if fr.ID != "x1" || !strings.HasPrefix(msg, "invalid arguments for light.turn_on at ") {
		t.Errorf("function response = %+v", fr)
	}
}

func TestChatErrors(t *testing.T) {
	loop := `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "status"}}]}}]}`
	cases := []struct {
		name    string
		reply   string
		steps   int
		want    string
		is      error
		wantReq int
	}{
		{"max steps", loop, 3, "gemini chat: the model kept calling tools past the step limit (3 requests)", ErrMaxSteps, 3},
		{"no candidate", `{"promptFeedback": {"blockReason": "SAFETY"}}`, 0, "gemini chat: the prompt was blocked (SAFETY)", nil, 1},
		{"thoughts only", `{"candidates": [{"content": {"role": "model", "parts": [{"text": "hmm", "thought": true}]}, "finishReason": "MAX_TOKENS"}]}`, 0, "gemini chat: the model stopped without an answer (MAX_TOKENS)", nil, 1},
		{"empty turn", `{"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL"}]}`, 0, "gemini chat: the model returned an empty turn (MALFORMED_FUNCTION_CALL)", nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake, client := newFakeGemini(t, c.reply)
			ts, err := NewToolset(echoCaller(), testTools, nil)
			if err != nil {
				t.Fatal(err)
			}
			chat := &Chat{Client: client, Model: "m", Toolset: ts, MaxSteps: c.steps}
			_, err = chat.Send(context.Background(), "go")
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v, want %s", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if n := len(fake.requests()); n != c.wantReq {
				t.Errorf("%d requests, want %d", n, c.wantReq)
			}
		})
	}
}

// TestMalformedResponses sends a Chat and a Sampler, through the real genai
// client, responses the SDK cannot read or that hold null parts. A null
// candidate panics inside the SDK's conversion: it is an error, and the
// chat still works for the next response. A null part is dropped from the
// model's turn, so that the history stays one the SDK can send again.
func TestMalformedResponses(t *testing.T) {
	ctx := context.Background()
	user := func(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleUser) }
	answer := `{"candidates":[{"content":{"role":"model","parts":[{"text":"fine"}]}}]}`

	_, client := newFakeGemini(t, `{"candidates":[null]}`, answer)
	c := &Chat{Client: client, Model: "m", History: []*genai.Content{user("hi")}}
	if _, err := c.Run(ctx); err == nil || !strings.Contains(err.Error(), "genai SDK panicked") {
		t.Errorf("a null candidate: error %v, want the SDK's panic as an error", err)
	}
	if got, err := c.Run(ctx); err != nil || got != "fine" {
		t.Errorf("the next response: %q, %v", got, err)
	}

	_, client = newFakeGemini(t, `{"candidates":[{"content":{"role":"model","parts":[{"text":"a"},null]}}]}`, answer)
	c = &Chat{Client: client, Model: "m", History: []*genai.Content{user("hi")}}
	if got, err := c.Run(ctx); err != nil || got != "a" {
		t.Errorf("a turn with a null part: %q, %v", got, err)
	}
	if n := len(c.History[1].Parts); n != 1 {
		t.Errorf("the model's turn kept %d parts, want the 1 that is not null", n)
	}
	c.History = append(c.History, user("again"))
	if got, err := c.Run(ctx); err != nil || got != "fine" {
		t.Errorf("the request after a null part: %q, %v", got, err)
	}

	_, client = newFakeGemini(t, `{"candidates":[null]}`)
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	if _, err := (&Sampler{Models: client.Models, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil || !strings.Contains(err.Error(), "genai SDK panicked") {
		t.Errorf("sampling, a null candidate: error %v", err)
	}
	f := &fakeModels{reply: &genai.GenerateContentResponse{Candidates: []*genai.Candidate{nil}}}
	if _, err := (&Sampler{Models: f, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil || err.Error() != "gemini: the model returned a null candidate" {
		t.Errorf("sampling, a nil candidate from Models: error %v", err)
	}
}

func TestTakesImages(t *testing.T) {
	for model, want := range map[string]bool{
		"gemini-3-flash-preview":                        true,
		"gemini-3.1-pro":                                true,
		"models/gemini-3-pro":                           true,
		"publishers/google/models/gemini-4.0-flash":     true,
		"gemini-live-3-flash":                           true,
		"gemini-2.5-flash":                              false,
		"models/gemini-2.5-pro":                         false,
		"gemini-2.0-flash-001":                          false,
		"gemini-1.5-pro":                                false,
		"gemini-live-2.5-flash-preview":                 false,
		"gemini-2.5-flash-native-audio-preview-09-2025": false,
		"gemini-flash-latest":                           false,
		"gemini-exp-1206":                               false,
		"gemini-1206":                                   false,
		"gemini-3x":                                     false,
		"tunedModels/my-model":                          false,
		"":                                              false,
		"m":                                             false,
	} {
		if got := TakesImages(model); got != want {
			t.Errorf("TakesImages(%q) = %v, want %v", model, got, want)
		}
	}
}

// A Chat attaches a result's images to the function response only for a
// model that takes them: a Gemini 2.x model refuses the request, and the
// response would stay in the history, failing every later request too.
func TestChatAttachesImagesOnlyForModelsThatTakeThem(t *testing.T) {
	call := `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "s1", "name": "status", "args": {}}}]}}]}`
	png := []byte{0x89, 'P', 'N', 'G'}
	for model, attach := range map[string]bool{"gemini-2.5-flash": false, "gemini-3-flash-preview": true} {
		t.Run(model, func(t *testing.T) {
			fake, client := newFakeGemini(t, call, textReply)
			caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
				return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "the door:"}, {Type: "image", MIMEType: "image/png", Data: png}}}, nil
			}}
			ts, err := NewToolset(caller, testTools, nil)
			if err != nil {
				t.Fatal(err)
			}
			chat := &Chat{Client: client, Model: model, Toolset: ts}
			if _, err := chat.Send(context.Background(), "show me the door"); err != nil {
				t.Fatal(err)
			}
			var second struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse *struct {
							Response map[string]any    `json:"response"`
							Parts    []json.RawMessage `json:"parts"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal(fake.requests()[1], &second); err != nil {
				t.Fatal(err)
			}
			fr := second.Contents[2].Parts[0].FunctionResponse
			want, parts := "the door:\n[image: image/png, 4 bytes, not shown]", 0
			if attach {
				want, parts = "the door:\n[image 1: image/png, attached]", 1
			}
			if fr == nil || fr.Response["output"] != want || len(fr.Parts) != parts {
				t.Errorf("the function response sent is %+v, want the output %q and %d parts", fr, want, parts)
			}
		})
	}
}
