package openai

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestResponsesUnfinishedIsAnError: a response that is not finished (with
// Params.Background the API answers at once, queued, with no output) or
// that was cancelled has no answer, and Run says so instead of returning an
// empty one as if the model had answered.
func TestResponsesUnfinishedIsAnError(t *testing.T) {
	for _, c := range []struct{ status, err string }{
		{"queued", "openai responses: the response is queued, not finished; a conversation cannot run in the background (Params.Background)"},
		{"in_progress", "openai responses: the response is in_progress, not finished; a conversation cannot run in the background (Params.Background)"},
		{"cancelled", "openai responses: the response was cancelled"},
	} {
		_, ts := deviceToolset(t)
		_, client := newFakeResponses(t, nil, fixed(responseBody("resp_b", c.status)))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, Params: &responses.ResponseNewParams{Background: openai.Bool(true)}}
		answer, err := conv.Send(context.Background(), "is the heater on?")
		if err == nil || err.Error() != c.err {
			t.Errorf("status %s: Send = %q, %v; want the error %q", c.status, answer, err, c.err)
		}
	}
}
