//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time this process has used so
// far, for benchmarks that report CPU per operation.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ProcessExists reports whether a process with the given id exists, a
// zombie included.
func ProcessExists(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
