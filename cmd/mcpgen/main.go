// Command mcpgen generates typed Go clients for the tools of a Model Context
// Protocol (MCP) server.
//
// It reads a server's tools/list, either live or from a checked-in JSON
// snapshot, and writes a Go package with an argument struct and a validator
// per tool, a typed Client whose methods call the tools through
// github.com/mcpgen/mcpgen/runtime, and Gemini function declarations.
//
// Usage:
//
//	mcpgen generate --snapshot FILE --package NAME --out DIR [flags]
//	mcpgen <command> [flags] [-- COMMAND ARGS...]
//
// Servers that require OAuth authorization are signed in to once with
// "mcpgen login --url URL", which prints the URL to sign in at on standard
// error, opens a browser unless --no-browser is given, and stores the tokens
// under the user's configuration directory (mcpgen/auth in
// $XDG_CONFIG_HOME or ~/.config on Linux). The other commands then use and
// refresh them, and say which login command to run when there is none;
// "mcpgen logout --url URL" forgets them. In CI, --client-id with
// --client-secret-env VAR or --client-key FILE obtains tokens with the client
// credentials grant instead, and an auth block per server in mcpgen.yaml
// holds the same settings. --bearer-env VAR sends a fixed token.
//
// Run "mcpgen help" for the list of commands and "mcpgen help COMMAND" for
// the flags of one command. Exit status is 0 on success, 1 when the work
// itself fails, 2 for usage errors, and 130 (128 + SIGINT) when an
// interrupt (Ctrl-C) stops the command.
package main

import (
	"os"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
