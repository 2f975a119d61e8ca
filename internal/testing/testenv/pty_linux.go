package testenv

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// OpenPTY opens a pseudo-terminal with the standard library alone and
// returns its controlling side and the path of its terminal side, which a
// program under test opens as its terminal. The controlling side is closed
// when the test ends.
func OpenPTY(t testing.TB) (*os.File, string) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	if err := ioctl(ptmx, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	var n uint32
	if err := ioctl(ptmx, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatalf("numbering the pseudo-terminal: %v", err)
	}
	return ptmx, fmt.Sprintf("/dev/pts/%d", n)
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// Screen collects what the program writes to a pseudo-terminal.
type Screen struct {
	text chan string
	seen strings.Builder
}

// Watch reads the controlling side of a pseudo-terminal until it closes.
func Watch(ptmx *os.File) *Screen {
	s := &Screen{text: make(chan string, 64)}
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				s.text <- string(buf[:n])
			}
			if err != nil {
				close(s.text)
				return
			}
		}
	}()
	return s
}

// WaitFor waits until want has appeared on the screen, failing the test if
// it has not shortly before the test's deadline.
func (s *Screen) WaitFor(t testing.TB, want string) {
	t.Helper()
	deadline := time.After(WaitLimit(t))
	for !strings.Contains(s.seen.String(), want) {
		select {
		case text, ok := <-s.text:
			if !ok {
				t.Fatalf("the terminal closed; it shows %q, want %q", s.seen.String(), want)
			}
			s.seen.WriteString(text)
		case <-deadline:
			t.Fatalf("the terminal shows %q, want %q", s.seen.String(), want)
		}
	}
}

// Seen returns what the screen has shown so far.
func (s *Screen) Seen() string {
	for {
		select {
		case text, ok := <-s.text:
			if !ok {
				return s.seen.String()
			}
			s.seen.WriteString(text)
		default:
			return s.seen.String()
		}
	}
}
