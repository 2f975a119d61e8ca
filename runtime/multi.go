package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Server is one server of a Multi: its name, which prefixes its tools when
// their names clash with another server's, and how to reach it.
type Server struct {
	// Name is the server's name in the Multi, and the prefix of its tools'
	// names where they clash. It must not contain MultiSeparator or end in
	// "_", so that a prefixed name tells its server: "db" + "__" + "_x"
	// would be "db_" + "__" + "x".
	Name      string
	Transport Transport
	// Options configure the server's Session; nil means the zero Options.
	// Its OnToolsChanged, if any, is called besides the Multi's own.
	Options *Options
	// Restart, when set, connects to the server again when a call or a
	// listing finds its Session ended, as ConnectRestarting does: a stdio
	// server that exited or crashed starts anew, and the Multi lists its
	// tools again, as after a change the server reports. Without it, a
	// server that went away stays gone, and its tools' calls fail with the
	// reason.
	Restart bool
}

// multiMember is one server of a Multi: its Session, or a Restarting for a
// server with Restart set.
type multiMember interface {
	ListTools(ctx context.Context) ([]Tool, error)
	CallTool(ctx context.Context, name string, args any) (*Result, error)
	Close() error
}

// MultiTool is one tool of a Multi.
type MultiTool struct {
	// Tool is the tool as its server lists it.
	Tool
	// Server is the name of the server that has it.
	Server string
	// Exposed is the name the Multi calls it by: the tool's own name, or
	// "<server>__<tool>" when another server has a tool of the same name.
	Exposed string
}

// MultiSeparator joins a server name and a tool name in a prefixed name.
const MultiSeparator = "__"

// Multi is a set of Sessions, one per server, called as one Caller: a tool
// name leads to the server that has the tool. It is safe for use by many
// goroutines at once.
type Multi struct {
	names   []string
	members map[string]multiMember

	mu     sync.RWMutex
	tools  []MultiTool
	routes map[string]route
	// lists are each server's tools as its newest listing that succeeded
	// found them, in the order of names; listedBy numbers the Refresh of
	// each listing, and settled the latest started Refresh that finished.
	lists    [][]Tool
	listedBy []uint64
	settled  uint64

	// refreshes counts the Refreshes started, which numbers them: a
	// listing that finishes after one a later Refresh took does not
	// replace it.
	refreshes atomic.Uint64

	// stale is set when a server reports that its tools changed; the next
	// CallTool lists them again.
	stale atomic.Bool
	// failedAt is when the last Refresh failed for some server (Unix
	// nanoseconds), zero after one that did not. A call lists the tools
	// again for that failure once multiRetryAfter has passed, so that a
	// server that hangs does not hold every call for its timeout.
	failedAt atomic.Int64
}

// multiRetryAfter is how long after a Refresh that failed for some server a
// call of a Multi lists the tools again, unless a server reports a change.
const multiRetryAfter = 5 * time.Second

type route struct {
	server, tool string
}

// ConnectMulti connects to every server in parallel and lists their tools.
// If any server fails, it closes the others and returns an error naming the
// failed servers.
func ConnectMulti(ctx context.Context, servers []Server) (*Multi, error) {
	m := &Multi{members: make(map[string]multiMember, len(servers))}
	for _, srv := range servers {
		switch {
		case srv.Name == "":
			return nil, errors.New("connecting to several servers: a server has no name")
		case strings.Contains(srv.Name, MultiSeparator):
			return nil, fmt.Errorf("connecting to several servers: server name %q contains %q", srv.Name, MultiSeparator)
		case strings.HasSuffix(srv.Name, "_"):
			return nil, fmt.Errorf("connecting to several servers: server name %q ends with %q, which makes its prefixed tool names ambiguous", srv.Name, "_")
		case slices.Contains(m.names, srv.Name):
			return nil, fmt.Errorf("connecting to several servers: two servers are named %q", srv.Name)
		case srv.Transport == nil:
			return nil, fmt.Errorf("connecting to server %s: no transport", srv.Name)
		}
		m.names = append(m.names, srv.Name)
	}
	members := make([]multiMember, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		var opts Options
		if srv.Options != nil {
			opts = *srv.Options
		}
		userChanged := opts.OnToolsChanged
		opts.OnToolsChanged = func() {
			m.stale.Store(true)
			if userChanged != nil {
				userChanged()
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mm multiMember
			var err error
			if srv.Restart {
				mm, err = ConnectRestarting(ctx, srv.Transport, &opts)
			} else {
				mm, err = Connect(ctx, srv.Transport, &opts)
			}
			if err != nil {
				errs[i] = fmt.Errorf("connecting to server %s: %w", srv.Name, err)
				return
			}
			members[i] = mm
		}()
	}
	wg.Wait()
	for i, mm := range members {
		if mm != nil {
			m.members[servers[i].Name] = mm
		}
	}
	if err := errors.Join(errs...); err != nil {
		m.Close()
		return nil, err
	}
	if err := m.Refresh(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Refresh lists every server's tools again, in parallel, and rebuilds the
// tool map. A server without the tools capability has no tools. A server
// whose listing fails keeps the tools it listed before, so that the others'
// changes are taken and its tools' calls fail with its own error; Refresh
// then returns the errors naming those servers. Of Refreshes run at once,
// the one started last gives each server's tools, whichever finishes last:
// an older listing does not replace a newer one.
func (m *Multi) Refresh(ctx context.Context) error {
	gen := m.refreshes.Add(1)
	m.stale.Store(false)
	lists := make([][]Tool, len(m.names))
	errs := make([]error, len(m.names))
	var wg sync.WaitGroup
	for i, name := range m.names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := m.members[name].ListTools(ctx)
			if err != nil && !isToolsUnsupported(err) {
				errs[i] = fmt.Errorf("listing the tools of server %s: %w", name, err)
				return
			}
			lists[i] = tools
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lists == nil {
		m.lists = make([][]Tool, len(m.names))
		m.listedBy = make([]uint64, len(m.names))
	}
	// Refreshes run at once may finish in any order: each server keeps
	// the listing of the latest started Refresh that listed it.
	for i, tools := range lists {
		if errs[i] == nil && gen > m.listedBy[i] {
			m.lists[i], m.listedBy[i] = tools, gen
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		// The caller's context ended the listing: that says nothing of
		// the servers, and a change one reported is still to be listed,
		// on the next call rather than multiRetryAfter later.
		m.stale.Store(true)
	case gen > m.settled:
		m.settled = gen
		if err != nil {
			m.failedAt.Store(time.Now().UnixNano())
		} else {
			m.failedAt.Store(0)
		}
	}
	servers := make([]ServerTools, len(m.lists))
	for i, tools := range m.lists {
		servers[i] = ServerTools{Server: m.names[i], Tools: tools}
	}
	all := CombineTools(servers...)
	routes := make(map[string]route)
	for _, mt := range all {
		routes[mt.Exposed] = route{server: mt.Server, tool: mt.Name}
	}
	// A prefixed name reaches a tool whose name does not clash, too.
	for _, mt := range all {
		prefixed := mt.Server + MultiSeparator + mt.Name
		if _, taken := routes[prefixed]; !taken {
			routes[prefixed] = route{server: mt.Server, tool: mt.Name}
		}
	}
	m.tools, m.routes = all, routes
	return err
}

// Tools returns every server's tools, in the order of the servers given to
// ConnectMulti and then of each server's list, as the last listing found
// them: call Refresh to list them again. CallTool does so itself after a
// server reported that its tools changed.
func (m *Multi) Tools() []MultiTool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.tools)
}

// Session returns the Session of the named server, or nil. For a server
// with Restart set, it is the newest Session, which may have ended; the
// next call or listing connects again.
func (m *Multi) Session(server string) *Session {
	switch mm := m.members[server].(type) {
	case *Session:
		return mm
	case *Restarting:
		return mm.latest.Load()
	}
	return nil
}

// CallTool calls the tool Tools lists under name, on its server. A name the
// Multi does not know makes it list the tools again once, since a server may
// have added the tool; so does a change a server reported. A server whose
// listing fails does not stop the calls of the others' tools: its own
// tools are called as it listed them last, and an error of its call names
// the server. The tools are listed again for that failure on the first
// call 5 s after it, not on every call; a listing that ended with ctx is
// no such failure, and the next call lists again.
func (m *Multi) CallTool(ctx context.Context, name string, args any) (*Result, error) {
	var refreshErr error
	if f := m.failedAt.Load(); m.stale.Load() || f != 0 && time.Since(time.Unix(0, f)) >= multiRetryAfter {
		refreshErr = m.Refresh(ctx)
	}
	r, ok := m.route(name)
	if !ok && refreshErr == nil {
		refreshErr = m.Refresh(ctx)
		r, ok = m.route(name)
	}
	if !ok {
		if refreshErr != nil {
			return nil, fmt.Errorf("calling %s: %w", name, refreshErr)
		}
		return nil, fmt.Errorf("calling %s: no server has this tool", name)
	}
	res, err := m.members[r.server].CallTool(ctx, r.tool, args)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", r.server, err)
	}
	return res, nil
}

func (m *Multi) route(name string) (route, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.routes[name]
	return r, ok
}

// Close closes every Session, in parallel, and returns their errors joined.
func (m *Multi) Close() error {
	errs := make([]error, len(m.names))
	var wg sync.WaitGroup
	for i, name := range m.names {
		s := m.members[name]
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Close(); err != nil {
				errs[i] = fmt.Errorf("closing server %s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
