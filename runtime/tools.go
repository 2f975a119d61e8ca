package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Progress is one progress notification about a call in flight.
type Progress struct {
	// Progress is the amount done so far; it increases with each
	// notification.
	Progress float64
	// Total is the total amount, or 0 when the server did not say.
	Total float64
	// Message describes the current step, if the server sent one.
	Message string
}

type progressKey struct{}

// WithProgress returns a context that asks the server for progress
// notifications about the calls made with it, and passes each to fn. fn runs
// on whichever goroutine is reading the connection at the time (the
// Session's own, or that of a call waiting for its response): it must return
// quickly and must not call the Session.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFrom returns the function WithProgress put in ctx, or nil. Caller
// implementations other than Session use it to pass progress on.
func ProgressFrom(ctx context.Context) func(Progress) {
	fn, _ := ctx.Value(progressKey{}).(func(Progress))
	return fn
}

// progress routes a notifications/progress to the call whose id is its token.
func (s *Session) progress(params []byte) {
	var p Progress
	var token int64
	var ok bool
	err := jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "progressToken"):
			// Tokens are the calls' numeric ids. One a server sent back as
			// a string still names only that call, as no token of this
			// client is a string: unlike a response id, it is taken.
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			token, ok = jsonrpc.Int(v)
		case jsonrpc.KeyIs(key, escaped, "progress"):
			p.Progress, _ = jsonrpc.Float(v)
		case jsonrpc.KeyIs(key, escaped, "total"):
			p.Total, _ = jsonrpc.Float(v)
		case jsonrpc.KeyIs(key, escaped, "message"):
			p.Message, _ = jsonrpc.String(v)
		}
		return nil
	})
	// An amount beyond a float64's range (1e400) reads as ±Inf, which
	// encoding/json refuses to write: the application would pass it on to
	// a model or a log that fails late.
	if err != nil || !ok || math.IsInf(p.Progress, 0) || math.IsInf(p.Total, 0) {
		s.log.Debug("ignored a malformed progress notification", "params", logParams{s, params})
		return
	}
	s.mu.Lock()
	var fn func(Progress)
	if c := s.pending[token]; c != nil && c.progress != nil {
		// Only a call that sent a progress token is stretched by
		// progress: the id of one that did not names no token.
		fn = c.progress
		c.progressAt.Store(time.Now().UnixNano())
	}
	s.mu.Unlock()
	if fn == nil {
		fn = s.taskProgressFor(token)
	}
	if fn != nil {
		fn(p)
	}
}

// ListTools returns every tool the server lists, following each page's
// cursor. A cursor the server already sent is reported as an error instead
// of being followed forever.
//
// In the 2026-07-28 era a listing whose every page carries a positive ttlMs
// is served again, without asking the server, until the first page's TTL
// passes (at most an hour) or the server sends
// notifications/tools/list_changed; one whose cacheScope is not "public" only
// while the HTTP transport's credentials stay the same. The cache is turned
// off by Options.DisableToolsCache.
func (s *Session) ListTools(ctx context.Context) ([]Tool, error) {
	if tools, ok := s.cachedTools(); ok {
		return tools, nil
	}
	return s.listTools(ctx)
}

// listTools lists the tools from the server, and keeps the listing for
// ListTools when its pages allow.
func (s *Session) listTools(ctx context.Context) ([]Tool, error) {
	gen, authGen := s.toolsGen.Load(), s.authGeneration()
	cacheable := !s.opts.DisableToolsCache
	var expires time.Time
	private := false
	var tools []Tool
	pg := pages{method: "tools/list", scrub: s.scrub}
	for {
		members, err := pg.params()
		if err != nil {
			return nil, err
		}
		st := s.state.Load()
		res, err := s.do(ctx, st, &request{method: "tools/list"}, members)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if err := pg.read(res); err != nil {
			return nil, err
		}
		received := time.Now()
		var next *string
		var pc pageCaching
		tools, next, err = decodeToolsPage(tools, res, s.opts.MaxTools, &pc)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if st.legacy || pc.ttl <= 0 {
			cacheable = false
		} else if e := received.Add(pc.ttl); expires.IsZero() || e.Before(expires) {
			expires = e
		}
		private = private || !pc.public
		more, err := pg.advance(next)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	names := make(map[string]bool, len(tools))
	for _, t := range tools {
		if names[t.Name] {
			s.log.Warn("the server lists a tool twice", "tool", t.Name)
		}
		names[t.Name] = true
	}
	if st := s.state.Load(); s.usesParamHeaders(st) {
		tools = s.learnParamHeaders(tools)
	} else if st.legacy && st.caps.ToolTasks && s.toolsGen.Load() == gen {
		// A listing that a change overtook is not learnt from.
		s.learnTaskSupport(tools)
	}
	if err := s.checkDrift(tools); err != nil {
		return tools, err
	}
	if cacheable && s.toolsGen.Load() == gen && s.authGeneration() == authGen {
		s.toolsCache.Store(&toolsCache{tools: slices.Clone(tools), expires: expires, private: private, gen: gen, authGen: authGen})
	}
	return tools, nil
}

// decodeToolsPage appends the tools of one tools/list result to tools and
// returns the next cursor, nil at the end. An empty cursor is a cursor. It
// records what the result says of caching in pc. A tool beyond limit in all
// is an error, found before the rest of the page is decoded.
func decodeToolsPage(tools []Tool, res []byte, limit int, pc *pageCaching) ([]Tool, *string, error) {
	var next *string
	var sawTools bool
	err := jsonrpc.ObjectEach(res, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "tools"):
			sawTools = true
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, func(raw []byte) error {
				if len(tools) == limit {
					return fmt.Errorf("the server lists more than %d tools (Options.MaxTools)", limit)
				}
				t, err := ParseTool(raw)
				if err != nil {
					return fmt.Errorf("tool %d: %w", len(tools), err)
				}
				if t.Name == "" {
					return fmt.Errorf("tool %d has no name", len(tools))
				}
				if de := (*jsontree.DuplicateKeyError)(nil); errors.As(jsontree.CheckUniqueKeys(t.Raw), &de) {
					return fmt.Errorf("tool %d (%s): %s: %w", len(tools), redact.Quote(t.Name), de.Pointer, de)
				}
				tools = append(tools, t)
				return nil
			})
		case jsonrpc.KeyIs(key, escaped, "nextCursor"):
			if jsonrpc.IsNull(v) {
				return nil
			}
			c, err := jsonrpc.String(v)
			if err != nil {
				return fmt.Errorf("nextCursor: %w", err)
			}
			next = &c
		case jsonrpc.KeyIs(key, escaped, "resultType"):
			return checkResultType(v)
		case jsonrpc.KeyIs(key, escaped, "ttlMs"):
			pc.decode("ttlMs", v)
		case jsonrpc.KeyIs(key, escaped, "cacheScope"):
			pc.decode("cacheScope", v)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !sawTools {
		return nil, nil, errors.New("the result has no tools array")
	}
	return tools, next, nil
}

// ParseTool decodes one tool as a server lists it in a tools/list result, or
// as a snapshot keeps it. Members are matched by their exact names, as the
// snapshot reader and the JSON Schema validator match them (encoding/json
// would also take "Name" for "name"). The schemas and annotations are slices
// of Raw, a copy of raw.
func ParseTool(raw []byte) (Tool, error) {
	t := Tool{Raw: bytes.Clone(raw)}
	err := jsonrpc.ObjectEach(t.Raw, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		var text *string
		switch string(k) {
		case "name":
			text = &t.Name
		case "title":
			text = &t.Title
		case "description":
			text = &t.Description
		case "inputSchema":
			t.InputSchema = v
		case "outputSchema":
			t.OutputSchema = v
		case "annotations":
			t.Annotations = v
		}
		if text == nil || jsonrpc.IsNull(v) {
			return nil
		}
		if *text, err = jsonrpc.String(v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	return t, err
}

// checkResultType accepts a complete result.
func checkResultType(v []byte) error {
	rt, err := jsonrpc.String(v)
	switch {
	case err != nil:
		return fmt.Errorf("unsupported resultType %s", redact.Quote(string(v)))
	case rt != "complete":
		return fmt.Errorf("unsupported resultType %s", redact.Quote(rt))
	}
	return nil
}

// maxInputRounds bounds the rounds of a call the server answers with
// input_required: the first request and its retries together.
const maxInputRounds = 10

// CallTool calls the tool name with args, which are marshaled with
// encoding/json unless they are a json.RawMessage or []byte, sent as they
// are; nil sends no arguments.
//
// The call is bounded by ctx and, when ctx has no deadline, by
// Options.CallTimeout. When it is cancelled or times out, the server is told
// (notifications/cancelled, or closing the request's stream on modern HTTP).
// A result whose isError flag is set is returned along with a *ToolError
// holding it; a JSON-RPC error is an *RPCError, and a server that exited is
// a *ServerExitedError (reach each with errors.As). Progress notifications
// reach the function WithProgress put in ctx.
//
// A call the server runs as a task (a 2025-11-25 tool whose taskSupport is
// required, or a 2026-07-28 result of type "task") is polled until it ends,
// within ctx or Options.TaskTimeout, and cancelled with tasks/cancel when
// either ends first; see StartToolTask for the details.
func (s *Session) CallTool(ctx context.Context, name string, args any) (*Result, error) {
	level, logged := s.callLevel(ctx, name)
	var start time.Time
	if logged {
		start = time.Now()
	}
	res, err := s.callTool(ctx, name, args)
	if logged {
		attrs := []slog.Attr{slog.String("tool", name), slog.Duration("took", time.Since(start))}
		if err != nil {
			attrs = append(attrs, slog.String("error", s.scrub(err.Error())))
		}
		s.log.LogAttrs(ctx, level, "tool call", attrs...)
	}
	return res, err
}

func (s *Session) callTool(ctx context.Context, name string, args any) (*Result, error) {
	raw, err := marshalArgs(args)
	if err != nil {
		return nil, fmt.Errorf("calling %s: arguments: %w", name, err)
	}
	st := s.state.Load()
	if st.legacy && st.caps.ToolTasks {
		if res, ok, err := s.legacyTaskCall(ctx, st, name, raw); ok {
			return res, err
		}
	}
	var params []ParamHeader
	headers := s.usesParamHeaders(st)
	if headers {
		if params, err = s.callParams(ctx, name, raw, false); err != nil {
			return nil, fmt.Errorf("calling %s: %w", name, err)
		}
	}
	var state, responses []byte
	for round := 0; ; round++ {
		r := &request{method: "tools/call", name: name, progress: ProgressFrom(ctx), params: params}
		cctx, stop := ctx, context.CancelFunc(func() {})
		if !st.legacy && st.caps.ToolTasks && ctx.Err() == nil {
			// The answer may name a task, which must be cancelled once
			// ctx has ended, as legacyTaskCall's: the request outlives
			// ctx by a moment, and ctx's deadline, if any, still rules
			// instead of Options.CallTimeout.
			if _, ok := ctx.Deadline(); ok {
				r.timeout = -1
			}
			cctx, stop = graceContext(ctx, taskCreateGrace)
		}
		data, err := s.do(cctx, st, r, func(b []byte) []byte {
			b = append(b, `"name":`...)
			b = jsonrpc.AppendString(b, name)
			if raw != nil {
				b = append(b, `,"arguments":`...)
				b = append(b, raw...)
			}
			return appendInputAnswers(b, responses, state)
		})
		stop()
		if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = ctx.Err() // the grace ended too
		}
		if headers && err != nil && isHeaderMismatch(err) {
			// The tool's annotations may have changed: learn them again
			// and retry once.
			headers = false
			if params, err = s.callParams(ctx, name, raw, true); err != nil {
				return nil, fmt.Errorf("calling %s: %w", name, err)
			}
			round--
			continue
		}
		if err != nil {
			if again, uerr := s.urlElicitationRetry(ctx, name, err, round); uerr != nil {
				return nil, uerr
			} else if again {
				continue
			}
			return nil, fmt.Errorf("calling %s: %w", name, err)
		}
		res, more, err := decodeResult(data)
		if errors.Is(err, errTaskResult) {
			if st.legacy {
				// Only a modern request declares the tasks extension, and
				// a client that does not must refuse a task.
				return nil, fmt.Errorf("calling %s: malformed result: unsupported resultType %s", name, redact.Quote("task"))
			}
			return s.modernTaskCall(ctx, name, data)
		}
		if err != nil {
			return nil, fmt.Errorf("calling %s: %w", name, err)
		}
		if more != nil {
			if round+1 >= maxInputRounds {
				return nil, &InputRoundsError{Tool: name, Rounds: maxInputRounds}
			}
			// The responses and state go with this call's next round only.
			if responses, err = s.fulfilInputRequests(r.causeContext(ctx), more.inputRequests); err != nil {
				return nil, fmt.Errorf("calling %s: %w", name, err)
			}
			state = more.requestState
			continue
		}
		if res.IsError {
			return res, &ToolError{Tool: name, Result: res, scrub: s.scrub}
		}
		return res, nil
	}
}

// marshalArgs returns the JSON text of a call's arguments, compact and on one
// line, or nil for no arguments.
func marshalArgs(args any) ([]byte, error) {
	var raw []byte
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		if string(b) == "null" {
			return nil, nil
		}
		return b, nil
	}
	raw = jsonrpc.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	if bytes.IndexByte(raw, '\n') >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if !json.Valid(raw) {
		return nil, errors.New("not valid JSON")
	}
	return raw, nil
}

// inputRequired is what a result of type input_required asks for: the
// inputRequests object (nil when absent) and the requestState to echo.
type inputRequired struct {
	inputRequests []byte
	requestState  []byte
}

// decodeResult decodes a tools/call result. It returns a non-nil
// *inputRequired instead of a result when the server asks for a retry.
func decodeResult(data []byte) (*Result, *inputRequired, error) {
	res := &Result{}
	var input inputMembers
	err := jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		switch string(k) {
		case "content":
			if jsonrpc.IsNull(v) {
				return nil
			}
			res.Content = make([]Content, 0, 1)
			return jsonrpc.ArrayEach(v, func(block []byte) error {
				var c Content
				if err := c.decode(block, true); err != nil {
					return fmt.Errorf("content block %d: %w", len(res.Content), err)
				}
				res.Content = append(res.Content, c)
				return nil
			})
		case "structuredContent":
			res.StructuredContent = json.RawMessage(v)
		case "isError":
			b, err := jsonrpc.Bool(v)
			if err != nil {
				return fmt.Errorf("isError: %w", err)
			}
			res.IsError = b
		case "_meta":
			res.Meta = json.RawMessage(v)
		case "resultType":
			if err := input.read(key, escaped, v); err != nil {
				return err
			}
			if input.resultType == "task" {
				return errTaskResult
			}
		case "inputRequests", "requestState":
			return input.read(key, escaped, v)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("malformed result: %w", err)
	}
	if more, err := input.result(); more != nil || err != nil {
		return nil, more, err
	}
	return res, nil, nil
}

// isToolsUnsupported reports whether err says the server has no tools.
func isToolsUnsupported(err error) bool {
	var rpc *RPCError
	return errors.As(err, &rpc) && rpc.Code == CodeMethodNotFound
}
