// Package cli implements the mcpgen command line. The mcpgen main package is
// a thin call into Main, so that every command is tested in-process.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	// exitInterrupt is the status of a command an interrupt (Ctrl-C)
	// stopped: 128 + SIGINT, as a shell reports a command the signal ended.
	exitInterrupt = 130
)

// env is what a command runs with. Everything a command prints goes through
// stdout, stderr or data, which redact the credentials of the servers in
// use (secrets) and show control characters as escapes (see outStream):
// stdout and stderr always, data only when standard output is a terminal.
// data is for output that programs read: the text content of call results,
// --json and snapshots.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	data           io.Writer
	secrets        *secrets
	streams        []*outStream
	// width is the number of columns of the terminal standard output is,
	// which tables are cut to fit; 0 when it is not a terminal (output
	// piped or written to a file stays whole) or its width is unknown.
	width int
}

// newEnv returns the env of a run writing to stdout and stderr; terminal
// says whether stdout is a terminal.
func newEnv(stdin io.Reader, stdout, stderr io.Writer, terminal bool) *env {
	sec := &secrets{}
	out := &outStream{w: stdout, secrets: sec}
	errs := &outStream{w: stderr, secrets: sec}
	e := &env{stdin: stdin, stdout: out.visible(), stderr: errs.visible(), data: out.exact(), secrets: sec, streams: []*outStream{out, errs}}
	if terminal {
		e.data = e.stdout
	}
	return e
}

// flush writes what the output streams hold back.
func (e *env) flush() {
	for _, s := range e.streams {
		s.flush()
	}
}

// A command is one mcpgen subcommand.
type command struct {
	name    string
	summary string
	// run runs the command with the arguments after its name. It returns a
	// *usageError for bad flags or arguments.
	run func(e *env, args []string) error
}

// commands lists the subcommands in the order help shows them.
var commands = []*command{
	generateCommand,
	snapshotCommand,
	diffCommand,
	checkCommand,
	toolsCommand,
	callCommand,
	loginCommand,
	logoutCommand,
	readCommand,
	recordCommand,
}

// usageError is a mistake in how mcpgen was invoked.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// interruptedError is an error that ended a command because an interrupt
// (Ctrl-C) cancelled its context; the command exits with exitInterrupt.
type interruptedError struct{ err error }

func (e *interruptedError) Error() string { return e.err.Error() + " (interrupted)" }

func (e *interruptedError) Unwrap() error { return e.err }

// failUsage returns err as an exit with status 2, the status of a command
// that could not do its work, unless an interrupt ended it.
func failUsage(err error) error {
	var ie *interruptedError
	if errors.As(err, &ie) {
		return err
	}
	return &exitError{code: exitUsage, msg: err.Error()}
}

// exitError makes a command exit with a given status and message; an empty
// message prints nothing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Main runs mcpgen with args (without the program name) and returns the exit
// status. Credentials sent to a server never reach stdout or stderr. The
// output programs read (the content of call results, --json, snapshots) is
// written exactly as the server sent it when stdout is not a terminal, and
// with control characters shown as escapes when it is; all other output
// always shows them as escapes.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainTerminal(args, stdin, stdout, stderr, isTerminal(stdout))
}

// mainTerminal is Main with terminal saying whether stdout is a terminal.
func mainTerminal(args []string, stdin io.Reader, stdout, stderr io.Writer, terminal bool) int {
	e := newEnv(stdin, stdout, stderr, terminal)
	if terminal {
		e.width = terminalWidth(stdout)
	}
	defer e.flush()
	return dispatch(e, args)
}

// dispatch runs the command args name.
func dispatch(e *env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			switch args[1] {
			case "help", "-h", "-help", "--help":
				io.WriteString(stdout, helpUsage)
				return exitOK
			}
			if c := lookup(args[1]); c != nil {
				return report(e, c.run(e, []string{"--help"}))
			}
			fmt.Fprintf(stderr, "mcpgen: help: unknown command %q\n\n", args[1])
			printUsage(stderr)
			return exitUsage
		}
		printUsage(stdout)
		return exitOK
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "mcpgen: unknown command %q\n\n", name)
		printUsage(stderr)
		return exitUsage
	}
	return report(e, c.run(e, args[1:]))
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// report prints err, if any, and maps it to an exit status.
func report(e *env, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ie *interruptedError
	if errors.As(err, &ie) {
		fmt.Fprintf(e.stderr, "mcpgen: %s\n", err)
		return exitInterrupt
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "mcpgen: %s\n", ue.msg)
		return exitUsage
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.msg != "" {
			fmt.Fprintf(e.stderr, "mcpgen: %s\n", xe.msg)
		}
		return xe.code
	}
	fmt.Fprintf(e.stderr, "mcpgen: %s\n", err)
	return exitFail
}

// helpUsage is the usage of the help command itself.
const helpUsage = `Usage: mcpgen help [COMMAND]

Prints the list of commands, or the usage and flags of COMMAND.
`

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("mcpgen generates typed Go clients for the tools of an MCP server.\n\n")
	b.WriteString("Usage:\n\n\tmcpgen <command> [flags] [-- COMMAND ARGS...]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun \"mcpgen help COMMAND\" for a command's flags.\n")
	b.WriteString("Exit status: 0 on success, 1 when the work fails, 2 for usage errors, 130 when interrupted (Ctrl-C).\n")
	io.WriteString(w, b.String())
}

// newFlagSet returns a flag set for a command that prints its usage to
// e.stderr (or e.stdout for --help) and reports errors instead of exiting.
func newFlagSet(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("mcpgen "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mcpgen %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, sending --help output to stdout. It returns
// flag.ErrHelp for --help and a *usageError for bad flags.
func parseFlags(e *env, fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	var sink strings.Builder
	out := fs.Output()
	fs.SetOutput(&sink)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err != nil {
		return usagef("%s: %s", strings.TrimPrefix(fs.Name(), "mcpgen "), strings.TrimSpace(firstLine(sink.String(), err.Error())))
	}
	return nil
}

func firstLine(s, fallback string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
