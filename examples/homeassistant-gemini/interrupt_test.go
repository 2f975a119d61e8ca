package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitingInput is standard input with nobody typing: its first Read closes
// reading, and no Read returns until the test ends.
type waitingInput struct {
	*io.PipeReader
	once    sync.Once
	reading chan struct{}
}

func (w *waitingInput) Read(p []byte) (int, error) {
	w.once.Do(func() { close(w.reading) })
	return w.PipeReader.Read(p)
}

// interruptWait is how long an interrupted program may take to end: ample on
// a loaded machine, for what takes milliseconds.
const interruptWait = 30 * time.Second

// TestInterruptAtThePrompt: an interrupt (a cancelled ctx) while the program
// waits for the next prompt on standard input ends it, as Ctrl-C should.
func TestInterruptAtThePrompt(t *testing.T) {
	_, base := newStandIn(t)
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	stdin := &waitingInput{PipeReader: r, reading: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv("TEST_HA_TOKEN", "ha-secret")
	env := map[string]string{"GEMINI_API_KEY": "gemini-key"}
	var stdout, stderr bytes.Buffer
	args := []string{"--yes", "--url", base + "/api/mcp", "--token-env", "TEST_HA_TOKEN", "--base-url", "http://127.0.0.1:1", "--model", "gemini-test"}
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, stdin, &stdout, &stderr, func(k string) string { return env[k] }) }()
	select {
	case <-stdin.reading:
	case code := <-done:
		t.Fatalf("exit status %d before reading a prompt, stderr:\n%s", code, stderr.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("exit status %d, stderr %q; want 1 and the interruption", code, stderr.String())
		}
	case <-time.After(interruptWait):
		w.Close() // lets run end
		<-done
		t.Fatalf("still waiting for a prompt %v after the interrupt", interruptWait)
	}
}
