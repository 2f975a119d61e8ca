package cli

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAdviseHugeHeap checks in /proc/self/smaps that the range
// adviseHugeHeapNow reports lies in one mapping that carries the huge page
// advice (VmFlags "hg").
func TestAdviseHugeHeap(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("this kernel offers no transparent huge pages")
	}
	t.Setenv("GODEBUG", "")
	addr, n := adviseHugeHeapNow(3 * hugePageSize)
	if addr == 0 || n < hugePageSize || addr%hugePageSize != 0 || n%hugePageSize != 0 {
		t.Fatalf("advised %d bytes at %#x, want at least one aligned huge page", n, addr)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			inside = lo <= addr && addr+uintptr(n) <= hi
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && inside {
			if !strings.Contains(" "+flags+" ", " hg ") {
				t.Fatalf("the mapping of the advised range has VmFlags%s, without hg", flags)
			}
			return
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping in /proc/self/smaps holds the advised range %#x+%d", addr, n)
}

// mappingRange parses the address range that starts a mapping's entry in
// /proc/self/smaps ("7f12a000-7f12c000 rw-p ...").
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	r, _, found := strings.Cut(line, " ")
	los, his, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(los, 16, 64)
	h, err2 := strconv.ParseUint(his, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}

func TestTHPDisabled(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                             false,
		"disablethp=1":                 true,
		"disablethp=0":                 false,
		"gctrace=1, disablethp=1":      true,
		"disablethp=1,disablethp=0":    false,
		"madvdontneed=1,xdisablethp=1": false,
	} {
		if got := thpDisabled(godebug); got != want {
			t.Errorf("thpDisabled(%q) = %v, want %v", godebug, got, want)
		}
	}
}
