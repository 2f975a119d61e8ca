//go:build race

package jsontree

// raceEnabled is set when the race detector is on: it makes sync.Pool drop
// items at random, so tests that count allocations skip.
const raceEnabled = true
