package cli

import (
	"context"
	"fmt"
	"os/exec"
	goruntime "runtime"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

var loginCommand = &command{
	name:    "login",
	summary: "sign in to a server that requires OAuth authorization",
	run:     runLogin,
}

const loginHelp = `[--no-browser] [--redirect-port PORT] [OAuth flags] --url URL | --sse URL
       mcpgen login --config mcpgen.yaml [--server NAME]... [--no-browser]

Signs in to an HTTP server that requires OAuth authorization and stores the
tokens, so that the other commands (tools, call, snapshot, generate,
check) use them and refresh them. mcpgen discovers the server's
authorization server, registers itself there when it can, and prints the
URL to sign in at on a line of its own on standard error, then opens it in
a browser unless --no-browser is given. The browser comes back to
http://127.0.0.1:PORT/callback/HASH, HASH naming the authorization server,
where mcpgen waits up to --timeout (five minutes by default); a client
registered in advance lists that URI.

A sign-in replaces the stored one. The tokens are kept, readable by the
user alone, in the mcpgen/auth directory of the user's configuration
directory ($XDG_CONFIG_HOME, by default ~/.config, on Linux); "mcpgen
logout" forgets them. With --client-id, --issuer and --client-secret-env or
--client-key, login gets a token with the client credentials grant
instead, which the other commands would do on their own.

With --config, mcpgen signs in to each server of the file (or each one
named by --server) that is reached over HTTP without a bearer_env.

Authorization servers that accept client ID metadata documents and offer
no registration (Home Assistant) need --client-metadata-url, and Home
Assistant, which takes the origin of the redirect URI as the client ID,
the fixed --redirect-port that URL names:

  mcpgen login --url https://ha.example.com/api/mcp \
      --client-metadata-url http://127.0.0.1:8976/ --redirect-port 8976 \
      --allow-unadvertised-pkce

Home Assistant's metadata lists no PKCE methods, which mcpgen refuses
unless --allow-unadvertised-pkce is given; reached through a local address,
it has no issuer either, which needs --allow-missing-issuer.
`

// loginTimeout is the default --timeout of login: time for a person to sign
// in.
var loginTimeout = auth.DefaultLoopbackTimeout

func runLogin(e *env, args []string) error {
	fs := newFlagSet(e, "login", loginHelp)
	var sf serverFlags
	sf.register(fs)
	sf.timeout = loginTimeout
	fs.Lookup("timeout").DefValue = loginTimeout.String()
	fs.IntVar(&sf.auth.redirectPort, "redirect-port", 0, "the loopback `port` the browser comes back to (default: a free one), for authorization servers that tie the client ID to it")
	noBrowser := fs.Bool("no-browser", false, "only print the URL to sign in at; do not open a browser")
	var cf configFlags
	cf.register(fs)
	sf.deferEnv = true
	pos, err := parseLive(e, fs, &sf, &cf, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("login: unexpected argument %q", pos[0])
	}
	if len(sf.command) > 0 {
		return usagef("login: a server command needs no sign-in: login is for --url and --sse servers")
	}
	if sf.bearerEnv != "" || hasAuthorization(sf.headers.header) {
		return usagef("login: --bearer-env and an Authorization header send a fixed token: there is nothing to sign in to")
	}
	if cf.file == "" {
		if err := sf.checkEnv(); err != nil {
			return usagef("login: %v", err)
		}
		return login(e, &sf, *noBrowser)
	}
	servers, flags, err := configServers(&cf, &sf, false)
	if err != nil {
		return err
	}
	failed, tried := 0, 0
	for i, s := range servers {
		f := flags[i]
		if len(f.command) > 0 || f.bearerEnv != "" || hasAuthorization(f.headers.header) {
			fmt.Fprintf(e.stderr, "mcpgen: server %s: no sign-in (%s)\n", s.Name, noSignInReason(f))
			continue
		}
		tried++
		if err := f.checkEnv(); err != nil {
			failed++
			fmt.Fprintf(e.stderr, "mcpgen: server %s: %v\n", s.Name, err)
			continue
		}
		if err := login(e, f, *noBrowser); err != nil {
			failed++
			fmt.Fprintf(e.stderr, "mcpgen: server %s: %v\n", s.Name, err)
		}
	}
	switch {
	case tried == 0:
		return usagef("login: no selected server of %s is signed in to with OAuth", cf.file)
	case failed > 0:
		return &exitError{code: exitFail, msg: fmt.Sprintf("%d of %d server(s) could not be signed in to", failed, tried)}
	}
	return nil
}

func noSignInReason(f *serverFlags) string {
	switch {
	case len(f.command) > 0:
		return "a server command"
	case f.bearerEnv != "":
		return "it uses bearer_env"
	}
	return "it has an Authorization header"
}

// login signs in to the server f describes: it connects with a Redirector,
// so that the server's 401 starts the authorization, and ignores the grants
// stored before, so that a new sign-in replaces them.
func login(e *env, f *serverFlags, noBrowser bool) error {
	files, err := auth.DefaultFileStore()
	if err != nil {
		return err
	}
	store := &freshStore{Store: files}
	f.store = store
	f.redirector = &auth.Loopback{
		Port: f.auth.redirectPort,
		Open: func(ctx context.Context, authURL string) error {
			fmt.Fprintf(e.stderr, "Sign in to %s at this URL:\n\n%s\n\n", f.source(), authURL)
			if !noBrowser {
				if err := openBrowser(authURL); err != nil {
					fmt.Fprintf(e.stderr, "mcpgen: could not open a browser (%v): open the URL yourself\n", err)
				}
			}
			fmt.Fprintf(e.stderr, "Waiting for the browser to come back...\n")
			return nil
		},
	}
	ctx, cancel := f.context()
	defer cancel()
	if f.authz, err = f.authorizer(e); err != nil {
		return err
	}
	if _, err := f.authorize(ctx, f.authz); err != nil {
		return f.explain(ctx, err)
	}
	s, err := f.connect(ctx, e, f.command)
	if err != nil {
		return f.explain(ctx, err)
	}
	defer closeSession(ctx, s)
	if store.saved.Load() == 0 {
		// Some servers let the handshake through and refuse the
		// requests after it.
		if _, err := s.ListTools(ctx); err != nil {
			return f.explain(ctx, fmt.Errorf("listing the tools of %s: %w", f.source(), explainAuth(err)))
		}
	}
	if store.saved.Load() == 0 {
		fmt.Fprintf(e.stdout, "%s did not ask for authorization: nothing to sign in to\n", f.source())
		return nil
	}
	fmt.Fprintf(e.stdout, "Signed in to %s; the tokens are stored in %s\n", f.source(), files.Dir)
	return nil
}

// freshStore is the Store of a sign-in: it finds no grant, so that a
// sign-in is never skipped for one stored before, and the first grant it
// saves replaces those stored for the same resource, perhaps with another
// client registration.
type freshStore struct {
	auth.Store
	saved atomic.Int32
}

func (s *freshStore) Grant(context.Context, string, string, string) (*auth.Grant, error) {
	return nil, nil
}

func (s *freshStore) SaveGrant(ctx context.Context, g *auth.Grant) error {
	if s.saved.Load() == 0 {
		if _, err := s.Store.Forget(ctx, g.Resource); err != nil {
			return err
		}
	}
	if err := s.Store.SaveGrant(ctx, g); err != nil {
		return err
	}
	s.saved.Add(1)
	return nil
}

// openBrowser opens url in the user's browser, without waiting for it.
func openBrowser(url string) error {
	var name string
	var args []string
	switch goruntime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("no %s", name)
	}
	cmd := exec.Command(path, append(args, url)...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
