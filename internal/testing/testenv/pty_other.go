//go:build !linux

package testenv

import (
	"os"
	"testing"
)

// OpenPTY skips the test: pseudo-terminals are opened with Linux's ioctls,
// and the tests that need one run on Linux.
func OpenPTY(t testing.TB) (*os.File, string) {
	t.Helper()
	t.Skip("pseudo-terminals are opened on Linux only")
	return nil, ""
}
