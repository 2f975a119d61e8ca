//go:build !race

package jsontree

const raceEnabled = false
