package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// serverUsage is the part of a live command's usage line that picks the
// server.
const serverUsage = "[--url URL | --sse URL] [--header 'Name: value']... [--bearer-env VAR] [-- COMMAND ARGS...]"

// serverHelp explains the server flags, for the help text of live commands.
const serverHelp = `The server is reached in one of three ways:

  --url URL            Streamable HTTP, falling back to the legacy HTTP+SSE
                       transport when the server is an old one
  --sse URL            the legacy HTTP+SSE transport only
  -- COMMAND ARGS...   a command speaking MCP over its standard input and
                       output; it comes last, after "--"

An HTTP server that requires OAuth authorization is signed in to once with
"mcpgen login"; the commands then use and refresh the stored tokens. In CI,
--client-id with --client-secret-env or --client-key signs in with the
client credentials grant instead. --bearer-env sends a fixed token.`

// defaultTimeout bounds a live command unless --timeout says otherwise.
const defaultTimeout = 60 * time.Second

// serverFlags are the flags that every command talking to a live server
// shares: how to reach the server, and how long to wait for it.
type serverFlags struct {
	url       string
	sse       string
	headers   headerFlag
	bearerEnv string
	timeout   time.Duration
	probe     time.Duration
	protocol  string
	verbose   bool
	auth      authFlags

	// loginCmd is the command that signs in to the server, for the
	// message of a command that finds no usable token; empty means the
	// one the flags give. redirector, set by login, signs in with a
	// browser; store, when set, replaces the token store.
	loginCmd   string
	redirector auth.Redirector
	store      auth.Store
	// authz, when set, is the Authorizer connect uses.
	authz runtime.Authorizer

	// name is the command's name, for messages; command is the stdio
	// server's command line, the arguments after "--".
	name    string
	command []string
	// deferEnv leaves checkEnv out of check, for the caller to run.
	deferEnv bool
	// elicit, when set, answers the server's elicitation requests.
	elicit runtime.ElicitationHandler
	// wrap and wrapAuthz, when set, wrap the transport connect builds and
	// its Authorizer, as record does to record the session.
	wrap      func(runtime.Transport) runtime.Transport
	wrapAuthz func(runtime.Authorizer) runtime.Authorizer
}

// register adds the server flags to fs.
func (f *serverFlags) register(fs *flag.FlagSet) {
	f.name = strings.TrimPrefix(fs.Name(), "mcpgen ")
	fs.StringVar(&f.url, "url", "", "the server's `URL`: Streamable HTTP, or legacy HTTP+SSE when the server only speaks that")
	fs.StringVar(&f.sse, "sse", "", "the `URL` of a server speaking only the legacy HTTP+SSE transport (its SSE endpoint, such as .../sse)")
	fs.Var(&f.headers, "header", "an HTTP header sent with every request, as `'Name: value'` (repeatable)")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "the environment `VARIABLE` holding a bearer token sent as \"Authorization: Bearer ...\"; the token is never printed (unless shorter than 8 bytes, which is warned about)")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "how long the whole command may take, connecting and the work on the tool list included; 0 for no limit")
	fs.DurationVar(&f.probe, "probe-timeout", runtime.DefaultProbeTimeout, "how long to wait for the server's answer to the version probe (server/discover), for servers slow to start; a stdio server silent that long is taken for a legacy one, an HTTP server's silence is an error; 0 for no limit but --timeout")
	fs.StringVar(&f.protocol, "protocol-version", "", "pin the MCP protocol `version` (default: the newest, falling back to the initialize handshake for older servers)")
	fs.BoolVar(&f.verbose, "v", false, "log the connection, every message (secrets redacted) and the server's standard error to standard error")
	f.auth.register(fs)
}

// splitCommand splits args at the first "--" into the command's own
// arguments and the server command line after it.
func splitCommand(args []string) (own, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// parse parses a live command's arguments: flags and positional arguments,
// in any order, then optionally "--" and the server's command line. It
// returns the positional arguments and checks that exactly one way to reach
// the server was given.
func (f *serverFlags) parse(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	own, command := splitCommand(args)
	var pos []string
	for {
		if err := parseFlags(e, fs, own); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		own = rest[1:]
	}
	if err := f.check(command); err != nil {
		return nil, err
	}
	return pos, nil
}

// check records the server command line and reports a *usageError unless
// exactly one of --url, --sse and a command was given, with flags that suit
// it.
func (f *serverFlags) check(command []string) error {
	name := f.name
	if name == "" {
		name = "mcpgen"
	}
	f.command = command
	if f.headers.err != nil {
		return usagef("%s: --header: %v", name, f.headers.err)
	}
	n := 0
	for _, given := range []bool{f.url != "", f.sse != "", len(command) > 0} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		return usagef("%s: no server given: use --url URL, --sse URL, or -- COMMAND ARGS... at the end", name)
	case n > 1:
		return usagef("%s: give only one of --url, --sse and -- COMMAND ARGS...", name)
	}
	for _, u := range []struct{ flag, value string }{{"--url", f.url}, {"--sse", f.sse}} {
		if u.value == "" {
			continue
		}
		p, err := url.Parse(u.value)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usagef("%s: %s wants an http:// or https:// URL, not %q", name, u.flag, redactURL(u.value))
		}
	}
	if len(command) > 0 {
		if len(f.headers.header) > 0 {
			return usagef("%s: --header applies to --url and --sse only, not to a server command", name)
		}
		if f.bearerEnv != "" {
			return usagef("%s: --bearer-env applies to --url and --sse only, not to a server command", name)
		}
		if f.auth.given() {
			return usagef("%s: the OAuth flags (--client-id, --scope, ...) apply to --url and --sse only, not to a server command", name)
		}
	}
	if f.auth.given() && (f.bearerEnv != "" || hasAuthorization(f.headers.header)) {
		return usagef("%s: --bearer-env and an Authorization header send a fixed token: drop the OAuth flags (--client-id, --scope, ...), or them", name)
	}
	if err := f.auth.check(); err != nil {
		return usagef("%s: %v", name, err)
	}
	if f.timeout < 0 {
		return usagef("%s: --timeout must not be negative", name)
	}
	if f.probe < 0 {
		return usagef("%s: --probe-timeout must not be negative", name)
	}
	if f.protocol != "" && !supportedVersion(f.protocol) {
		return usagef("%s: --protocol-version %q is not one of %s", name, f.protocol, strings.Join(runtime.SupportedProtocolVersions(), ", "))
	}
	if f.deferEnv {
		return nil
	}
	if err := f.checkEnv(); err != nil {
		return usagef("%s: %v", name, err)
	}
	return nil
}

// checkEnv checks what the flags need from the environment: the variables
// --bearer-env and --client-secret-env name must be set, the --client-key
// file must hold a key. check calls it unless deferEnv is
// set; with --config each server calls it before it connects, so that one
// server's missing token does not stop the others.
func (f *serverFlags) checkEnv() error {
	if f.bearerEnv != "" && strings.TrimSpace(os.Getenv(f.bearerEnv)) == "" {
		return fmt.Errorf("--bearer-env %s: the variable is unset or empty", f.bearerEnv)
	}
	return f.auth.checkEnv()
}

func supportedVersion(v string) bool {
	for _, s := range runtime.SupportedProtocolVersions() {
		if s == v {
			return true
		}
	}
	return false
}

// context returns the context a live command runs in, bounded by --timeout
// and cancelled by an interrupt (Ctrl-C), so that a call in flight is
// cancelled at the server and a stdio server is shut down in order.
func (f *serverFlags) context() (context.Context, context.CancelFunc) {
	return commandContext(f.timeout)
}

// commandContext returns the context a command runs in: bounded by timeout
// (none when 0) and cancelled by an interrupt (Ctrl-C).
func commandContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := interruptContext()
	ctx, cancel := withTimeout(ctx, timeout)
	return ctx, func() { cancel(); stop() }
}

// interruptContext returns a context cancelled by an interrupt (Ctrl-C).
// A command that works on the servers of a config file in turn runs each
// turn in a context derived from one such context (see contextIn), so
// that an interrupt stops the whole command, not only the server at work.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// contextIn returns the context of one server's turn within parent, from
// interruptContext, bounded by --timeout.
func (f *serverFlags) contextIn(parent context.Context) (context.Context, context.CancelFunc) {
	return withTimeout(parent, f.timeout)
}

// withTimeout returns parent bounded by timeout, with no bound when it is 0.
func withTimeout(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout == 0 {
		return context.WithCancel(parent)
	}
	return context.WithTimeout(parent, timeout)
}

// closeSession closes s, connected within ctx (from serverFlags.context):
// stopping a stdio server takes what remains of the --timeout at most (a
// server that has not exited by then is killed), so that the whole command
// ends within it. An interrupt does not cut the shutdown short.
func closeSession(ctx context.Context, s *runtime.Session) {
	d, ok := ctx.Deadline()
	if !ok {
		s.Close()
		return
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), d)
	defer cancel()
	s.CloseContext(ctx)
}

// explain adds the reason to an error that ended a live command because ctx,
// from f.context, is done: the --timeout, or an interrupt.
func (f *serverFlags) explain(ctx context.Context, err error) error {
	return explainDone(ctx, err, f.timeout)
}

// explainDone adds the reason to an error that ended a command because ctx,
// from commandContext, is done: the --timeout, or an interrupt.
func explainDone(ctx context.Context, err error, timeout time.Duration) error {
	if err == nil {
		return nil
	}
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return fmt.Errorf("%w (the --timeout of %v ran out)", err, timeout)
	case context.Canceled:
		return &interruptedError{err}
	}
	return err
}

// transport returns the transport the flags describe, with authz (nil for
// none) authorizing its HTTP requests; parse or check must have succeeded
// first.
func (f *serverFlags) transport(e *env, authz runtime.Authorizer) runtime.Transport {
	var logger *slog.Logger
	if f.verbose {
		logger = f.logger(e)
	}
	if len(f.command) > 0 {
		t := runtime.NewCommandTransport(f.command[0], f.command[1:]...)
		t.Logger = logger
		return t
	}
	opts := &runtime.HTTPOptions{BearerEnv: f.bearerEnv, Logger: logger, Authorizer: authz}
	if len(f.headers.header) > 0 {
		opts.Header = f.headers.header.Clone()
	}
	if f.sse != "" {
		return runtime.SSE(f.sse, opts)
	}
	return runtime.HTTP(f.url, opts)
}

// logger returns the logger of --v, writing to the command's standard error.
func (f *serverFlags) logger(e *env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// options returns the Session options the flags describe.
func (f *serverFlags) options(e *env) *runtime.Options {
	opts := &runtime.Options{ClientName: "mcpgen", ProtocolVersion: f.protocol, CallTimeout: -1, ProbeTimeout: f.probe}
	if f.probe == 0 {
		opts.ProbeTimeout = -1 // no bound but --timeout
	}
	if f.verbose {
		opts.Logger = f.logger(e)
		opts.LogTraffic = true
	}
	opts.Elicitation = f.elicit
	return opts
}

// connect checks the server command line rest (the arguments after "--",
// if any; f.command after parse) against the flags, then connects to the
// server. A bad combination is a *usageError; a connection failure names the
// server by its source, which holds no secrets.
func (f *serverFlags) connect(ctx context.Context, e *env, rest []string) (*runtime.Session, error) {
	if err := f.check(rest); err != nil {
		return nil, err
	}
	f.addSecrets(e)
	authz, err := f.authorizer(e)
	if err != nil {
		return nil, err
	}
	if authz != nil && f.wrapAuthz != nil {
		authz = f.wrapAuthz(authz)
	}
	t := f.transport(e, authz)
	if f.wrap != nil {
		t = f.wrap(t)
	}
	s, err := runtime.Connect(ctx, t, f.options(e))
	var pte *runtime.ProbeTimeoutError
	if errors.As(err, &pte) {
		return nil, fmt.Errorf("connecting to %s: %w; a server that takes longer to start needs a longer --probe-timeout", f.source(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f.source(), explainAuth(err))
	}
	return s, nil
}

// source describes the server for people and snapshot headers: the URL (as
// "--sse URL" for the legacy transport) or the command line, with secrets
// replaced by redact.Mark (see redact.URL and commandWord). Absolute paths,
// as arguments or as the values of --flag=VALUE and KEY=VALUE, are written
// as portablePath writes them, so that the same capture from another checkout,
// or by another user, reads the same.
func (f *serverFlags) source() string {
	switch {
	case f.url != "":
		return redactURL(f.url)
	case f.sse != "":
		return "--sse " + redactURL(f.sse)
	}
	p := newPathRewriter()
	words := make([]string, len(f.command))
	secretNext := false
	for i, a := range f.command {
		words[i], _, secretNext = commandWord(a, secretNext, p)
		words[i] = shellQuote(words[i])
	}
	return strings.Join(words, " ")
}

// commandWord returns the argument a of a server command as source shows
// it, and the secrets it holds. secret says that a is the value of a secret
// flag given before it; next, that the argument after a is. The value of a
// flag or KEY=VALUE argument whose name looks secret becomes redact.Mark,
// and so does the whole argument after such a flag without "="; a URL, bare
// or as such a value, loses its credentials as redact.URL says. Absolute
// paths are rewritten by p.
func commandWord(a string, secret bool, p *pathRewriter) (shown string, secrets []string, next bool) {
	if secret {
		return redact.Mark, []string{a}, false
	}
	// value shows the value of a flag or variable that is not secret.
	value := func(v string) (string, []string) {
		switch {
		case strings.Contains(v, "://"):
			shown, secrets, ok := redact.URL(v)
			if !ok {
				return "(malformed URL)", []string{v}
			}
			return shown, secrets
		case filepath.IsAbs(v):
			return p.portable(v), nil
		}
		return v, nil
	}
	if strings.HasPrefix(a, "-") {
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		eq := strings.IndexByte(a, '=')
		switch {
		case redact.SecretName(name) && hasValue:
			return a[:eq+1] + redact.Mark, []string{v}, false
		case redact.SecretName(name):
			return a, nil, true
		case hasValue:
			shown, secrets := value(v)
			return a[:eq+1] + shown, secrets, false
		}
		return a, nil, false
	}
	if k, v, ok := strings.Cut(a, "="); ok && variableName(k) {
		if redact.SecretName(k) {
			return k + "=" + redact.Mark, []string{v}, false
		}
		shown, secrets := value(v)
		return k + "=" + shown, secrets, false
	}
	shown, secrets = value(a)
	return shown, secrets, false
}

// variableName reports whether k can be the name of a KEY=VALUE argument:
// letters, digits, '_', '-' and '.', which no URL before its first '='
// is made of alone.
func variableName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// redactURL returns rawURL as redact.URL shows it, or "(malformed URL)".
func redactURL(rawURL string) string {
	shown, _, ok := redact.URL(rawURL)
	if !ok {
		return "(malformed URL)"
	}
	return shown
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,~", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// headerFlag collects repeated --header 'Name: value' flags. A bad header is
// kept in err and reported by serverFlags.check rather than by Set, because
// the flag package would quote the whole value, a secret perhaps, in its
// message.
type headerFlag struct {
	header http.Header
	err    error
}

func (h *headerFlag) String() string {
	if h == nil || len(h.header) == 0 {
		return ""
	}
	// Only names: values may be secrets.
	names := make([]string, 0, len(h.header))
	for k := range h.header {
		names = append(names, k)
	}
	return strings.Join(names, ", ")
}

// Set parses one 'Name: value' header, keeping the first error.
func (h *headerFlag) Set(s string) error {
	if err := h.add(s); err != nil && h.err == nil {
		h.err = err
	}
	return nil
}

// add parses one header. Its errors never repeat the value.
func (h *headerFlag) add(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("want 'Name: value', got no colon")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("want 'Name: value', got no name before the colon")
	}
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return fmt.Errorf("header name %q has a character not allowed in a header name", name)
		}
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("the value of header %s has a line break", name)
	}
	if h.header == nil {
		h.header = http.Header{}
	}
	h.header.Add(name, value)
	return nil
}
