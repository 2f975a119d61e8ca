//go:build soak

package runtime

import "testing"

// The long variants of the fault tests of lifecycle_test.go, run by
// make soak: 100,000 calls each.

// TestSoakHTTPDrops makes 100 rounds of 1000 concurrent calls to Streamable
// HTTP servers that drop a tenth of the connections.
func TestSoakHTTPDrops(t *testing.T) {
	checkLeaks(t)
	checkFDs(t)
	for range 100 {
		runHTTPDrops(t, 1000, 0.1)
		if t.Failed() {
			return
		}
	}
}

// TestSoakStdioCrashes makes 100 rounds of 1000 concurrent calls to stdio
// servers killed at a random moment.
func TestSoakStdioCrashes(t *testing.T) {
	checkLeaks(t)
	checkChildren(t)
	checkFDs(t)
	runStdioCrashes(t, 100, 1000)
}
