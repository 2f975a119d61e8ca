package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// pathRewriter writes the absolute paths of a server command line in a form
// that does not depend on where the checkout, or the home directory, is.
type pathRewriter struct {
	wd, root, home string
}

// newPathRewriter returns a pathRewriter for the working directory. The
// checkout's root is the nearest directory at or above it holding .git,
// or else go.mod, or else the working directory itself.
func newPathRewriter() *pathRewriter {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	p := &pathRewriter{wd: wd, root: wd, home: home}
	if wd == "" {
		return p
	}
	for _, marker := range []string{".git", "go.mod"} {
		if r, ok := findUp(wd, marker); ok {
			p.root = r
			break
		}
	}
	return p
}

// findUp returns the nearest directory at or above dir that holds name.
func findUp(dir, name string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// portable returns path as it should appear in a snapshot's source: a path
// inside the checkout relative to the working directory ("./bin/server",
// "../../bin/server"), which the command runs in; another path inside the
// home directory as "~/..."; and any other path, or text that is not an
// absolute path, as it is.
func (p *pathRewriter) portable(path string) string {
	if !filepath.IsAbs(path) || p.wd == "" {
		return path
	}
	if within(p.root, path) {
		if rel, err := filepath.Rel(p.wd, path); err == nil {
			if rel != "." && !strings.HasPrefix(rel, "..") {
				rel = "." + string(filepath.Separator) + rel
			}
			return rel
		}
	}
	if p.home != "" && within(p.home, path) {
		if rel, err := filepath.Rel(p.home, path); err == nil {
			return "~" + string(filepath.Separator) + rel
		}
	}
	return path
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
