//go:build unix

package runtime

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in a process group of its own, so that
// stopping it also stops the processes it started (npx, for one, runs the
// real server as its child).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the server's process group to exit.
func terminate(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

// kill kills the server's process group.
func kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
