package testenv

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestProcessCPUGrows(t *testing.T) {
	start := ProcessCPU()
	if start <= 0 {
		t.Skip("this system reports no CPU time of a process")
	}
	// Busy work until the CPU time has grown by 10 ms, or fail after ten
	// seconds of wall time: a loaded machine gives the loop less CPU.
	x := 0
	for deadline := time.Now().Add(10 * time.Second); ProcessCPU()-start < 10*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("ProcessCPU grew by %v in ten seconds of busy work, want 10ms", ProcessCPU()-start)
		}
		for i := range 1_000_000 {
			x += i
		}
	}
	_ = x
}

func TestProcessExists(t *testing.T) {
	if !ProcessExists(os.Getpid()) {
		t.Fatal("ProcessExists(own pid) = false")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if ProcessExists(cmd.Process.Pid) {
		t.Errorf("ProcessExists(%d) = true for a child that ended and was reaped", cmd.Process.Pid)
	}
}
