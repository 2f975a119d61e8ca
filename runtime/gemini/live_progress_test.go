package gemini

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// stalledProgressConn is a Live session whose progress responses
// (WillContinue set) do not go out until release is closed, as on a
// connection whose peer stopped reading: writing says when one started.
type stalledProgressConn struct {
	*memLiveConn
	writing chan struct{}
	release chan struct{}
}

func (c *stalledProgressConn) SendToolResponse(in genai.LiveToolResponseInput) error {
	for _, r := range in.FunctionResponses {
		if r.WillContinue != nil && *r.WillContinue {
			select {
			case c.writing <- struct{}{}:
			default:
			}
			select {
			case <-c.release:
			case <-c.closed:
				return errMemClosed
			}
		}
	}
	return c.memLiveConn.SendToolResponse(in)
}

// TestLiveCancelDoesNotWaitForProgress: the model's toolCallCancellation
// cancels a NON_BLOCKING call, and the session's next message is handled,
// while a progress response of that call is still being written.
func TestLiveCancelDoesNotWaitForProgress(t *testing.T) {
	conn := &stalledProgressConn{memLiveConn: newMemLiveConn(), writing: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(conn.release)
	cancelled := make(chan struct{})
	handled := make(chan *genai.LiveServerMessage, 1)
	ts, err := NewToolset(callerFunc(func(ctx context.Context, _ string, _ any) (*runtime.Result, error) {
		go runtime.ProgressFrom(ctx)(runtime.Progress{Progress: 1, Total: 2})
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}), loopTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &LiveOptions{NonBlocking: []string{"switch_on"}, Progress: true}
	live, err := newLive(conn, ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- live.Run(context.Background(), func(m *genai.LiveServerMessage) error {
			handled <- m
			return nil
		})
	}()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "lamp"}})
	select {
	case <-conn.writing:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("no progress response was written")
	}
	conn.in <- &genai.LiveServerMessage{ToolCallCancellation: &genai.LiveServerToolCallCancellation{IDs: []string{"a"}}}
	select {
	case <-cancelled:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the cancelled call's context did not end while its progress response was being written")
	}
	next := &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{TurnComplete: true}}
	select {
	case conn.in <- next:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the session's next message was not read while a progress response was being written")
	}
	select {
	case m := <-handled:
		if m != next {
			t.Errorf("handled %+v", m)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the session's next message was not handled")
	}
}

// TestLiveProgressMessageBounded: the message of a progress notification,
// or of a task's status, goes to the model cut to maxProgressMessage bytes,
// as a result's text is cut to toolcall.MaxOutput: a server's 1 MiB status
// message, sent at every poll, went whole into the model's context.
func TestLiveProgressMessageBounded(t *testing.T) {
	conn := newMemLiveConn()
	huge := strings.Repeat("é", 1<<19) // 1 MiB, two bytes a rune
	runMem(t, conn, callerFunc(func(ctx context.Context, _ string, _ any) (*runtime.Result, error) {
		runtime.ProgressFrom(ctx)(runtime.Progress{Progress: 1, Message: huge})
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
	}), &LiveOptions{NonBlocking: []string{"switch_on"}, Progress: true}, nil)
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "lamp"}})
	r := conn.next(t)
	out, _ := r.Response["output"].(map[string]any)
	msg, _ := out["message"].(string)
	if r.WillContinue == nil || !*r.WillContinue || !strings.HasPrefix(msg, "éé") {
		t.Fatalf("first response %+v, want the progress", r)
	}
	if len(msg) > maxProgressMessage+100 || !utf8.ValidString(msg) {
		t.Errorf("the model got a progress message of %d bytes (valid UTF-8: %v), want at most about %d", len(msg), utf8.ValidString(msg), maxProgressMessage)
	}
	if r := conn.next(t); r.WillContinue == nil || *r.WillContinue {
		t.Errorf("final response %+v", r)
	}
}
