package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// allOfChainTool is a tool whose $defs L0…L(depth-1) each say
// allOf: [{$ref: L(i+1)}, {$ref: L(i+1)}], above an object whose property
// x has type leaf.
func allOfChainTool(depth int, leaf string) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"allOf":[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"x":{"type":%q}}}`, depth, leaf))
	return `{"name":"t","inputSchema":{"type":"object","$defs":{` + strings.Join(defs, ",") +
		`},"properties":{"a":{"$ref":"#/$defs/L0"}}}}`
}

// TestTimeoutBoundsGenerate checks that --timeout bounds generating from a
// snapshot, not only the wait for a server: it was ignored with --snapshot,
// so an allOf chain could run for minutes whatever it said.
func TestTimeoutBoundsGenerate(t *testing.T) {
	dir := t.TempDir()
	snap := writeSnapshot(t, dir, "s.json", "srv", allOfChainTool(8, "string"))
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", out, "--timeout", "1ns")
	if code != 1 || !strings.Contains(stderr, `building the Go types stopped at tool "t", /inputSchema: context deadline exceeded (the --timeout of 1ns ran out)`) {
		t.Errorf("generate --timeout 1ns: status %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("generate wrote %d files after its timeout", len(entries))
	}
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out)
	if code != 0 {
		t.Errorf("generate: status %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out, "--timeout", "-1s")
	if code != 2 || !strings.Contains(stderr, "--timeout must not be negative") {
		t.Errorf("generate --timeout -1s: status %d, stderr %q", code, stderr)
	}
}

// TestTimeoutBoundsDiff checks that diff has a --timeout that bounds the
// comparison, and says which tool and schema it stopped at.
func TestTimeoutBoundsDiff(t *testing.T) {
	dir := t.TempDir()
	a := writeSnapshot(t, dir, "a.json", "srv", allOfChainTool(8, "string"))
	b := writeSnapshot(t, dir, "b.json", "srv", allOfChainTool(8, "integer"))
	code, _, stderr := runCLI(t, "diff", "--timeout", "1ns", a, b)
	if code != 2 || !strings.Contains(stderr, "tool t: comparing inputSchema at (root) stopped: context deadline exceeded (the --timeout of 1ns ran out)") {
		t.Errorf("diff --timeout 1ns: status %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "diff", a, b)
	if code != 1 || !strings.Contains(stdout, "inputSchema/properties/a/properties/x/type: type of `a.x` changed") {
		t.Errorf("diff: status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestTimeoutBoundsCheckComparison checks that the comparison check makes
// after capturing the server's tools stops at the command's deadline, with
// the tool and the phase in the error: check --timeout 3s ran on for 20 s
// comparing an allOf chain, as only the capture watched the deadline.
func TestTimeoutBoundsCheckComparison(t *testing.T) {
	dir := t.TempDir()
	read := func(leaf string) *snapshot.Snapshot {
		s, err := snapshot.ReadFile(writeSnapshot(t, dir, leaf+".json", "srv", allOfChainTool(8, leaf)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sf := &serverFlags{timeout: time.Nanosecond}
	ctx, cancel := sf.context()
	defer cancel()
	<-ctx.Done()
	_, err := compareSnapshots(ctx, "old", "live", read("string"), read("integer"), diff.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("compareSnapshots after the deadline: %v", err)
	}
	want := "comparing old with live: tool t: comparing inputSchema at (root) stopped: context deadline exceeded (the --timeout of 1ns ran out)"
	if got := sf.explain(ctx, err).Error(); got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}
