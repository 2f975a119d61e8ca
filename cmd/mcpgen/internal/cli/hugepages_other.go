//go:build !linux

package cli

// adviseHugeHeap does nothing outside Linux: see hugepages_linux.go.
func adviseHugeHeap(n int) {}
