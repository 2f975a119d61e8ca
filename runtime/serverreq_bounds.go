package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Bounds of the requests a server sends the client.
//
// A server may send requests faster than the client answers them, and may
// stop reading the answers. The Session keeps reading whatever happens, so
// that the responses to its own calls still arrive, and bounds what the
// server's requests hold instead:
//
//   - ping, and requests no handler serves, are answered from the reading
//     goroutine itself: their responses wait in a queue of
//     maxQueuedReplies, written by one goroutine. A response that finds the
//     queue full is dropped: the server is not reading what the client
//     writes, and could not read it either.
//   - requests a handler serves (elicitation, sampling, roots) run at most
//     maxServedRequests at a time, holding at most maxServedBytes of
//     params between them (one request is always let in); the excess is
//     answered at once with error codeTooManyRequests.
//   - a request whose id is longer than maxReplyIDSize is not answered:
//     its id would have to be held and echoed.
//   - a request from a 2026-07-28 server other than ping is not answered,
//     and no handler runs for it: in that era the server sends only
//     responses and notifications, and asks for input with input_required
//     results. A ping is still answered: servers that keep sessions alive
//     with pings (go-sdk's keep-alive) send them in every era, and close a
//     session that stops answering.
const (
	maxQueuedReplies  = 64
	maxServedRequests = 16
	maxServedBytes    = 32 << 20
	maxReplyIDSize    = 256
	// maxQuotedMethod bounds the method name quoted in a -32601 response.
	maxQuotedMethod = 64
	// codeTooManyRequests answers a server request beyond the bounds.
	codeTooManyRequests = -32000
	// replyWriteTimeout bounds the write of one response.
	replyWriteTimeout = 10 * time.Second
)

// serverRequests holds what the Session's answers to server requests use.
type serverRequests struct {
	mu      sync.Mutex
	running int // handler runs in flight
	bytes   int // the size of their params

	startOnce sync.Once
	replies   chan queuedReply
	// dropped, longID and modern record that a reply was dropped, that a
	// request with an oversize id was ignored, and that a 2026-07-28
	// server's request was (each logged once as a warning).
	dropped, longID, modern bool
}

// queuedReply is a response waiting for the reply writer.
type queuedReply struct {
	id     string
	method string
	data   []byte
}

// admit reserves a handler run for params of size n, and reports whether
// the bounds allow it.
func (sr *serverRequests) admit(n int) bool {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.running >= maxServedRequests || sr.running > 0 && sr.bytes+n > maxServedBytes {
		return false
	}
	sr.running++
	sr.bytes += n
	return true
}

// release gives back what admit reserved.
func (sr *serverRequests) release(n int) {
	sr.mu.Lock()
	sr.running--
	sr.bytes -= n
	sr.mu.Unlock()
}

// serverRequest acts on a request from the server, from the goroutine that
// reads the connection, without blocking it.
func (s *Session) serverRequest(id []byte, method string, params []byte) {
	if len(id) > maxReplyIDSize {
		s.requests.warnOnce(s, &s.requests.longID, "ignored server requests with an oversize id", "method", quoteMethod(method), "idBytes", len(id))
		return
	}
	if st := s.state.Load(); st != nil && !st.legacy && method != "ping" {
		s.requests.warnOnce(s, &s.requests.modern, "ignored requests from the server: in the 2026-07-28 era a server sends none", "method", quoteMethod(method))
		return
	}
	if !s.hasHandler(method) {
		if method == "ping" {
			s.queueReply(id, method, jsonrpc.AppendResult(nil, id, []byte("{}")))
			return
		}
		s.queueReply(id, method, jsonrpc.AppendError(nil, id, CodeMethodNotFound, "method not found: "+quoteMethod(method)))
		return
	}
	n := len(params)
	if !s.requests.admit(n) {
		s.log.Debug("refused a server request: too many in flight", "method", method)
		s.queueReply(id, method, jsonrpc.AppendError(nil, id, codeTooManyRequests, "too many requests in flight"))
		return
	}
	s.wg.Add(1)
	go func(id, params []byte) {
		defer s.wg.Done()
		defer s.requests.release(n)
		s.serveHandled(id, method, params)
	}(clone(id), clone(params))
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// quoteMethod cuts a method name to maxQuotedMethod bytes, at a character
// boundary.
func quoteMethod(m string) string {
	if len(m) <= maxQuotedMethod {
		return m
	}
	return textcut.Prefix(m, maxQuotedMethod) + "..."
}

// queueReply queues data, the response to the server's request id, for the
// reply writer, or drops it when the queue is full.
func (s *Session) queueReply(id []byte, method string, data []byte) {
	sr := &s.requests
	sr.startOnce.Do(func() {
		sr.replies = make(chan queuedReply, maxQueuedReplies)
		s.wg.Add(1)
		go s.replyWriter()
	})
	select {
	case sr.replies <- queuedReply{id: string(id), method: method, data: data}:
		return
	default:
	}
	sr.warnOnce(s, &sr.dropped, "the server sends requests faster than it reads the answers; dropping answers", "method", quoteMethod(method))
}

// warnOnce logs msg as a warning the first time *flag is seen unset, and at
// debug level after, so that a flood does not flood the log.
func (sr *serverRequests) warnOnce(s *Session, flag *bool, msg string, args ...any) {
	sr.mu.Lock()
	first := !*flag
	*flag = true
	sr.mu.Unlock()
	if first {
		s.log.Warn(msg, args...)
	} else {
		s.log.Debug(msg, args...)
	}
}

// replyWriter writes the queued responses, one at a time, until the Session
// closes.
func (s *Session) replyWriter() {
	defer s.wg.Done()
	for {
		select {
		case r := <-s.requests.replies:
			s.writeResponse([]byte(r.id), r.method, r.data)
		case <-s.ctx.Done():
			return
		}
	}
}

// writeResponse sends b, the response to the server's request id, within
// replyWriteTimeout.
func (s *Session) writeResponse(id []byte, method string, b []byte) {
	st := s.state.Load()
	if st == nil {
		st = &negotiated{legacy: true}
	}
	m := &OutMessage{Data: withNewline(b), ID: string(id), ProtocolVersion: st.version}
	if s.opts.LogTraffic {
		s.traceOut(m, "")
	}
	ctx, cancel := context.WithTimeout(s.ctx, replyWriteTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, m); err != nil {
		s.log.Debug("answering a server request failed", "method", quoteMethod(method), "error", err)
	}
}
