// Command consumer is a small program in a repository that uses mcpgen: it
// checks in a snapshot of a server's tools (tools/everything.json),
// generates a typed client from it with go generate (package everything),
// and calls the server through that client.
//
// Run it with the server's command line after "--":
//
//	go run . -- npx -y @modelcontextprotocol/server-everything stdio
//
// With -strict, a server whose tools no longer match the snapshot is an
// error rather than a logged warning.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"example.com/mcpgen-consumer/everything"
	"github.com/mcpgen/mcpgen/runtime"
)

func main() {
	strict := flag.Bool("strict", false, "fail when the server's tools differ from the snapshot the client was generated from")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: consumer [-strict] -- COMMAND ARGS...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *strict); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

func run(command []string, strict bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	session, err := runtime.Connect(ctx, runtime.NewCommandTransport(command[0], command[1:]...), &runtime.Options{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
		// The generated package records the hash of its snapshot: the
		// session warns once (or fails, with FailOnDrift) when the
		// server's tools have changed since.
		SnapshotHash: everything.SnapshotHash,
		FailOnDrift:  strict,
	})
	if err != nil {
		return err
	}
	defer session.Close()
	client := everything.NewClient(session)

	res, err := client.Echo(ctx, everything.EchoArgs{Message: "hello from a generated client"})
	if err != nil {
		return err
	}
	fmt.Println(res.Text())

	weather, err := client.GetStructuredContent(ctx, everything.GetStructuredContentArgs{
		Location: everything.GetStructuredContentLocationChicago,
	})
	if err != nil {
		return err
	}
	fmt.Printf("Chicago: %v °C, %s\n", weather.Temperature, weather.Conditions)
	return nil
}
