//go:build !unix && !windows

package testenv

import "time"

// ProcessCPU returns 0: this system offers no CPU time of a process.
func ProcessCPU() time.Duration { return 0 }

// ProcessExists reports false: this system cannot tell.
func ProcessExists(pid int) bool { return false }
