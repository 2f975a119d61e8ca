// Package gitfile reads a file as it was at a git revision, the way
// `git show REV:path` does, with errors that say which part was missing: the
// repository, the revision or the path.
package gitfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Split splits a REV:path spec at its first colon. ok is false when spec
// has no colon or either side is empty.
func Split(spec string) (rev, path string, ok bool) {
	rev, path, found := strings.Cut(spec, ":")
	if !found || rev == "" || path == "" {
		return "", "", false
	}
	return rev, path, true
}

// Error is a failure to read REV:path. Msg says which part was missing,
// such as "git revision v9 does not exist".
type Error struct {
	Rev, Path string
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("reading %s:%s: %s", e.Rev, e.Path, e.Msg) }

// Read returns the content of path at revision rev, in the repository that
// holds dir. As with git show, path is relative to the top of the
// repository unless it starts with "./" or "../".
func Read(ctx context.Context, dir, rev, path string) ([]byte, error) {
	spec := rev + ":" + path
	fail := func(format string, args ...any) error {
		return &Error{Rev: rev, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fail("git is not installed")
	}
	if _, err := run(ctx, dir, "rev-parse", "--git-dir"); err != nil {
		where := dir
		if where == "" {
			where = "the current directory"
		}
		return nil, fail("%s is not inside a git repository", where)
	}
	if strings.HasPrefix(rev, "-") {
		return nil, fail("git revision %s does not exist", rev)
	}
	if _, err := run(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{tree}"); err != nil {
		return nil, fail("git revision %s does not exist", rev)
	}
	kind, err := run(ctx, dir, "cat-file", "-t", spec)
	if err != nil {
		return nil, fail("%s does not exist in revision %s", path, rev)
	}
	if k := strings.TrimSpace(string(kind)); k != "blob" {
		return nil, fail("%s is a %s in revision %s, not a file", path, k, rev)
	}
	data, err := run(ctx, dir, "cat-file", "blob", spec)
	if err != nil {
		return nil, fail("%v", err)
	}
	return data, nil
}

// run runs git in dir and returns its standard output; a failure carries
// the first line git wrote to standard error.
func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, errors.New("git " + args[0] + ": " + msg)
	}
	return out, nil
}
