package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// taskInput is what is known of the input requests of a 2026-07-28 task
// answered so far. Task.mu guards it.
type taskInput struct {
	// answered holds the keys of the input requests answered with
	// tasks/update: the server names each request with a key of its own
	// for the task, and may still show one it has not taken in yet.
	answered map[string]bool
	// rounds counts the tasks/update that answered the task.
	rounds int
}

// answerInput runs the Options handlers for the input requests of a
// 2026-07-28 task in status TaskInputRequired that were not answered yet,
// one after the other in the order of their keys, and sends the answers with
// one tasks/update. It does nothing when every request was answered, and
// returns nil when the server refuses the answers of a task that ended
// meanwhile, the task's outcome then being known. After
// maxInputRounds such rounds it gives up with an *InputRoundsError. A
// handler's error fails it, except an elicitation handler's, which declines.
func (t *Task) answerInput(ctx context.Context, raw json.RawMessage) error {
	// One wait at a time answers, so that no request is asked twice.
	t.inputMu.Lock()
	defer t.inputMu.Unlock()
	var reqs map[string]inputRequest
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return fmt.Errorf("task %s of tool %s: malformed inputRequests: %w", t.quote(t.ID), t.Tool, err)
	}
	var keys []string
	t.mu.Lock()
	for _, k := range sortedKeys(reqs) {
		if !t.input.answered[k] {
			keys = append(keys, k)
		}
	}
	rounds := t.input.rounds
	t.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	if rounds >= maxInputRounds {
		return &InputRoundsError{Tool: t.Tool, TaskID: t.ID, Rounds: rounds, scrub: t.scrubFunc()}
	}
	responses, err := t.s.fulfilKeys(ctx, reqs, keys)
	if err != nil {
		return fmt.Errorf("task %s of tool %s: %w", t.quote(t.ID), t.Tool, err)
	}
	err = t.Update(ctx, responses)
	var rpc *RPCError
	if err != nil && errors.As(err, &rpc) && ctx.Err() == nil {
		// The task may have ended while the handlers ran, and the server
		// refused answers it no longer waits for: the outcome, which
		// tasks/get shows, stands.
		if _, gerr := t.Get(ctx); gerr == nil && t.finished() {
			return nil
		}
	}
	return err
}

// answered records a tasks/update that answered the input requests keyed
// as responses, an inputResponses object, are.
func (t *Task) answered(responses []byte) {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(responses, &keys)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.input.answered == nil {
		t.input.answered = make(map[string]bool, len(keys))
	}
	for k := range keys {
		t.input.answered[k] = true
	}
	t.input.rounds++
}
