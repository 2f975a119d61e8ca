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
	cancel   func() // called after the first request, when set
}

func (s *script) Request(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := min(s.requests, len(s.calls)-1)
	s.requests++
	if s.cancel != nil {
		s.cancel()
	}
	return s.calls[n], nil
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
