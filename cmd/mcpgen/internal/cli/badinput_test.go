package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestOutNotARegularFile gives snapshot --out, record --out and generate
// --write-snapshot a directory and a FIFO. Each is refused before the
// server is started, naming the flag and the path, with the usage status;
// the directory and the FIFO are left as they were, and nothing is written
// beside them.
func TestOutNotARegularFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	server := []string{"--", testenv.SDKServer(t)}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"snapshot", []string{"snapshot", "--out"}, "--out"},
		{"record", []string{"record", "--out"}, "--out"},
		{"generate", []string{"generate", "--out", filepath.Join(dir, "pkg"), "--write-snapshot"}, "--write-snapshot"},
	} {
		for _, path := range []string{target, fifo} {
			args := append(append(append([]string{}, tc.args...), path), server...)
			code, stdout, stderr := runCLI(t, args...)
			want := tc.flag + ` "` + path + `" is `
			if code != exitUsage || !strings.Contains(stderr, want) || stdout != "" {
				t.Errorf("%s %s: status %d, stdout %q, stderr %q; want %d and %q", tc.name, filepath.Base(path), code, stdout, stderr, exitUsage, want)
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(target); len(left) != 0 {
		t.Errorf("files written into the directory: %v", left)
	}
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if n := en.Name(); n != "target" && n != "fifo" {
			t.Errorf("%s left behind", n)
		}
	}
}

// TestSnapshotWithByteOrderMark reads a snapshot that starts with a UTF-8
// byte order mark, as some Windows editors save JSON: it is the same
// snapshot as without the mark for generate and diff.
func TestSnapshotWithByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	plain := writeSnapshot(t, dir, "plain.json", "srv", toolA+","+toolB)
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(dir, "bom.json")
	if err := os.WriteFile(bom, append([]byte("\ufeff"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "diff", plain, bom)
	if code != 0 || !strings.Contains(stdout, "No changes.") {
		t.Errorf("diff: status %d, stdout %q, stderr %q; want 0 and no changes", code, stdout, stderr)
	}
	for _, snap := range []string{plain, bom} {
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(snap), ".json"))
		if code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", out, "--package", "tools"); code != 0 {
			t.Fatalf("generate --snapshot %s: status %d, stderr %q", filepath.Base(snap), code, stderr)
		}
	}
	for _, name := range []string{"client.go", "types.go", "schemas.go"} {
		a, errA := os.ReadFile(filepath.Join(dir, "plain", name))
		b, errB := os.ReadFile(filepath.Join(dir, "bom", name))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s differs with the byte order mark (%v, %v)", name, errA, errB)
		}
	}
}

// endlessInput is standard input that never ends: a JSON text opening
// followed by spaces. It counts what was read, and fails reads past limit
// so that a reader without a bound stops.
type endlessInput struct {
	first string
	n     int64
	limit int64
}

func (r *endlessInput) Read(p []byte) (int, error) {
	if r.n >= r.limit {
		return 0, errors.New("read past the test's limit")
	}
	i := 0
	for ; i < len(p) && r.n < r.limit; i++ {
		if r.n < int64(len(r.first)) {
			p[i] = r.first[r.n]
		} else {
			p[i] = ' '
		}
		r.n++
	}
	return i, nil
}

// TestSnapshotSizeBounded gives diff, check and generate a snapshot larger
// than snapshot.MaxFileSize, from a file and from standard input that
// never ends, and call arguments on standard input that never end: each is
// refused, naming the limit, having read at most one byte beyond it.
func TestSnapshotSizeBounded(t *testing.T) {
	dir := t.TempDir()
	base := writeSnapshot(t, dir, "base.json", "srv", toolA)
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"tools":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file: its size costs no disk.
	if err := os.Truncate(big, snapshot.MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("larger than %d bytes", snapshot.MaxFileSize)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"diff", []string{"diff", base, big}, exitUsage},
		{"generate", []string{"generate", "--snapshot", big, "--out", filepath.Join(dir, "pkg")}, exitFail},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, big) || !strings.Contains(stderr, want) {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", tc.name, code, stderr, tc.code, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("generate left its output directory behind: %v", err)
	}

	for _, tc := range []struct {
		name, first, want string
		args              []string
		max               int64
	}{
		{"diff -", `{"tools":[`, want, []string{"diff", base, "-"}, snapshot.MaxFileSize + 1},
		{"call -", `{"a":`, fmt.Sprintf("larger than %d bytes", runtime.DefaultMaxMessageSize), []string{"call", "t", "-", "--", "no-such-server"}, runtime.DefaultMaxMessageSize + 1},
	} {
		in := &endlessInput{first: tc.first, limit: 4 * snapshot.MaxFileSize}
		var out, errb bytes.Buffer
		code := Main(tc.args, in, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", tc.name, code, errb.String(), exitUsage, tc.want)
		}
		if in.n > tc.max {
			t.Errorf("%s read %d bytes of standard input, want at most %d", tc.name, in.n, tc.max)
		}
	}
}
