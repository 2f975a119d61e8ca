package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// A ReplayTransport serves a recording made by a Recorder (or by
// "mcpgen record") back to a Session, for tests that run without the
// server. Each connection answers a request with the response recorded for
// a request of the same method and params, its id rewritten to the
// client's, and sends the notifications and requests the server sent
// around it in the recorded order. What it compares of the params leaves
// out _meta (the protocol metadata, progress tokens) and, for initialize,
// everything but protocolVersion, so that a recording made by one client
// serves another; a progress notification gets the client's progress token.
//
// A request recorded more than once is answered with its recorded
// responses in turn, the last one again once they are used up. A request
// the recording does not hold fails with an error naming its method and
// the recording; the notifications and responses the client sends need no
// answer and are taken as they come. A response the server sent to no
// request pending, which the Session ignores, is left out. A request that
// got no response when recorded, cancelled (at its timeout, or as its
// context ended) or cut short by the connection's end, fails at once with
// an error saying so; one cancelled as its context ended matches that
// context's error. A request the server made during a request of the
// client's is sent under its recorded id, or under an id of its own while
// another one sent with that id awaits its answer. A recording holds the
// protocol era it was made in: a client pinned to another one gets the
// error for the request it makes first.
type ReplayTransport struct {
	name string
	// initial are the messages the server sent before the client's first.
	initial []*recordedMessage
	// requests are the client's requests, by matchKey; notifications its
	// notifications, by method; responses its responses to the server's
	// requests, by id.
	requests      map[string][]*exchange
	notifications map[string][]*exchange
	responses     map[string][]*exchange
	// methods counts the requests of each method, for the error of an
	// unexpected one.
	methods map[string]int
}

// recordedMessage is one message of a recording, compact.
type recordedMessage struct {
	msg  jsonrpc.Message
	data []byte
	// owner is the client's request a response answers, or whose progress
	// a progress notification reports: the replay gives the message that
	// request's id or progress token.
	owner *exchange
}

// exchange is one message of the client's and what the server sent in
// answer to it, in order: the response, and the notifications and requests
// that came after the message. What the server sent after the client
// answered a request the server made during a request of the client's
// belongs to that answer (next), so that a replay sends it only once the
// client has answered again.
type exchange struct {
	replies []*recordedMessage
	// httpErr is the HTTP status that answered the request instead.
	httpErr *recordedHTTPError
	// progressToken is the request's recorded progress token, as JSON.
	progressToken []byte
	// next is the client's answer to a server request made during this
	// exchange, where what the server sent after it goes.
	next *exchange
	// method is the request's method; cancelled is set when the client
	// cancelled it while it awaited its response, for reason.
	method    string
	cancelled bool
	reason    string
	// failure says why the request got no response, when it got none: a
	// replay fails it at once rather than leave it to wait. cause is the
	// context error the client cancelled it for, if any.
	failure string
	cause   error
}

// current returns the exchange that what the server sends during ex goes
// to: ex, or the last answer the client gave during it.
func (ex *exchange) current() *exchange {
	for ex.next != nil {
		ex = ex.next
	}
	return ex
}

// NewReplayTransport reads the recording at path and returns a transport
// that serves it. A malformed recording is an error naming the file and the
// section at fault.
func NewReplayTransport(path string) (*ReplayTransport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxRecordingSize {
		return nil, fmt.Errorf("replay %s: the recording is larger than %d MiB", path, maxRecordingSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecordingSize+1))
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return Replay(path, data)
}

// Replay returns a transport that serves the recording data; name names it
// in errors, such as the file it was read from.
func Replay(name string, data []byte) (*ReplayTransport, error) {
	if len(data) > maxRecordingSize {
		return nil, fmt.Errorf("replay %s: the recording is larger than %d MiB", name, maxRecordingSize>>20)
	}
	comment, files := parseTxtar(data, maxRecordingMessages)
	if !strings.HasPrefix(string(comment), recordingHeader+"\n") {
		return nil, fmt.Errorf("replay %s: not a recording: it does not start with the line %q", name, recordingHeader)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("replay %s: the recording holds no messages", name)
	}
	if len(files) > maxRecordingMessages {
		return nil, fmt.Errorf("replay %s: the recording holds more than %d messages", name, maxRecordingMessages)
	}
	t := &ReplayTransport{
		name:          name,
		requests:      map[string][]*exchange{},
		notifications: map[string][]*exchange{},
		responses:     map[string][]*exchange{},
		methods:       map[string]int{},
	}
	if err := t.index(files); err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	return t, nil
}

// index reads the recording's files into t's exchanges.
func (t *ReplayTransport) index(files []recordingFile) error {
	var (
		last    *exchange
		pending = newPendingRequests()   // client requests awaiting their response
		asked   = map[string]*exchange{} // the client request each server request came during, by id
		prev    int
	)
	for _, f := range files {
		seq, from, kind, err := parseRecordingName(f.name)
		if err != nil {
			return fmt.Errorf("section %q: %v", f.name, err)
		}
		if seq <= prev {
			return fmt.Errorf("section %q: message %d comes after message %d", f.name, seq, prev)
		}
		prev = seq
		var b bytes.Buffer
		if err := json.Compact(&b, f.data); err != nil {
			return fmt.Errorf("section %q: the message is not valid JSON: %v", f.name, err)
		}
		if kind == kindHTTPError {
			var he recordedHTTPError
			if err := json.Unmarshal(b.Bytes(), &he); err != nil {
				return fmt.Errorf("section %q: %v", f.name, err)
			}
			ex := pending.remove(string(he.ID))
			if ex == nil || from != fromServer {
				return fmt.Errorf("section %q: an HTTP error for request id %s, which no request before it holds", f.name, he.ID)
			}
			ex.httpErr = &he
			continue
		}
		var rm *recordedMessage
		if kind == kindInvalid {
			var raw string
			if from != fromServer || json.Unmarshal(b.Bytes(), &raw) != nil {
				return fmt.Errorf("section %q: an invalid message is a JSON string the server sent", f.name)
			}
			rm = &recordedMessage{data: []byte(raw)}
		} else {
			rm = &recordedMessage{data: b.Bytes()}
			if rm.msg, err = jsonrpc.Decode(rm.data); err != nil {
				return fmt.Errorf("section %q: %v", f.name, err)
			}
			want := map[string]jsonrpc.Kind{kindRequest: jsonrpc.KindRequest, kindResponse: jsonrpc.KindResponse, kindNotification: jsonrpc.KindNotification}[kind]
			if rm.msg.Kind != want {
				return fmt.Errorf("section %q: the message is not a %s", f.name, kind)
			}
		}
		id := string(rm.msg.ID)
		if from == fromClient {
			ex := &exchange{}
			switch kind {
			case kindRequest:
				key, err := matchKey(rm.msg.Method, rm.msg.Params)
				if err != nil {
					return fmt.Errorf("section %q: params: %v", f.name, err)
				}
				ex.progressToken = progressTokenOf(rm.msg.Params)
				ex.method = rm.msg.Method
				t.requests[key] = append(t.requests[key], ex)
				t.methods[rm.msg.Method]++
				// A request sent again (after an expired session) takes
				// the response from the one before.
				pending.add(id, ex)
			case kindNotification:
				t.notifications[rm.msg.Method] = append(t.notifications[rm.msg.Method], ex)
				if rm.msg.Method == "notifications/cancelled" {
					pending.cancelled(rm.msg.Params)
				}
			case kindResponse:
				t.responses[id] = append(t.responses[id], ex)
				if during := asked[id]; during != nil {
					delete(asked, id)
					during.current().next = ex
				}
			}
			last = ex
			continue
		}
		var to *exchange
		switch {
		case kind == kindResponse:
			rm.owner = pending.remove(id)
			if rm.owner == nil {
				// A response to no request pending, such as one the
				// server sent twice: the Session ignored it, and the
				// replay leaves it out rather than send an id the
				// replaying client may be using.
				continue
			}
			to = rm.owner.current()
		case rm.msg.Method == "notifications/progress" && pending.forProgress(rm.msg.Params) != nil:
			rm.owner = pending.forProgress(rm.msg.Params)
			to = rm.owner.current()
		case pending.last() != nil:
			during := pending.last()
			if kind == kindRequest {
				asked[id] = during
			}
			to = during.current()
		case last != nil:
			to = last
		}
		if to == nil {
			t.initial = append(t.initial, rm)
		} else {
			to.replies = append(to.replies, rm)
		}
	}
	pending.unanswered()
	return nil
}

// pendingRequests are the client requests of a recording that await their
// response while it is indexed: by id, in the order they were sent, and by
// progress token, each found without a walk over the others, so that
// indexing stays linear in the recording's length.
type pendingRequests struct {
	byID    map[string]*exchange
	order   []*exchange // in the order sent; nil where one was answered, up to the last pending one
	at      map[*exchange]int
	byToken map[string][]*exchange
}

func newPendingRequests() *pendingRequests {
	return &pendingRequests{byID: map[string]*exchange{}, at: map[*exchange]int{}, byToken: map[string][]*exchange{}}
}

// add records ex, the request id, as pending. A request sent again (after
// an expired session) takes the response from the one before.
func (p *pendingRequests) add(id string, ex *exchange) {
	p.remove(id)
	p.byID[id] = ex
	p.at[ex] = len(p.order)
	p.order = append(p.order, ex)
	if ex.progressToken != nil {
		k := string(ex.progressToken)
		p.byToken[k] = append(p.byToken[k], ex)
	}
}

// remove returns the pending request id, no longer pending, or nil.
func (p *pendingRequests) remove(id string) *exchange {
	ex := p.byID[id]
	if ex == nil {
		return nil
	}
	delete(p.byID, id)
	p.order[p.at[ex]] = nil
	delete(p.at, ex)
	for len(p.order) > 0 && p.order[len(p.order)-1] == nil {
		p.order = p.order[:len(p.order)-1]
	}
	if ex.progressToken != nil {
		k := string(ex.progressToken)
		same := p.byToken[k]
		if i := slices.Index(same, ex); i >= 0 {
			same = slices.Delete(same, i, i+1)
		}
		if len(same) == 0 {
			delete(p.byToken, k)
		} else {
			p.byToken[k] = same
		}
	}
	return ex
}

// cancelled marks the pending request that the client's
// notifications/cancelled with params names as cancelled.
func (p *pendingRequests) cancelled(params []byte) {
	var n struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if json.Unmarshal(params, &n) != nil {
		return
	}
	if ex := p.byID[string(n.RequestID)]; ex != nil {
		ex.cancelled, ex.reason = true, n.Reason
	}
}

// unanswered sets the failure of the requests still pending at the end of
// the recording, which got no response: those the client cancelled, at
// their timeout ("timeout", the Session's reason) or as their context
// ended (its error's text), and those it did not cancel, whose connection
// ended first. subscriptions/listen, which no response ends, waits on
// replay as it waited then.
func (p *pendingRequests) unanswered() {
	for _, ex := range p.byID {
		switch {
		case ex.cancelled:
			ex.failure = "the client cancelled it (" + redact.Quote(ex.reason) + ")"
			switch ex.reason {
			case context.Canceled.Error():
				ex.cause = context.Canceled
			case context.DeadlineExceeded.Error():
				ex.cause = context.DeadlineExceeded
			}
		case ex.method != "subscriptions/listen":
			ex.failure = "the recording ends before its answer"
		}
	}
}

// last returns the pending request sent last, or nil.
func (p *pendingRequests) last() *exchange {
	if len(p.order) == 0 {
		return nil
	}
	return p.order[len(p.order)-1]
}

// forProgress returns the pending request, the last sent, whose progress
// token the progress notification with params names, or nil.
func (p *pendingRequests) forProgress(params []byte) *exchange {
	var n struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(params, &n) != nil || n.Token == nil {
		return nil
	}
	same := p.byToken[string(n.Token)]
	if len(same) == 0 {
		return nil
	}
	return same[len(same)-1]
}

// progressTokenOf returns the progress token in the _meta of a request's
// params, as compact JSON, or nil.
func progressTokenOf(params []byte) []byte {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta.Token == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, p.Meta.Token) != nil {
		return nil
	}
	return b.Bytes()
}

// matchKey returns what identifies a request in a recording: its method and
// its params in a canonical form (members sorted, _meta left out; of
// initialize's, protocolVersion alone).
func matchKey(method string, params []byte) (string, error) {
	params = jsonrpc.TrimSpace(params)
	if len(params) == 0 || jsonrpc.IsNull(params) {
		return method, nil
	}
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	if obj, ok := v.(map[string]any); ok {
		delete(obj, "_meta")
		if method == "initialize" {
			v = map[string]any{"protocolVersion": obj["protocolVersion"]}
		} else if len(obj) == 0 {
			return method, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return method + " " + string(b), nil
}

// Connect returns a connection that serves the recording from its start.
func (t *ReplayTransport) Connect(ctx context.Context) (Conn, error) {
	c := &replayConn{
		t:     t,
		next:  map[string]int{},
		sent:  map[*exchange]sentRequest{},
		asked: map[string]askedRequest{},
		ready: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	for _, m := range t.initial {
		c.queue = append(c.queue, m.data)
	}
	if len(c.queue) > 0 {
		c.ready <- struct{}{}
	}
	return c, nil
}

// sentRequest is what the client's request an exchange was taken for
// carried: its id and progress token, as JSON.
type sentRequest struct {
	id, token []byte
}

// use is one use of a client's request's exchange: the exchange and what
// the request it was taken for carried.
type use struct {
	ex   *exchange
	sent sentRequest
}

// askedRequest is a request the server made, as the replay sent it: the id
// it was recorded with, and the use of the client's request it came
// during, whose response the client's answer leads to.
type askedRequest struct {
	id string
	u  use
}

// maxReplayQueue bounds the messages a replay connection holds for the
// client to read: a Write that would pass it waits for Read.
const maxReplayQueue = 1024

// replayConn is one connection of a ReplayTransport.
type replayConn struct {
	t *ReplayTransport

	wmu sync.Mutex // keeps one exchange's replies together

	mu    sync.Mutex
	queue [][]byte
	next  map[string]int // the next exchange of each list, by list
	sent  map[*exchange]sentRequest
	// asked holds the server's requests sent and not answered yet, by the
	// id they were sent with, at most maxReplayQueue; askedSeq numbers the
	// ids given to a request sent again while its recorded id is in use.
	asked    map[string]askedRequest
	askedSeq int
	ready    chan struct{} // signalled when queue gains a message or room
	done     chan struct{}
	once     sync.Once
}

// ConnCapabilities declares that Write neither keeps its context nor the
// message's data.
func (c *replayConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{WriteIgnoresContext: true, ReleasesData: true}
}

func (c *replayConn) Write(ctx context.Context, m *OutMessage) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	msg, err := jsonrpc.Decode(m.Data)
	if err != nil {
		return fmt.Errorf("replay %s: the client sent a malformed message: %v", c.t.name, err)
	}
	var (
		ex *exchange
		u  use
	)
	switch msg.Kind {
	case jsonrpc.KindRequest:
		key, err := matchKey(msg.Method, msg.Params)
		if err != nil {
			return fmt.Errorf("replay %s: %s: params: %v", c.t.name, msg.Method, err)
		}
		ex = c.take("r "+key, c.t.requests[key])
		if ex == nil {
			return c.unexpected(msg.Method, m.Name)
		}
		u = use{ex: ex, sent: sentRequest{id: bytes.Clone(jsonrpc.TrimSpace(msg.ID)), token: progressTokenOf(msg.Params)}}
		c.mu.Lock()
		c.sent[ex] = u.sent
		c.mu.Unlock()
		if ex.httpErr != nil {
			return &HTTPError{Method: ex.httpErr.HTTPMethod, URL: "replay " + c.t.name, StatusCode: ex.httpErr.StatusCode, Body: []byte(ex.httpErr.Body)}
		}
		if ex.failure != "" {
			// What the server sent meanwhile, then the failure.
			if len(ex.replies) > 0 {
				if err := c.send(ctx, ex, u); err != nil {
					return err
				}
			}
			err := fmt.Errorf("replay %s: the recorded %s request got no answer: %s", c.t.name, msg.Method, ex.failure)
			if ex.cause != nil {
				return &replayCancelledError{err: err, cause: ex.cause}
			}
			return err
		}
	case jsonrpc.KindNotification:
		ex = c.take("n "+msg.Method, c.t.notifications[msg.Method])
	case jsonrpc.KindResponse:
		id := string(jsonrpc.TrimSpace(msg.ID))
		c.mu.Lock()
		if a, ok := c.asked[id]; ok {
			delete(c.asked, id)
			id, u = a.id, a.u
		}
		c.mu.Unlock()
		ex = c.take("s "+id, c.t.responses[id])
	}
	if ex == nil || len(ex.replies) == 0 {
		return nil
	}
	return c.send(ctx, ex, u)
}

// unexpected returns the error for a request the recording does not hold.
func (c *replayConn) unexpected(method, name string) error {
	what := method
	if name != "" {
		what += " " + name
	}
	n := c.t.methods[method]
	switch n {
	case 0:
		return fmt.Errorf("replay %s: the recording holds no %s request", c.t.name, what)
	case 1:
		return fmt.Errorf("replay %s: the recording holds no %s request with these params (it holds 1 %s request with others)", c.t.name, what, method)
	}
	return fmt.Errorf("replay %s: the recording holds no %s request with these params (it holds %d %s requests with others)", c.t.name, what, n, method)
}

// take returns the next exchange of list, under key: each in turn, then the
// last one again.
func (c *replayConn) take(key string, list []*exchange) *exchange {
	if len(list) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.next[key]
	if i >= len(list) {
		return list[len(list)-1]
	}
	c.next[key] = i + 1
	return list[i]
}

// send queues the replies of ex to a message of the client's: responses
// with the id of the client's request they answer, progress notifications
// with its progress token. u is the use of the client's request ex was
// taken for, or of the one whose server request the client answered: the
// same exchange, taken again for the same request in flight at once,
// answers each with its own id, also after a request of the server's.
func (c *replayConn) send(ctx context.Context, ex *exchange, u use) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, r := range ex.replies {
		data := r.data
		switch {
		case r.owner != nil:
			sent := u.sent
			if r.owner != u.ex || sent.id == nil {
				c.mu.Lock()
				sent = c.sent[r.owner]
				c.mu.Unlock()
			}
			switch {
			case sent.id == nil:
			case r.msg.Kind == jsonrpc.KindResponse:
				data = withID(r.msg, sent.id)
			case sent.token != nil && r.owner.progressToken != nil:
				data = withProgressToken(r, r.owner.progressToken, sent.token)
			}
		case r.msg.Kind == jsonrpc.KindRequest:
			data = c.ask(r, u)
		}
		if err := c.push(ctx, data); err != nil {
			return err
		}
	}
	return nil
}

// ask returns the server's request r as the replay sends it during u,
// noting it to lead the client's answer back to u. Its recorded id is kept,
// unless a request sent with it awaits its answer: the same exchange taken
// for two requests in flight at once sends r twice, each under an id of
// its own.
func (c *replayConn) ask(r *recordedMessage, u use) []byte {
	id := string(jsonrpc.TrimSpace(r.msg.ID))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) >= maxReplayQueue {
		return r.data
	}
	sid := id
	if _, busy := c.asked[sid]; busy {
		c.askedSeq++
		sid = string(jsonrpc.AppendString(nil, fmt.Sprintf("replay-%d-%s", c.askedSeq, id)))
	}
	c.asked[sid] = askedRequest{id: id, u: u}
	if sid == id {
		return r.data
	}
	b := make([]byte, 0, len(r.msg.Method)+len(r.msg.Params)+len(sid)+50)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, sid...)
	b = append(b, `,"method":`...)
	b = jsonrpc.AppendString(b, r.msg.Method)
	if r.msg.Params != nil {
		b = append(b, `,"params":`...)
		b = append(b, r.msg.Params...)
	}
	return append(b, '}')
}

// withID returns the response m with the id id.
func withID(m jsonrpc.Message, id []byte) []byte {
	b := make([]byte, 0, len(m.Result)+len(m.Error)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	if m.Error != nil {
		b = append(b, `,"error":`...)
		b = append(b, m.Error...)
	} else {
		b = append(b, `,"result":`...)
		b = append(b, m.Result...)
	}
	return append(b, '}')
}

// withProgressToken returns the progress notification r with the token
// from replaced by to.
func withProgressToken(r *recordedMessage, from, to []byte) []byte {
	var p map[string]json.RawMessage
	if json.Unmarshal(r.msg.Params, &p) != nil {
		return r.data
	}
	var b bytes.Buffer
	if json.Compact(&b, p["progressToken"]) != nil || !bytes.Equal(b.Bytes(), from) {
		return r.data
	}
	p["progressToken"] = to
	params, err := json.Marshal(p)
	if err != nil {
		return r.data
	}
	out := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":`)
	out = append(out, params...)
	return append(out, '}')
}

// push queues one message for Read, waiting while the queue is full.
func (c *replayConn) push(ctx context.Context, data []byte) error {
	for {
		c.mu.Lock()
		if len(c.queue) < maxReplayQueue {
			c.queue = append(c.queue, data)
			c.mu.Unlock()
			c.signal()
			return nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *replayConn) signal() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *replayConn) Read(ctx context.Context) ([]byte, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			data := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			// Wakes a Write waiting for room, or the next Read.
			c.signal()
			return bytes.Clone(data), nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close ends the connection: a blocked Read returns ErrClosed.
func (c *replayConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// replayCancelledError fails on replay a request that the client cancelled
// when recorded, as its context ended: it matches that context's error.
type replayCancelledError struct {
	err   error
	cause error
}

func (e *replayCancelledError) Error() string { return e.err.Error() }

func (e *replayCancelledError) Unwrap() error { return e.cause }
