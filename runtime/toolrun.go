package runtime

import "context"

// A ToolRunHook observes the tool calls a model asks for, as the toolsets of
// runtime/gemini, runtime/anthropic and runtime/openai run them. It is called
// before a call's arguments are checked and its confirmation asked for, and
// returns the context the run goes on under, so that the requests the run
// sends (and their Middleware) see what the hook put there, and a function
// the toolset calls once with the outcome. Package runtime/otelmcp provides
// one that opens an execute_tool span.
type ToolRunHook func(ctx context.Context, tool string) (context.Context, func(ToolRunOutcome))

// A ToolRunOutcome is how a tool call a model asked for ended.
type ToolRunOutcome struct {
	// Called reports whether the tool was called: false when the arguments
	// were invalid, the call was declined or the conversation was
	// cancelled first.
	Called bool
	// IsError reports a result whose isError is set.
	IsError bool
	// Error is the message the model gets when the run failed, empty
	// otherwise.
	Error string
}

// ToolRunHookOf returns the Options.ToolRunHook of the Session or
// Restarting c is, or the first one among the servers of the Multi c is;
// nil for any other Caller. The hook it returns sees tool names, and the
// outcome's Error, with the connections' credentials removed: a server may
// name a tool after a credential it received, or repeat one in a tool's
// error.
func ToolRunHookOf(c Caller) ToolRunHook {
	switch c := c.(type) {
	case *Session:
		return scrubbedHook(c.opts.ToolRunHook, func() []*Session { return []*Session{c} })
	case *Restarting:
		return scrubbedHook(c.opts.ToolRunHook, func() []*Session { return []*Session{c.latest.Load()} })
	case *Multi:
		for _, name := range c.names {
			if h := memberOptions(c.members[name]).ToolRunHook; h != nil {
				return scrubbedHook(h, func() []*Session {
					all := make([]*Session, 0, len(c.names))
					for _, name := range c.names {
						all = append(all, c.Session(name))
					}
					return all
				})
			}
		}
	}
	return nil
}

// memberOptions returns the options a server of a Multi was connected with.
func memberOptions(mm multiMember) *Options {
	switch mm := mm.(type) {
	case *Session:
		return &mm.opts
	case *Restarting:
		return &mm.opts
	}
	return &Options{}
}

// scrubbedHook returns h, with the credentials of the Sessions sessions
// returns at each call removed from the tool names and the outcomes' errors
// it sees; nil when h is.
func scrubbedHook(h ToolRunHook, sessions func() []*Session) ToolRunHook {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, tool string) (context.Context, func(ToolRunOutcome)) {
		sessions := sessions()
		for _, s := range sessions {
			tool = s.scrub(tool)
		}
		ctx, done := h(ctx, tool)
		return ctx, func(out ToolRunOutcome) {
			for _, s := range sessions {
				out.Error = s.scrub(out.Error)
			}
			done(out)
		}
	}
}
