package agent

import (
	"context"
	"errors"
	"testing"
)

// script is a Model whose n-th request returns calls[n] (the last one
// repeats) and that records what the loop did with them.
type script struct {
	calls    [][]string
	requests int
	ran      []string
	skipped  []string
	why      string
	cancel   func()       // called after the first request, when set
	apps     []NotRunCall // the application's calls of the first turn
}

func (s *script) Request(ctx context.Context) ([]string, []NotRunCall, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := min(s.requests, len(s.calls)-1)
	s.requests++
	if s.cancel != nil {
		s.cancel()
	}
	if n == 0 {
		return s.calls[n], s.apps, nil
	}
	return s.calls[n], nil, nil
}

func (s *script) Run(ctx context.Context, calls []string) { s.ran = append(s.ran, calls...) }

func (s *script) Skip(calls []string, why string) {
	s.skipped = append(s.skipped, calls...)
	s.why = why
}

func TestLoopStopsAtStepLimit(t *testing.T) {
	s := &script{calls: [][]string{{"a", "b"}}}
	err := Loop(context.Background(), 3, s)
	if !errors.Is(err, ErrMaxSteps) || err.Error() != "the model kept calling tools past the step limit (3 requests)" {
		t.Errorf("error = %v", err)
	}
	if s.requests != 3 || len(s.ran) != 4 || len(s.skipped) != 2 {
		t.Errorf("%d requests, ran %v, skipped %v; want 3 requests, 4 run, 2 skipped", s.requests, s.ran, s.skipped)
	}
	if s.why != "the conversation reached its limit of 3 model requests first" {
		t.Errorf("why = %q", s.why)
	}
}

func TestLoopCancelledRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{calls: [][]string{{"a"}}, cancel: cancel}
	if err := Loop(ctx, 5, s); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if s.requests != 1 || len(s.ran) != 0 || len(s.skipped) != 1 || s.why != "the conversation was cancelled" {
		t.Errorf("%d requests, ran %v, skipped %v (%s)", s.requests, s.ran, s.skipped, s.why)
	}
}

func TestLoopAnswer(t *testing.T) {
	s := &script{calls: [][]string{{"a"}, nil}}
	if err := Loop(context.Background(), 0, s); err != nil {
		t.Fatal(err)
	}
	if s.requests != 2 || len(s.ran) != 1 || len(s.skipped) != 0 {
		t.Errorf("%d requests, ran %v, skipped %v", s.requests, s.ran, s.skipped)
	}
}

// A turn that calls the application's tools ends the loop once its other
// calls ran: no request follows, whatever the step limit, and the error
// names the application's calls.
func TestLoopLeavesTheApplicationsCalls(t *testing.T) {
	apps := []NotRunCall{{Type: "function", Name: "lookup", CallID: "c1"}}
	for _, maxSteps := range []int{1, 5} {
		s := &script{calls: [][]string{{"a", "b"}, {"c"}}, apps: apps}
		err := Loop(context.Background(), maxSteps, s)
		var nr *CallsNotRunError
		if !errors.As(err, &nr) || len(nr.Calls) != 1 || errors.Is(err, ErrMaxSteps) {
			t.Errorf("max %d: error = %v, want only a *CallsNotRunError", maxSteps, err)
		}
		if s.requests != 1 || len(s.ran) != 2 || len(s.skipped) != 0 {
			t.Errorf("max %d: %d requests, ran %v, skipped %v; want 1 request, a and b run", maxSteps, s.requests, s.ran, s.skipped)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{calls: [][]string{{"a"}}, apps: apps, cancel: cancel}
	err := Loop(ctx, 5, s)
	var nr *CallsNotRunError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &nr) {
		t.Errorf("cancelled: error = %v, want context.Canceled and a *CallsNotRunError", err)
	}
	if len(s.ran) != 0 || len(s.skipped) != 1 {
		t.Errorf("cancelled: ran %v, skipped %v", s.ran, s.skipped)
	}
}
