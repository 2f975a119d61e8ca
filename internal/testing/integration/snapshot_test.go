package integration

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

var update = flag.Bool("update", false, "capture the servers' tool lists again into testdata/")

// snapshots are the checked-in tool lists the generated clients come from,
// with the server each is captured from. Source is the capture command as
// run from the repository root.
var snapshots = []struct {
	file    string
	source  string
	command func(t *testing.T) []string
}{
	{
		file:    "everything-tools.json",
		source:  "node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio",
		command: func(t *testing.T) []string { return testenv.Everything(t, "stdio") },
	},
	{
		file:    "sdkserver-tools.json",
		source:  "go -C internal/testing/sdkserver run .",
		command: func(t *testing.T) []string { return []string{testenv.SDKServer(t)} },
	},
}

// TestSnapshotsCurrent captures the tool list of each server over stdio and
// checks that the checked-in snapshot still matches it byte for byte, so
// that the generated clients are made from what the pinned servers really
// send. With -update it writes the captures instead.
func TestSnapshotsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, sn := range snapshots {
		t.Run(sn.file, func(t *testing.T) {
			ctx := testenv.Context(t)
			argv := sn.command(t)
			s, err := runtime.Connect(ctx, runtime.NewCommandTransport(argv[0], argv[1:]...), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			snap, err := snapshot.Capture(ctx, s, sn.source)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := snapshot.Write(&got, snap); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(testenv.RepoRoot(), "testdata", sn.file)
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/testing/integration -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("testdata/%s no longer matches the server's tool list: run go test ./internal/testing/integration -update, then go generate ./generated/...", sn.file)
			}
		})
	}
}
