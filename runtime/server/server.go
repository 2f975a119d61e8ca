package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// A ToolHandler runs one call of a tool. args are the call's arguments, a
// JSON object that satisfies the tool's input schema. ctx ends when the
// client cancels the call or goes away.
//
// A *runtime.RPCError the handler returns (UnknownToolError, say) is sent
// as the JSON-RPC error of the call; any other error becomes a result whose
// isError flag is set, with the error's text as its content, as does a
// panic. A nil result with a nil error is an empty result.
type ToolHandler func(ctx context.Context, args json.RawMessage) (*runtime.Result, error)

// Tool is one tool a Server offers: how tools/list shows it, and the handler
// that answers its calls.
type Tool struct {
	// Tool is the tool as tools/list lists it: its Raw bytes when set, as
	// a server sent them, and its members otherwise. Its input schema
	// checks the arguments of each call, and its output schema, if any,
	// the structured content of each result.
	Tool runtime.Tool
	// Handle answers the tool's calls.
	Handle ToolHandler
}

// Options configure a Server. The zero value is ready to use.
type Options struct {
	// Name and Version are the server's name and version in its
	// serverInfo; they default to "mcpgen-server" and "dev".
	Name, Version string
	// Instructions, when set, are the server's instructions to the model.
	Instructions string
	// ProtocolVersions are the protocol versions the server speaks; nil
	// means all that runtime.SupportedProtocolVersions lists. A list
	// without a 2026-07-28 version makes a legacy server, which answers
	// server/discover as an unknown method; a list with no legacy version
	// a modern-only one, which refuses the initialize handshake.
	ProtocolVersions []string
	// MaxMessageSize bounds one incoming message, in bytes; zero means
	// runtime.DefaultMaxMessageSize.
	MaxMessageSize int
	// Prompts and ResourceTemplates are offered beside the tools, with the
	// prompts and resources capabilities, when there are any.
	Prompts           []Prompt
	ResourceTemplates []ResourceTemplate
	// AskTimeout bounds how long Elicit, Sample and ListRoots wait for the
	// client's answer in the legacy era, beside the handler's context: a
	// client that never answers, and never cancels the call, would
	// otherwise hold the handler, and its place among the requests a
	// connection runs at once, for as long as the connection lasts. Zero
	// means DefaultAskTimeout; a negative value, no bound but the
	// context's.
	AskTimeout time.Duration
}

// DefaultAskTimeout is the default of Options.AskTimeout. It is longer than
// runtime.DefaultHandlerTimeout, within which a runtime.Session answers the
// server's request, with an error when its handler has not returned, so
// that such a client's own answer comes first.
const DefaultAskTimeout = 15 * time.Minute

// maxInFlight is how many requests one stdio or in-memory connection runs
// at once, and maxQueued how many it holds, running or waiting, and
// maxQueuedBytes the size of their messages in all: beyond that, a request
// is refused with an internal error.
const (
	maxInFlight    = 16
	maxQueued      = 1024
	maxQueuedBytes = 64 << 20
)

// Server answers MCP requests for a table of tools. It is safe for
// concurrent use, and serves any number of connections at once.
type Server struct {
	opts   Options
	tools  map[string]*tool
	order  []*tool
	modern []string // the 2026-07-28-era versions spoken, newest first
	legacy []string // the legacy versions spoken, newest first
	info   json.RawMessage

	prompts     map[string]*prompt
	promptOrder []*prompt
	templates   []*template

	// stateKey signs the requestState of the 2026-07-28 input rounds.
	stateKey [32]byte
	// asks are the requests sent on the event streams of HTTP responses.
	asks awaiting
}

// tool is a Tool with its listing and its compiled schemas.
type tool struct {
	name   string
	handle ToolHandler
	listed json.RawMessage
	input  *runtime.Schema
	output *runtime.Schema
	// headers are the x-mcp-header annotations of the input schema.
	headers []paramHeader
}

// New returns a Server offering tools, listed in the order given, and the
// prompts and resource templates of opts. It refuses a tool, prompt or
// template without a name or a handler, a name used twice, a schema or URI
// template that does not compile, and a protocol version the runtime does
// not speak, with an error naming the tool, prompt, template or version.
func New(tools []Tool, opts *Options) (*Server, error) {
	s := &Server{tools: make(map[string]*tool, len(tools))}
	rand.Read(s.stateKey[:])
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = "mcpgen-server"
	}
	if s.opts.Version == "" {
		s.opts.Version = "dev"
	}
	if s.opts.AskTimeout == 0 {
		s.opts.AskTimeout = DefaultAskTimeout
	}
	if s.opts.MaxMessageSize <= 0 {
		s.opts.MaxMessageSize = runtime.DefaultMaxMessageSize
	}
	supported := runtime.SupportedProtocolVersions()
	versions := s.opts.ProtocolVersions
	if versions == nil {
		versions = supported
	}
	if len(versions) == 0 {
		return nil, errors.New("server: Options.ProtocolVersions lists no version")
	}
	for _, v := range supported {
		if !slices.Contains(versions, v) {
			continue
		}
		if v >= runtime.LatestProtocolVersion {
			s.modern = append(s.modern, v)
		} else {
			s.legacy = append(s.legacy, v)
		}
	}
	for _, v := range versions {
		if !slices.Contains(supported, v) {
			return nil, fmt.Errorf("server: protocol version %q is not one the runtime speaks (%v)", v, supported)
		}
	}
	info, err := json.Marshal(runtime.Implementation{Name: s.opts.Name, Version: s.opts.Version})
	if err != nil {
		return nil, fmt.Errorf("server: encoding serverInfo: %w", err)
	}
	s.info = info
	for i, t := range tools {
		name := t.Tool.Name
		switch {
		case name == "":
			return nil, fmt.Errorf("server: tool %d has no name", i)
		case t.Handle == nil:
			return nil, fmt.Errorf("server: tool %s has no handler", name)
		case s.tools[name] != nil:
			return nil, fmt.Errorf("server: tool %s is listed twice", name)
		}
		st := &tool{name: name, handle: t.Handle, listed: t.Tool.Raw}
		if len(st.listed) == 0 {
			if st.listed, err = json.Marshal(t.Tool); err != nil {
				return nil, fmt.Errorf("server: encoding tool %s: %w", name, err)
			}
		}
		st.headers = paramHeaders(t.Tool.InputSchema)
		st.input = runtime.NewSchema(name, t.Tool.InputSchema)
		if err := st.input.Compile(); err != nil {
			return nil, fmt.Errorf("server: input schema of tool %s: %w", name, err)
		}
		if len(t.Tool.OutputSchema) > 0 {
			st.output = runtime.NewSchema(name, t.Tool.OutputSchema)
			if err := st.output.Compile(); err != nil {
				return nil, fmt.Errorf("server: output schema of tool %s: %w", name, err)
			}
		}
		s.tools[name] = st
		s.order = append(s.order, st)
	}
	if err := s.addPrompts(s.opts.Prompts); err != nil {
		return nil, err
	}
	if err := s.addTemplates(s.opts.ResourceTemplates); err != nil {
		return nil, err
	}
	return s, nil
}
