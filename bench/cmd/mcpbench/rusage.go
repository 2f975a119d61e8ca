package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// childUsage is what one run of a command cost: its wall time, its user
// and system CPU time, and its peak resident set.
type childUsage struct {
	Wall   time.Duration `json:"wall"`
	CPU    time.Duration `json:"cpu"`
	MaxRSS int64         `json:"maxRSS"` // bytes
}

// measureCommand runs name with args through "mcpbench rusage" and returns
// what the command cost; the command's standard error goes to this
// process's.
//
// The peak RSS of a child that this process started itself would not be
// the child's own. Go starts children with clone(CLONE_VM|CLONE_VFORK), so
// until the exec the child shares this process's memory, and Linux records
// the high-water mark of that memory as the child's maxrss when the exec
// replaces it: every child then reports at least this process's own peak,
// which after the earlier sections is larger than mcpgen's. A fresh
// mcpbench process started for the run has a small peak of its own, so the
// command it starts reports what it used itself.
func measureCommand(name string, args ...string) (childUsage, error) {
	self, err := os.Executable()
	if err != nil {
		return childUsage{}, err
	}
	cmd := exec.Command(self, append([]string{"rusage", name}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return childUsage{}, err
	}
	var u childUsage
	if err := json.Unmarshal(out, &u); err != nil {
		return childUsage{}, fmt.Errorf("reading the usage of %s: %w", name, err)
	}
	return u, nil
}

// rusageMain runs the command args and prints its childUsage as JSON on
// standard output; the command's own output goes to standard error.
func rusageMain(args []string) error {
	if len(args) == 0 {
		return errors.New("rusage: no command given")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("rusage: %s: %w", args[0], err)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	u := childUsage{Wall: wall, CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), MaxRSS: ru.Maxrss * 1024}
	return json.NewEncoder(os.Stdout).Encode(u)
}
