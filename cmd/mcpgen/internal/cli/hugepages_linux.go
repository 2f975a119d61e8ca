package cli

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// hugePageSize is the alignment adviseHugeHeap rounds to: the size of a
// transparent huge page on amd64 and on arm64 with 4 KiB pages, and a
// multiple of every base page size.
const hugePageSize = 2 << 20

// adviseHugeHeap asks the kernel to back the next n bytes the heap grows by
// with transparent huge pages, where the system leaves that to each program
// (the "madvise" setting most distributions ship).
//
// Generation touches about 100 MiB of fresh heap and exits. Faulting that in
// 4 KiB at a time costs some 25,000 page faults, a third of the command's
// CPU time; with huge pages it takes a few thousand, and the command about
// half the time (see "Generation, fourth round" in docs/performance.md).
//
// The Go runtime only uses huge pages where the kernel gives them unasked, so
// the advice is given on a fresh allocation of n bytes, which the runtime
// maps and, being fresh, does not touch. The allocation is garbage once
// adviseHugeHeap returns; its pages keep the advice when the runtime reuses
// them for later objects, and when it returns them to the kernel. As with
// the runtime's own huge pages, GODEBUG=disablethp=1 turns it off.
//
// Only the first call in a process does anything: a later allocation could
// be of reused memory, which the runtime would clear page by page.
func adviseHugeHeap(n int) {
	adviseOnce.Do(func() { adviseHugeHeapNow(n) })
}

var adviseOnce sync.Once

// adviseHugeHeapNow allocates n bytes and advises the huge pages within
// them. It returns the address and length of the advised range, or 0, 0.
func adviseHugeHeapNow(n int) (addr uintptr, length int) {
	if n < hugePageSize || thpDisabled(os.Getenv("GODEBUG")) {
		return 0, 0
	}
	b := make([]byte, n)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := int(-base % hugePageSize)
	end := start + (n-start)/hugePageSize*hugePageSize
	if end <= start {
		return 0, 0
	}
	// Advice is only advice: a kernel without transparent huge pages
	// refuses it, and the heap stays as it was.
	if syscall.Madvise(b[start:end], madvHugePage) != nil {
		return 0, 0
	}
	return base + uintptr(start), end - start
}

// madvHugePage is MADV_HUGEPAGE, 14 on every architecture Go runs on
// Linux, which package syscall does not name on all of them.
const madvHugePage = 14

// thpDisabled reports whether the GODEBUG value godebug turns the
// runtime's transparent huge pages off.
func thpDisabled(godebug string) bool {
	disabled := false
	for kv := range strings.SplitSeq(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			disabled = v == "1" // the last setting wins, as in the runtime
		}
	}
	return disabled
}
