package main

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	// measureCommand starts the running binary as "rusage": the test
	// binary plays mcpbench's part.
	if len(os.Args) > 1 && os.Args[1] == "rusage" {
		if err := rusageMain(os.Args[2:]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMeasureCommandPeakRSSIsTheChilds checks that the peak RSS measured
// for a command is its own, not that of the large process that starts it,
// which a child started directly reports as its own.
func TestMeasureCommandPeakRSSIsTheChilds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the inherited high-water mark is Linux's")
	}
	true_, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	const big = 192 << 20
	ballast := make([]byte, big)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	direct := exec.Command(true_)
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	u, err := measureCommand(true_)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(ballast)
	t.Logf("true started directly: maxrss %d MiB; through measureCommand: %d MiB", inherited>>20, u.MaxRSS>>20)
	if inherited < big {
		t.Logf("this kernel does not pass the parent's high-water mark on (%d MiB)", inherited>>20)
	}
	// The command inherits the peak of the process that starts it, which
	// is a fresh test binary here: a few MiB, or about 65 MiB under the
	// race detector. Either is far below this process's ballast.
	if u.MaxRSS >= big/2 {
		t.Errorf("measureCommand gave true a peak RSS of %d MiB, want far less than this process's %d MiB", u.MaxRSS>>20, big>>20)
	}
}
