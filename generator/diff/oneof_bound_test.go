package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestOneOfOverlapCheckBounded adds a thousand constant branches to a
// oneOf. Telling whether each overlaps another compared every pair, a
// million pairs here, and 7 s for 8,000 branches (about 120 KB of
// snapshot): a snapshot of a megabyte would take minutes. The pairs
// compared are now bounded by maxOverlapChecks. Each constant here differs
// from every other, so every branch checked is INFO; once the budget is
// spent, the rest count as overlapping, WARN, the rating that cannot hide
// a break. The count of INFO branches shows the bound, with no clock.
func TestOneOfOverlapCheckBounded(t *testing.T) {
	const n = 1000
	b := make([]string, n)
	for i := range b {
		b[i] = fmt.Sprintf(`{"const":%d}`, i)
	}
	old := []runtime.Tool{{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"x":{"oneOf":[{"const":-1}]}}}`)}}
	nw := []runtime.Tool{{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"x":{"oneOf":[` + strings.Join(b, ",") + `]}}}`)}}
	changes, err := Tools(old, nw)
	if err != nil {
		t.Fatal(err)
	}
	info, warn := 0, 0
	for _, c := range changes {
		if c.Rule != BranchAdded {
			continue
		}
		switch c.Severity {
		case Info:
			info++
		case Warn:
			warn++
		}
	}
	// Each branch checked in full compares itself with the n others.
	if want := maxOverlapChecks / n; info < want-1 || info > want+1 || info+warn != n {
		t.Errorf("%d branches added: %d INFO, %d WARN; want about %d INFO (the budget of %d pairs), the rest WARN", n, info, warn, want, maxOverlapChecks)
	}
}
