package docblocks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docLink matches the target of a Markdown link, as in [text](target).
var docLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// heading matches a Markdown heading line.
var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// prose returns the lines of a Markdown text outside its fenced code
// blocks; a fenced line is returned empty, so that line numbers stay.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	out := make([]string, len(lines))
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out[i] = line
		}
	}
	return out
}

// slug returns the anchor GitHub gives a heading: lower case, without the
// characters other than letters, digits, spaces, hyphens and underscores,
// and with hyphens for spaces.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of a Markdown text, a
// repeated one with the "-1", "-2" ... GitHub adds.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocLinksResolve checks that every relative link of the README and of
// docs/ names a file or folder of the repository, relative to the page it
// is on, and that an anchor into a Markdown page names one of its headings.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	for _, path := range docFiles(t, root) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for i, line := range prose(string(text)) {
			for _, m := range docLink.FindAllStringSubmatch(line, -1) {
				if err := checkLink(path, string(text), m[1]); err != nil {
					t.Errorf("%s:%d: the link %s: %v", rel, i+1, m[1], err)
				}
			}
		}
	}
}

// checkLink checks one link target of the Markdown file path, whose text
// is text.
func checkLink(path, text, target string) error {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	file, anchor, _ := strings.Cut(target, "#")
	if file != "" {
		path = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no such file or folder")
		}
		if anchor == "" || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text = string(b)
	}
	if anchor != "" && !anchors(text)[anchor] {
		return fmt.Errorf("no heading has the anchor #%s", anchor)
	}
	return nil
}

// TestLinkChecks checks the anchors and the link checks on made-up pages.
func TestLinkChecks(t *testing.T) {
	dir := t.TempDir()
	page := "# Title\n\n## Using `mcpgen` in your repository\n\n```sh\n# not a heading\n```\n\n## Title\n\n### Snapshots → Go, à la protoc\n"
	if err := os.WriteFile(filepath.Join(dir, "page.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	got := anchors(page)
	for _, want := range []string{"title", "using-mcpgen-in-your-repository", "title-1", "snapshots--go-à-la-protoc"} {
		if !got[want] {
			t.Errorf("anchors(page) = %v, want %s among them", got, want)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block is taken for a heading")
	}
	from := filepath.Join(dir, "README.md")
	for target, ok := range map[string]bool{
		"page.md": true, "page.md#title-1": true, "#x": true, "#y": false, "page.md#nope": false,
		"other.md": false, "https://example.com/x.md#y": true, "./": true,
	} {
		if err := checkLink(from, "# X\n", target); (err == nil) != ok {
			t.Errorf("checkLink(%q) = %v, want ok %v", target, err, ok)
		}
	}
}
