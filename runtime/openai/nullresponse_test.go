package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestNullResponse: a body of JSON null, which the SDK decodes as no value
// and no error, is an error of the chat, the Responses conversation and the
// sampler, not a nil dereference.
func TestNullResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "null")
	}))
	t.Cleanup(srv.Close)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	ctx := context.Background()
	want := "the response is null"
	if _, err := (&Chat{Client: &client, Model: "m"}).Send(ctx, "hi"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Chat: %v", err)
	}
	if _, err := (&Responses{Client: &client, Model: "m"}).Send(ctx, "hi"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Responses: %v", err)
	}
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	if _, err := (&Sampler{Completions: &client.Chat.Completions, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Sampler: %v", err)
	}
}
