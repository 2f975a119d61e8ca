package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// DefaultHandlerTimeout is the default of Options.HandlerTimeout. It is long
// because an elicitation handler usually waits for a person.
const DefaultHandlerTimeout = 10 * time.Minute

// HandlerTimeoutError reports an elicitation, sampling or roots handler that
// did not return within Options.HandlerTimeout. It matches
// context.DeadlineExceeded with errors.Is.
type HandlerTimeoutError struct {
	Method  string
	Timeout time.Duration
}

func (e *HandlerTimeoutError) Error() string {
	return fmt.Sprintf("%s handler: no answer within %s (Options.HandlerTimeout)", e.Method, e.Timeout)
}

// Is makes a HandlerTimeoutError match context.DeadlineExceeded.
func (e *HandlerTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// runHandler runs fn within timeout (none when negative). It returns when
// fn does or when the time is up, whichever is first, so that a handler that
// ignores its context cannot hold the server's request or the call forever;
// a panic in fn is an error.
func runHandler[T any](ctx context.Context, timeout time.Duration, method string, fn func(context.Context) (T, error)) (T, error) {
	if timeout == 0 {
		timeout = DefaultHandlerTimeout
	}
	timedOut := &HandlerTimeoutError{Method: method, Timeout: timeout}
	var cancel context.CancelFunc = func() {}
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, timedOut)
	}
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.err = fmt.Errorf("%s handler panicked: %v", method, p)
			}
			ch <- o
		}()
		o.v, o.err = fn(ctx)
	}()
	var o outcome
	select {
	case o = <-ch:
		if o.err == nil {
			return o.v, nil
		}
	case <-ctx.Done():
		o.err = ctx.Err()
	}
	if context.Cause(ctx) == error(timedOut) {
		// The handler's own bound ran out, not the caller's.
		o.err = timedOut
	}
	return o.v, o.err
}

// clientCapabilities returns the capabilities object the client declares
// with protocol version: one member for each handler Options sets.
func (s *Session) clientCapabilities(version string) []byte {
	b := []byte{'{'}
	member := func(m string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	modern := isModern(version)
	if s.opts.Roots != nil {
		if modern {
			member(`"roots":{}`)
		} else {
			member(`"roots":{"listChanged":true}`)
		}
	}
	if s.opts.Sampling != nil {
		member(`"sampling":{}`)
	}
	if s.opts.Elicitation != nil && version >= "2025-06-18" {
		if version >= "2025-11-25" {
			member(`"elicitation":{"form":{},"url":{}}`)
		} else {
			member(`"elicitation":{}`)
		}
	}
	if modern {
		member(`"extensions":{"` + tasksExtension + `":{}}`)
	}
	return append(b, '}')
}

// answerDirect runs the handler for a server's elicitation, sampling or
// roots request and returns the result, or nil and the error to answer
// with. ok is false for a method no handler serves.
func (s *Session) answerDirect(ctx context.Context, method string, params []byte) (result []byte, err error, ok bool) {
	switch {
	case method == "elicitation/create" && s.opts.Elicitation != nil:
		res, err := s.elicit(ctx, params)
		return res, err, true
	case method == "sampling/createMessage" && s.opts.Sampling != nil:
		res, err := s.sample(ctx, params)
		return res, err, true
	case method == "roots/list" && s.opts.Roots != nil:
		res, err := s.listRoots(ctx)
		return res, err, true
	}
	return nil, nil, false
}

// served tracks the server's requests a handler is working on, so that the
// server's notifications/cancelled can end them.
type served struct {
	mu     sync.Mutex
	cancel map[string]context.CancelCauseFunc
	// onRemove, for tests, runs when a request is no longer served, after
	// its answer, if any, was written.
	onRemove func()
}

func (sv *served) add(id string, cancel context.CancelCauseFunc) {
	sv.mu.Lock()
	if sv.cancel == nil {
		sv.cancel = make(map[string]context.CancelCauseFunc)
	}
	sv.cancel[id] = cancel
	sv.mu.Unlock()
}

func (sv *served) remove(id string) {
	sv.mu.Lock()
	delete(sv.cancel, id)
	sv.mu.Unlock()
	if sv.onRemove != nil {
		sv.onRemove()
	}
}

// cancelServed ends the handler working on the request a legacy server's
// notifications/cancelled names, and reports whether there was one.
func (s *Session) cancelServed(params []byte) bool {
	var id string
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.KeyIs(key, escaped, "requestId") {
			id = string(v)
		}
		return nil
	})
	s.served.mu.Lock()
	cancel := s.served.cancel[id]
	s.served.mu.Unlock()
	if cancel != nil {
		cancel(errServerCancelled)
	}
	return cancel != nil
}

// errServerCancelled is the cause of the context of a server's request that
// the server cancelled.
var errServerCancelled = errors.New("the server cancelled the request")

// serveHandled answers a server request that a handler serves. A request
// the server cancelled meanwhile is not answered: the server expects no
// response to it.
func (s *Session) serveHandled(id []byte, method string, params []byte) {
	ctx, cancel := context.WithCancelCause(s.serverRequestContext())
	defer cancel(nil)
	key := string(id)
	s.served.add(key, cancel)
	defer s.served.remove(key)
	res, err, _ := s.answerServerRequest(ctx, id, method, params)
	if context.Cause(ctx) == errServerCancelled {
		s.log.Debug("did not answer a request the server cancelled", "method", quoteMethod(method))
		return
	}
	var b []byte
	if err != nil {
		rpc := handlerRPCError(err)
		s.log.Warn("answering a server request with an error", "method", method, "error", err)
		b = jsonrpc.AppendError(nil, id, rpc.Code, rpc.Message)
	} else {
		b = jsonrpc.AppendResult(nil, id, res)
	}
	s.writeResponse(id, method, b)
}

// hasHandler reports whether Options has the handler for a server request,
// and the client declared the capability it needs: a server may not ask
// for elicitation of a client that declared capabilities for a version
// without it (2025-03-26 and older).
func (s *Session) hasHandler(method string) bool {
	switch method {
	case "elicitation/create":
		v := s.declaredVersion()
		return s.opts.Elicitation != nil && (v == "" || v >= "2025-06-18")
	case "sampling/createMessage":
		return s.opts.Sampling != nil
	case "roots/list":
		return s.opts.Roots != nil
	}
	return false
}

// elicitationComplete passes a 2025-11-25 notifications/elicitation/complete
// to Options.OnElicitationComplete.
func (s *Session) elicitationComplete(params []byte) {
	var id string
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.KeyIs(key, escaped, "elicitationId") {
			id, _ = jsonrpc.String(v)
		}
		return nil
	})
	if id == "" {
		s.log.Debug("ignored a malformed elicitation/complete notification", "params", logParams{s, params})
		return
	}
	if s.opts.OnElicitationComplete != nil {
		s.opts.OnElicitationComplete(id)
	}
}
