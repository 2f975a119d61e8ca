package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBudgetReport checks the table and the target: a deferred request
// over 10% of the full set's bytes misses it.
func TestBudgetReport(t *testing.T) {
	rows := []budgetRow{
		{provider: "gemini", mode: "all 344 tools", declared: 344, bytes: 1000, tokens: 250, share: 1},
		{provider: "gemini", mode: "deferred, 3 pinned", declared: 4, bytes: 80, tokens: 20, share: 0.08},
		{provider: "other", mode: "deferred, 3 pinned", declared: 4, bytes: 120, tokens: 30, share: 0.12},
	}
	ts := budgetTargets(rows)
	if len(ts) != 2 || !ts[0].met || ts[1].met || ts[0].measured != "8.0%" {
		t.Fatalf("targets = %+v", ts)
	}
	var b bytes.Buffer
	printBudget(&b, rows)
	if !strings.Contains(b.String(), "| gemini | deferred, 3 pinned | 4 | 80 | 20 | 8.0% |") {
		t.Errorf("table:\n%s", b.String())
	}
}
