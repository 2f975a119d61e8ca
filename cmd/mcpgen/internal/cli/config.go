package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config"
)

// configFlags are the flags of the commands that can work on every server
// of an mcpgen.yaml file instead of one server given by flags.
type configFlags struct {
	file    string
	servers stringList
}

func (cf *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.file, "config", "", "an mcpgen.yaml `file` listing several servers: work on each of them instead of one server given by flags")
	fs.Var(&cf.servers, "server", "with --config, work only on the server of this `name` (repeatable)")
}

// stringList collects a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// parseLive parses the arguments of a command that takes either the server
// flags or --config: flags and positional arguments in any order, then
// optionally "--" and a server command line. Without --config it checks
// the server flags as serverFlags.parse does; with it, it refuses them.
func parseLive(e *env, fs *flag.FlagSet, sf *serverFlags, cf *configFlags, args []string) ([]string, error) {
	own, command := splitCommand(args)
	pos, err := parseInterspersed(e, fs, own)
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(fs.Name(), "mcpgen ")
	if cf.file == "" {
		if len(cf.servers) > 0 {
			return nil, usagef("%s: --server picks servers of a --config file", name)
		}
		return pos, sf.check(command)
	}
	if len(command) > 0 || sf.url != "" || sf.sse != "" || len(sf.headers.header) > 0 || sf.headers.err != nil || sf.bearerEnv != "" || sf.auth.given() {
		return nil, usagef("%s: --config takes the servers from the file: drop --url, --sse, --header, --bearer-env, the OAuth flags and the server command", name)
	}
	return pos, nil
}

// configServers loads the --config file and returns the selected servers,
// each with the server flags its entry describes. A mistake in the file is
// an error here; what a server needs from the environment (its bearer_env
// token, client secret or key) is left to that server's turn, through serverFlags.checkEnv. Flags
// given on the command line (--timeout, --probe-timeout, --protocol-version,
// -v) apply to every server
// whose entry does not set them.
//
// An entry that names no server (no url, sse or command: one kept for
// generate) is an error naming base.name, the command, unless serverless is
// set; then its flags name no server either, for the caller to skip.
func configServers(cf *configFlags, base *serverFlags, serverless bool) ([]*config.Server, []*serverFlags, error) {
	file, err := config.Load(cf.file)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	servers, err := file.Select(cf.servers)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	var flags []*serverFlags
	for _, s := range servers {
		if !s.HasServer() && !serverless {
			return nil, nil, &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%d: server %s: %s connects to the server: give url, sse or command in its entry", file.Path, s.Line, s.Name, base.name)}
		}
		sf := &serverFlags{
			name:      "server " + s.Name,
			url:       s.URL,
			sse:       s.SSE,
			bearerEnv: s.BearerEnv,
			timeout:   base.timeout,
			probe:     base.probe,
			protocol:  base.protocol,
			verbose:   base.verbose,
			deferEnv:  true,
			loginCmd:  "mcpgen login --config " + shellQuote(cf.file) + " --server " + shellQuote(s.Name),
		}
		sf.auth.fromConfig(s.Auth)
		if s.Timeout > 0 {
			sf.timeout = s.Timeout
		}
		if s.ProtocolVersion != "" {
			sf.protocol = s.ProtocolVersion
		}
		for _, h := range s.Headers {
			if err := sf.headers.add(h.Name + ": " + h.Value); err != nil {
				return nil, nil, &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%d: server %s: header: %v", file.Path, s.Line, s.Name, err)}
			}
		}
		if !s.HasServer() {
			flags = append(flags, sf)
			continue
		}
		if err := sf.check(s.Command); err != nil {
			return nil, nil, &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%d: %v", file.Path, s.Line, err)}
		}
		flags = append(flags, sf)
	}
	return servers, flags, nil
}
