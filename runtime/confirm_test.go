package runtime

import (
	"encoding/json"
	"testing"
)

// TestContradictoryHintsAreDestructive checks that a tool saying both
// readOnlyHint true and destructiveHint true counts as destructive: a
// server's hints are not trusted to excuse each other.
func TestContradictoryHintsAreDestructive(t *testing.T) {
	cases := []struct {
		raw         string
		destructive bool
	}{
		{``, true},
		{`{}`, true},
		{`{"readOnlyHint":true}`, false},
		{`{"destructiveHint":false}`, false},
		{`{"readOnlyHint":false,"destructiveHint":false}`, false},
		{`{"readOnlyHint":true,"destructiveHint":false}`, false},
		{`{"readOnlyHint":true,"destructiveHint":true}`, true},
		{`{"destructiveHint":true}`, true},
		{`{"readOnlyHint":"yes"}`, true},
	}
	for _, c := range cases {
		if got := ParseAnnotations(json.RawMessage(c.raw)).Destructive(); got != c.destructive {
			t.Errorf("%s: Destructive() = %v, want %v", c.raw, got, c.destructive)
		}
	}
}
