package integration

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/runtime"
)

// checkLeaks fails the test if goroutines started during it outlive it. Call
// it first, so that its cleanup runs after the servers' and clients'.
func checkLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// children returns the PIDs of this process's child processes whose command
// line satisfies match, zombies included: a child that was not waited for
// still shows up.
func children(t *testing.T, match func(argv []string) bool) []int {
	t.Helper()
	if goruntime.GOOS != "linux" {
		t.Skip("reads child processes from /proc")
	}
	self := os.Getpid()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, stat := range stats {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue // the process ended meanwhile
		}
		// The fields after the command name, which may hold spaces and
		// parentheses, start after the last ')': state, then ppid.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		dir := filepath.Dir(stat)
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if fields[0] == "Z" || match(argv) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			pids = append(pids, pid)
		}
	}
	return pids
}

// argvIs returns a matcher for a command line equal to want.
func argvIs(want []string) func([]string) bool {
	return func(argv []string) bool {
		return strings.Join(argv, "\x00") == strings.Join(want, "\x00")
	}
}

// progressLog records the progress notifications of one call.
type progressLog struct {
	mu    sync.Mutex
	items []runtime.Progress
}

func (p *progressLog) add(x runtime.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, x)
}

func (p *progressLog) all() []runtime.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]runtime.Progress(nil), p.items...)
}
