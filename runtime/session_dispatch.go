package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// readLoop reads every message from the connection until it ends.
func (s *Session) readLoop(ctx context.Context) {
	defer close(s.readerDone)
	for s.dispatch(s.conn.Read(ctx)) {
	}
}

// dispatch acts on what one Read returned, and reports whether the
// connection still works.
func (s *Session) dispatch(data []byte, err error) bool {
	if err == nil {
		s.handle(data)
		return true
	}
	var tl *MessageTooLargeError
	if errors.As(err, &tl) {
		s.tooLarge(tl)
		return true
	}
	var re *RequestError
	if errors.As(err, &re) {
		s.requestFailed(re)
		return true
	}
	s.fail(err)
	return false
}

// fail ends the Session after the connection failed, and fails every call in
// flight with the reason.
func (s *Session) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		var se *ServerExitedError
		if !errors.As(err, &se) && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("connection to the server lost: %w", err)
		}
		s.err = err
		s.log.Warn("connection to the server ended", "error", err)
	}
	select {
	case <-s.dead:
	default:
		close(s.dead)
		if s.endInfo != nil {
			s.endInfo()
		}
	}
	err = s.err
	pending := s.pending
	s.pending = make(map[int64]*call)
	s.mu.Unlock()
	for _, c := range pending {
		c.ch <- reply{err: err}
	}
}

// tooLarge fails the one request an oversize message answered.
func (s *Session) tooLarge(e *MessageTooLargeError) {
	raw, ok := jsonrpc.FindID(e.Prefix, e.Suffix)
	id, isInt := jsonrpc.Int(raw)
	if !ok || !isInt {
		s.log.Warn("dropped an oversize message from the server", "limit", e.Limit)
		return
	}
	s.deliver(id, raw, reply{err: e})
}

// requestFailed fails the one request whose response stream broke, such as
// a modern Streamable HTTP stream cut before its response; the connection
// itself stays usable.
func (s *Session) requestFailed(e *RequestError) {
	id, ok := jsonrpc.Int([]byte(e.ID))
	if !ok {
		s.log.Warn("a response stream failed for an unknown request", "id", e.ID, "error", e.Err)
		return
	}
	s.deliver(id, []byte(e.ID), reply{err: e})
}

// deliver hands rep to the call with the given id.
func (s *Session) deliver(id int64, rawID []byte, rep reply) {
	s.mu.Lock()
	c := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if c == nil {
		if id > 0 && id <= s.nextID.Load() {
			s.log.Debug("ignored a response to a request no longer waiting", "id", string(rawID))
		} else {
			s.log.Warn("ignored a response with an unknown id", "id", string(rawID))
		}
		return
	}
	c.ch <- rep
}

// handle dispatches one message or batch from the server.
func (s *Session) handle(data []byte) {
	if jsonrpc.IsBatch(data) {
		if err := jsonrpc.Batch(data, func(m []byte) error { s.handleOne(m); return nil }); err != nil {
			s.log.Warn("ignored the rest of a malformed batch from the server", "error", err)
		}
		return
	}
	s.handleOne(data)
}

func (s *Session) handleOne(data []byte) {
	m, err := jsonrpc.Decode(data)
	if err != nil {
		s.malformed(data, err)
		return
	}
	switch m.Kind {
	case jsonrpc.KindResponse:
		id, ok := jsonrpc.Int(m.ID)
		if s.opts.LogTraffic {
			s.traceIn(data, s.pendingTool(id))
		}
		if !ok {
			s.log.Warn("ignored a response with an unknown id", "id", string(m.ID))
			return
		}
		var rep reply
		if m.Error != nil && !jsonrpc.IsNull(m.Error) {
			rep.err = s.decodeRPCError(m.Error)
		} else {
			rep.result = m.Result
		}
		s.deliver(id, m.ID, rep)
	case jsonrpc.KindRequest:
		if s.opts.LogTraffic {
			s.traceIn(data, "")
		}
		s.serverRequest(m.ID, m.Method, m.Params)
	case jsonrpc.KindNotification:
		if s.opts.LogTraffic {
			s.traceIn(data, "")
		}
		s.notification(m.Method, m.Params)
	}
}

// pendingTool returns the tool of the pending call id, for logging.
func (s *Session) pendingTool(id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.pending[id]; c != nil {
		return c.tool
	}
	return ""
}

// malformed handles a message that is not valid JSON-RPC: if its id can be
// read and names a call in flight, that call fails; otherwise it is logged
// and dropped.
func (s *Session) malformed(data []byte, err error) {
	if raw, ok := jsonrpc.FindID(data, data); ok {
		if id, isInt := jsonrpc.Int(raw); isInt && s.isPending(id) {
			s.deliver(id, raw, reply{err: fmt.Errorf("invalid response from the server: %v", err)})
			return
		}
	}
	s.log.Warn("ignored a malformed message from the server", "error", err, "message", snippet([]byte(s.scrub(string(data)))))
}

func (s *Session) isPending(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[id] != nil
}

// logParams is the start of a message's params in a log record, with the
// connection's secrets scrubbed before it is cut; the work is done only when
// a handler writes the record.
type logParams struct {
	s      *Session
	params []byte
}

func (p logParams) LogValue() slog.Value {
	return slog.StringValue(snippet([]byte(p.s.scrub(string(p.params)))))
}

// snippet returns the start of data for a log record.
func snippet(data []byte) string {
	const max = 200
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}

// decodeRPCError decodes the error member of a response, with the secrets
// the connection knows scrubbed from its message and data. A malformed one
// is scrubbed before its start is cut for the message: cut first, a secret
// the cut ends in the middle of would no longer be matched.
func (s *Session) decodeRPCError(raw []byte) *RPCError {
	var e RPCError
	if err := json.Unmarshal(raw, &e); err != nil {
		return &RPCError{Code: CodeInternalError, Message: "malformed error response: " + snippet([]byte(s.scrub(string(raw))))}
	}
	switch {
	case s.cc.ScrubSecrets != nil:
		e.Message = s.scrub(e.Message)
		if len(e.Data) > 0 {
			e.Data = json.RawMessage(s.scrub(string(e.Data)))
		}
	case len(e.Data) > 0:
		// A copy of its own, apart from the message it came in.
		e.Data = append(json.RawMessage(nil), e.Data...)
	}
	return &e
}

// notification handles a notification from the server.
func (s *Session) notification(method string, params []byte) {
	switch method {
	case "notifications/progress":
		s.progress(params)
	case "notifications/tools/list_changed":
		s.invalidateTools()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	case "notifications/message":
		s.serverLog(params)
	case "notifications/subscriptions/acknowledged":
		s.subscriptionAcknowledged(params)
	case "notifications/cancelled":
		s.serverCancelled(params)
	case "notifications/elicitation/complete":
		s.elicitationComplete(params)
	default:
		s.log.Debug("ignored a notification", "method", method)
	}
}

// subscriptionAcknowledged checks the acknowledgement of the tool list
// subscription, which names the notifications the server will send, a
// subset of those asked for: one without tool list changes means that
// OnToolsChanged will not run for the server's changes, which is worth a
// warning.
func (s *Session) subscriptionAcknowledged(params []byte) {
	s.log.Debug("subscription acknowledged", "notifications", logParams{s, params})
	s.ackOnce.Do(func() { close(s.listenAcked) })
	tools := false
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		if !jsonrpc.KeyIs(key, escaped, "notifications") {
			return nil
		}
		return jsonrpc.ObjectEach(v, func(k []byte, esc bool, v []byte) error {
			if jsonrpc.KeyIs(k, esc, "toolsListChanged") {
				tools, _ = jsonrpc.Bool(v)
			}
			return nil
		})
	})
	if !tools {
		s.log.Warn("the server acknowledged the tool list subscription without tool list changes: Options.OnToolsChanged will not run for them")
	}
}

// serverCancelled handles a notifications/cancelled from the server. In the
// 2026-07-28 era it ends a subscriptions/listen request (any request of ours
// it names fails). In the legacy era it names a request the server sent:
// a handler working on it is cancelled.
func (s *Session) serverCancelled(params []byte) {
	if st := s.state.Load(); st == nil || st.legacy {
		// A legacy server cancels only requests it sent.
		if s.cancelServed(params) {
			return
		}
		s.log.Debug("the server cancelled a request", "params", logParams{s, params})
		return
	}
	var id int64
	var ok bool
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.KeyIs(key, escaped, "requestId") {
			id, ok = jsonrpc.Int(v)
		}
		return nil
	})
	if !ok || !s.isPending(id) {
		s.log.Debug("the server cancelled a request", "params", logParams{s, params})
		return
	}
	s.deliver(id, nil, reply{err: errors.New("the server cancelled the request")})
}

// changedLoop runs OnToolsChanged for list-changed notifications, one at a
// time, coalescing those that arrive meanwhile.
func (s *Session) changedLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.readerDone:
			return
		case <-s.changed:
			s.opts.OnToolsChanged()
		}
	}
}

// subscriptionAckWait bounds how long Connect waits for the server to
// acknowledge the subscriptions/listen request of OnToolsChanged.
const subscriptionAckWait = 10 * time.Second

// awaitSubscription waits until the server has acknowledged the tool list
// subscription, or ended it, at most subscriptionAckWait: a 2026-07-28
// server sends a change only on the subscriptions it has taken (go-sdk's
// drops one made before), so a change made right after Connect returned
// would be lost. Only ctx ending is an error.
func (s *Session) awaitSubscription(ctx context.Context) error {
	t := time.NewTimer(subscriptionAckWait)
	defer t.Stop()
	select {
	case <-s.listenAcked:
	case <-s.listenDone:
	case <-t.C:
		s.log.Warn("the server has not acknowledged the tool list subscription: changes made before it does may not reach OnToolsChanged", "waited", subscriptionAckWait)
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// listen keeps a 2026-07-28 subscriptions/listen request open for tool list
// changes until the Session closes or the server ends it.
func (s *Session) listen(ctx context.Context) {
	defer close(s.listenDone)
	st := s.state.Load()
	_, err := s.do(ctx, st, &request{method: "subscriptions/listen", timeout: -1, noResend: true, passive: true}, func(b []byte) []byte {
		return append(b, `"notifications":{"toolsListChanged":true}`...)
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("the tool list subscription ended", "error", err)
	}
}
