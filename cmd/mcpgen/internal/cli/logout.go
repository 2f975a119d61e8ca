package cli

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

var logoutCommand = &command{
	name:    "logout",
	summary: "forget the stored sign-in to a server",
	run:     runLogout,
}

const logoutHelp = `--url URL | --sse URL
       mcpgen logout --config mcpgen.yaml [--server NAME]...

Forgets the tokens "mcpgen login" (or the client credentials grant) stored
for the server: those for its URL and for any path above it on the same
origin, which its metadata may name as the protected resource, and any
grant file of the store that cannot be read, which no server can use. The
server is not contacted. Client registrations are kept.`

func runLogout(e *env, args []string) error {
	fs := newFlagSet(e, "logout", logoutHelp)
	var sf serverFlags
	fs.StringVar(&sf.url, "url", "", "the server's `URL`")
	fs.StringVar(&sf.sse, "sse", "", "the `URL` of a legacy HTTP+SSE server")
	var cf configFlags
	cf.register(fs)
	own, command := splitCommand(args)
	pos, err := parseInterspersed(e, fs, own)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("logout: unexpected argument %q", pos[0])
	}
	if len(command) > 0 {
		return usagef("logout: a server command has no sign-in: logout is for --url and --sse servers")
	}
	store, err := auth.DefaultFileStore()
	if err != nil {
		return err
	}
	if cf.file == "" {
		if len(cf.servers) > 0 {
			return usagef("logout: --server picks servers of a --config file")
		}
		sf.name = "logout"
		if err := sf.check(nil); err != nil {
			return err
		}
		return logout(e, store, &sf)
	}
	if sf.url != "" || sf.sse != "" {
		return usagef("logout: --config takes the servers from the file: drop --url and --sse")
	}
	servers, flags, err := configServers(&cf, &serverFlags{name: "logout"}, true)
	if err != nil {
		return err
	}
	for i, s := range servers {
		if flags[i].url == "" && flags[i].sse == "" {
			continue // a command, or no server: nothing is signed in to
		}
		if err := logout(e, store, flags[i]); err != nil {
			return fmt.Errorf("server %s: %w", s.Name, err)
		}
	}
	return nil
}

// logout forgets the grants stored for the server f describes.
func logout(e *env, store auth.Store, f *serverFlags) error {
	u := f.url
	if u == "" {
		u = f.sse
	}
	resources, err := auth.ServerResources(u)
	if err != nil {
		return err
	}
	n := 0
	for _, r := range resources {
		k, err := store.Forget(context.Background(), r)
		n += k
		if err != nil {
			return err
		}
	}
	if n == 0 {
		fmt.Fprintf(e.stdout, "No sign-in to %s was stored\n", f.source())
		return nil
	}
	fmt.Fprintf(e.stdout, "Signed out of %s: %d stored grant(s) forgotten\n", f.source(), n)
	return nil
}
