package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestConfirmerPolicies(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "plain"},
		{Name: "readonly", Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
		{Name: "additive", Annotations: json.RawMessage(`{"destructiveHint":false}`)},
		{Name: "readonly-destructive", Annotations: json.RawMessage(`{"readOnlyHint":true,"destructiveHint":true}`)},
		{Name: "garbled", Annotations: json.RawMessage(`{"readOnlyHint":"yes"}`)},
		{Name: "marked"},
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	ask := func(context.Context, runtime.ProposedCall) (bool, error) { return false, nil }
	cases := []struct {
		name string
		conf *runtime.Confirmation
		want []string // the tools whose calls are asked about
	}{
		{"none", nil, nil},
		{"destructive", &runtime.Confirmation{Ask: ask, ReadOnly: []string{"marked"}}, []string{"plain", "readonly-destructive", "garbled"}},
		{"distrusted", &runtime.Confirmation{Ask: ask, IgnoreAnnotations: true, ReadOnly: []string{"marked"}}, []string{"plain", "readonly", "additive", "readonly-destructive", "garbled"}},
		{"every", &runtime.Confirmation{Ask: ask, Policy: runtime.ConfirmEvery}, names},
		{"listed", &runtime.Confirmation{Ask: ask, Policy: runtime.ConfirmListed, Tools: []string{"readonly"}}, []string{"readonly"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cf, err := NewConfirmer(c.conf, names)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range tools {
				if cf.Gate(tool) != nil {
					got = append(got, tool.Name)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("asks about %v, want %v", got, c.want)
			}
		})
	}
}

func TestConfirmerAnswers(t *testing.T) {
	tool := runtime.Tool{Name: "t"}
	cases := []struct {
		name string
		ask  func(context.Context, runtime.ProposedCall) (bool, error)
		want string
	}{
		{"yes", func(context.Context, runtime.ProposedCall) (bool, error) { return true, nil }, ""},
		{"no", func(context.Context, runtime.ProposedCall) (bool, error) { return false, nil }, "the user declined the call to t; it was not run"},
		{"error", func(context.Context, runtime.ProposedCall) (bool, error) { return true, errors.New("no terminal") },
			"the call to t was not run: asking the user for confirmation failed: no terminal"},
		{"panic", func(context.Context, runtime.ProposedCall) (bool, error) { panic("boom") },
			"the call to t was not run: asking the user for confirmation failed: internal error: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cf, err := NewConfirmer(&runtime.Confirmation{Ask: c.ask}, []string{"t"})
			if err != nil {
				t.Fatal(err)
			}
			called := false
			caller := callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
				called = true
				return &runtime.Result{}, nil
			})
			out := Run(context.Background(), caller, "t", nil, []byte(`{}`), nil, cf.Gate(tool))
			if out.Error != c.want || called != (c.want == "") || out.Called != called {
				t.Errorf("outcome %+v, called %v; want error %q", out, called, c.want)
			}
		})
	}
}

// TestConfirmerCancelledWhileAsking: a question the cancellation ended is
// reported as a cancellation, whatever Ask returned.
func TestConfirmerCancelledWhileAsking(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cf, err := NewConfirmer(&runtime.Confirmation{Ask: func(ctx context.Context, _ runtime.ProposedCall) (bool, error) {
		cancel()
		return false, ctx.Err()
	}}, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	if msg := cf.Gate(runtime.Tool{Name: "t"})(ctx, json.RawMessage(`{}`)); msg != "the call to t was not run: the conversation was cancelled" {
		t.Errorf("message %q", msg)
	}
}

// TestConfirmerQueuedCallLeavesOnCancel: a call waiting for its turn behind
// a question that takes its time leaves the queue as soon as its own context
// ends, without waiting for the user to answer the other question.
func TestConfirmerQueuedCallLeavesOnCancel(t *testing.T) {
	asking, answer := make(chan struct{}), make(chan struct{})
	cf, err := NewConfirmer(&runtime.Confirmation{Ask: func(ctx context.Context, _ runtime.ProposedCall) (bool, error) {
		close(asking)
		<-answer
		return true, nil
	}}, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	gate := cf.Gate(runtime.Tool{Name: "t"})
	first := make(chan string, 1)
	go func() { first <- gate(context.Background(), json.RawMessage(`{}`)) }()
	<-asking
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan string, 1)
	go func() { second <- gate(ctx, json.RawMessage(`{}`)) }()
	cancel()
	if msg := <-second; msg != "the call to t was not run: the conversation was cancelled" {
		t.Errorf("the queued call got %q", msg)
	}
	close(answer)
	if msg := <-first; msg != "" {
		t.Errorf("the first call got %q", msg)
	}
}
