package runtime_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// Connect to a stdio server, list its tools and call one.
func ExampleConnect() {
	ctx := context.Background()
	s, err := runtime.Connect(ctx, runtime.NewCommandTransport("npx", "-y", "@modelcontextprotocol/server-everything"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	fmt.Println("speaking", s.ProtocolVersion(), "with", s.ServerInfo().Name)

	tools, err := s.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Println(t.Name)
	}

	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil {
		log.Fatal(err) // a *runtime.ToolError, *runtime.RPCError, *runtime.ServerExitedError, ...
	}
	fmt.Println(res.Text())
}

// Options shape a Session: timeouts, logging and the drift check against the
// snapshot a generated package was made from.
func ExampleOptions() {
	ctx := context.Background()
	level := slog.LevelInfo
	s, err := runtime.Connect(ctx, runtime.NewCommandTransport("my-server"), &runtime.Options{
		CallTimeout:   30 * time.Second,
		Logger:        slog.Default(),
		CallLogLevel:  &level,
		ToolLogLevels: map[string]slog.Level{"get_status": slog.LevelDebug - 4}, // polled: keep it quiet
		SnapshotHash:  "sha256:3f9a0c1b2d4e",                                    // a generated package's SnapshotHash
		OnToolsChanged: func() {
			log.Print("the server's tools changed")
		},
	})
	if err != nil {
		log.Fatal(err) // with FailOnDrift, a *runtime.DriftError when the tools changed
	}
	defer s.Close()
}

// Progress notifications of a call reach the function WithProgress puts in
// its context.
func ExampleWithProgress() {
	var s *runtime.Session // connected as in the Connect example
	ctx := runtime.WithProgress(context.Background(), func(p runtime.Progress) {
		fmt.Printf("%.0f/%.0f %s\n", p.Progress, p.Total, p.Message)
	})
	if _, err := s.CallTool(ctx, "long_task", nil); err != nil {
		log.Fatal(err)
	}
}

// Several servers serve as one Caller; clashing tool names get the server's
// name as a prefix.
func ExampleConnectMulti() {
	ctx := context.Background()
	m, err := runtime.ConnectMulti(ctx, []runtime.Server{
		{Name: "files", Transport: runtime.NewCommandTransport("files-server")},
		{Name: "home", Transport: runtime.HTTP("http://homeassistant.local:8123/api/mcp", nil)},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	for _, t := range m.Tools() {
		fmt.Println(t.Exposed, "on", t.Server)
	}
	res, err := m.CallTool(ctx, "files__search", map[string]string{"query": "todo"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
}

// A skill file that does not match the listing is not returned; the error
// names the skill, the file and what differed, as docs/connecting.md shows.
func ExampleSkillVerificationError() {
	err := error(&runtime.SkillVerificationError{
		Skill:  "pdf-processing",
		URI:    "skill://pdf-processing/SKILL.md",
		Reason: "digest sha256:5f0c…, the listing says sha256:93ab…",
	})
	fmt.Println(err)
	// Output:
	// skill "pdf-processing": "skill://pdf-processing/SKILL.md" failed verification: digest sha256:5f0c…, the listing says sha256:93ab…
}
