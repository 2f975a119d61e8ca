package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// SkillsExtension is the identifier of the Skills extension (SEP-2640),
// under which a server declares it in capabilities.extensions.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillFileName is the name of a skill's entry file.
const skillFileName = "SKILL.md"

// A Skill is one entry of a skills/list result: a skill the server serves,
// described without reading any of its files. Session.LoadSkill reads and
// verifies its SKILL.md, Session.ReadSkillFile any other of its files.
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md, such as
	// skill://pdf-processing/SKILL.md.
	URI string `json:"uri"`
	// Name and Description come from the frontmatter.
	Name        string `json:"-"`
	Description string `json:"-"`
	// Frontmatter is the SKILL.md frontmatter as the server rendered it in
	// the listing, a JSON object.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Files lists every file of the skill, SKILL.md included, with the
	// digest and size its content must have. It is nil when Dynamic is set.
	Files []SkillFile `json:"-"`
	// Dynamic is set when the server publishes no list of the skill's files
	// ("resources": "dynamic"): its files are then read without a digest
	// or size to check them against.
	Dynamic bool `json:"-"`
	// Meta is the entry's _meta object, if any.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SkillFile is one file of a skill as the listing describes it.
type SkillFile struct {
	URI string `json:"uri"`
	// Digest is "sha256:" and the lowercase hex SHA-256 of the file's raw
	// bytes.
	Digest string `json:"digest"`
	// Size is the length of the file's raw bytes.
	Size int64 `json:"size"`
}

// LoadedSkill is a skill whose SKILL.md has been read and verified against
// its listing.
type LoadedSkill struct {
	Skill
	// Markdown is the whole SKILL.md, frontmatter included.
	Markdown string
	// Body is the SKILL.md after its frontmatter.
	Body string
}

// SkillVerificationError reports a skill file whose content does not match
// the skill's listing: a different digest or size, or a SKILL.md whose
// frontmatter is missing or differs. Its content must not be used.
type SkillVerificationError struct {
	// Skill is the skill's name (its URI when it has none).
	Skill string
	// URI is the file that failed.
	URI string
	// Reason says what did not match.
	Reason string
}

func (e *SkillVerificationError) Error() string {
	return fmt.Sprintf("skill %s: %s failed verification: %s", redact.Quote(e.Skill), redact.Quote(e.URI), e.Reason)
}

// ListSkills returns every skill the server lists with skills/list,
// following each page's cursor. It reads none of the skills' files. A server
// that does not declare the Skills extension is an error.
func (s *Session) ListSkills(ctx context.Context) ([]Skill, error) {
	st, err := s.current(ctx)
	if err != nil {
		return nil, fmt.Errorf("skills/list: %w", err)
	}
	if !declaresExtension(st.caps.Raw, SkillsExtension) {
		return nil, fmt.Errorf("skills/list: the server does not declare the %s extension", SkillsExtension)
	}
	var skills []Skill
	pg := pages{method: "skills/list", scrub: s.scrub}
	for {
		members, err := pg.params()
		if err != nil {
			return nil, err
		}
		res, err := s.do(ctx, st, &request{method: "skills/list"}, members)
		if err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
		if err := pg.read(res); err != nil {
			return nil, err
		}
		var next *string
		skills, next, err = decodeSkillsPage(skills, res, s.opts.MaxTools)
		if err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
		more, err := pg.advance(next)
		if err != nil {
			return nil, err
		}
		if !more {
			return skills, nil
		}
	}
}

// decodeSkillsPage appends the skills of one skills/list result to skills
// and returns the next cursor, nil at the end. It refuses the page at the
// first skill beyond max, before decoding the rest of it.
func decodeSkillsPage(skills []Skill, res []byte, max int) ([]Skill, *string, error) {
	var next *string
	var sawSkills bool
	err := jsonrpc.ObjectEach(res, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "skills"):
			sawSkills = true
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, func(raw []byte) error {
				if len(skills) == max {
					return fmt.Errorf("the server lists more than %d skills (Options.MaxTools)", max)
				}
				sk, err := decodeSkill(raw)
				if err != nil {
					return fmt.Errorf("skills[%d]: %w", len(skills), err)
				}
				skills = append(skills, *sk)
				return nil
			})
		case jsonrpc.KeyIs(key, escaped, "nextCursor"):
			if jsonrpc.IsNull(v) {
				return nil
			}
			c, err := jsonrpc.String(v)
			if err != nil {
				return fmt.Errorf("nextCursor: %w", err)
			}
			next = &c
		case jsonrpc.KeyIs(key, escaped, "resultType"):
			return checkResultType(v)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !sawSkills {
		return nil, nil, errors.New("the result has no skills array")
	}
	return skills, next, nil
}

// decodeSkill decodes one skill entry and checks that it can be verified
// against: a URI ending in /SKILL.md, a frontmatter object with a name and
// a description, and files with well-formed digests and sizes, SKILL.md
// among them. Members are matched by their exact names, as the frontmatter
// is compared with the file's, so that a member spelled in capitals does
// not stand in for one or override it.
func decodeSkill(raw []byte) (*Skill, error) {
	var uri string
	var frontmatter, resources, meta []byte
	err := jsonrpc.ObjectEach(raw, func(key []byte, escaped bool, v []byte) error {
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "uri"):
			if !jsonrpc.IsNull(v) {
				if uri, err = jsonrpc.String(v); err != nil {
					return fmt.Errorf("uri: %w", err)
				}
			}
		case jsonrpc.KeyIs(key, escaped, "frontmatter"):
			frontmatter = v
		case jsonrpc.KeyIs(key, escaped, "resources"):
			resources = v
		case jsonrpc.KeyIs(key, escaped, "_meta"):
			meta = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if uri == "" {
		return nil, errors.New("the entry has no uri")
	}
	sk := &Skill{URI: uri, Frontmatter: bytes.Clone(frontmatter), Meta: bytes.Clone(meta)}
	if !strings.HasSuffix(uri, "/"+skillFileName) {
		return nil, fmt.Errorf("skill %s: the uri does not end in /%s", redact.Quote(uri), skillFileName)
	}
	var name, description *string
	if len(frontmatter) == 0 || frontmatter[0] != '{' || jsonrpc.ObjectEach(frontmatter, func(key []byte, escaped bool, v []byte) error {
		var field **string
		switch {
		case jsonrpc.KeyIs(key, escaped, "name"):
			field = &name
		case jsonrpc.KeyIs(key, escaped, "description"):
			field = &description
		default:
			return nil
		}
		if jsonrpc.IsNull(v) {
			*field = nil
			return nil
		}
		s, err := jsonrpc.String(v)
		*field = &s
		return err
	}) != nil {
		return nil, fmt.Errorf("skill %s: the frontmatter is missing or not an object", redact.Quote(uri))
	}
	if name == nil || *name == "" || description == nil || *description == "" {
		return nil, fmt.Errorf("skill %s: the frontmatter has no name or no description", redact.Quote(uri))
	}
	sk.Name, sk.Description = *name, *description
	switch {
	case string(jsonrpc.TrimSpace(resources)) == `"dynamic"`:
		sk.Dynamic = true
		return sk, nil
	case len(resources) == 0 || resources[0] != '[':
		return nil, fmt.Errorf("skill %s: resources is neither a list of files nor \"dynamic\"", redact.Quote(sk.Name))
	}
	sk.Files = []SkillFile{}
	err = jsonrpc.ArrayEach(resources, func(item []byte) error {
		f, err := decodeSkillFile(item)
		if err != nil {
			return fmt.Errorf("[%d]: %w", len(sk.Files), err)
		}
		sk.Files = append(sk.Files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("skill %s: resources%w", redact.Quote(sk.Name), err)
	}
	hasEntry := false
	for i, f := range sk.Files {
		if !validDigest(f.Digest) {
			return nil, fmt.Errorf("skill %s: resources[%d] (%s): digest %s is not sha256: and 64 lowercase hex digits", redact.Quote(sk.Name), i, redact.Quote(f.URI), redact.Quote(f.Digest))
		}
		if f.Size < 0 {
			return nil, fmt.Errorf("skill %s: resources[%d] (%s): size %d is negative", redact.Quote(sk.Name), i, redact.Quote(f.URI), f.Size)
		}
		if f.URI == sk.URI {
			hasEntry = true
		}
	}
	if !hasEntry {
		return nil, fmt.Errorf("skill %s: resources does not list its %s (%s)", redact.Quote(sk.Name), skillFileName, redact.Quote(sk.URI))
	}
	return sk, nil
}

// decodeSkillFile decodes one file of a skill entry's resources, matching
// its members by their exact names.
func decodeSkillFile(raw []byte) (SkillFile, error) {
	var f SkillFile
	err := jsonrpc.ObjectEach(raw, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.IsNull(v) {
			return nil
		}
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "uri"):
			if f.URI, err = jsonrpc.String(v); err != nil {
				return fmt.Errorf("uri: %w", err)
			}
		case jsonrpc.KeyIs(key, escaped, "digest"):
			if f.Digest, err = jsonrpc.String(v); err != nil {
				return fmt.Errorf("digest: %w", err)
			}
		case jsonrpc.KeyIs(key, escaped, "size"):
			n, ok := jsonrpc.Int(v)
			if !ok {
				return fmt.Errorf("size %s is not a whole number of bytes", snippet(v))
			}
			f.Size = n
		}
		return nil
	})
	return f, err
}

// validDigest reports whether d is "sha256:" and 64 lowercase hex digits.
func validDigest(d string) bool {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != sha256.Size*2 {
		return false
	}
	for _, c := range []byte(hexPart) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Dir returns the URI of the skill's directory: its URI without /SKILL.md.
func (sk *Skill) Dir() string {
	return strings.TrimSuffix(sk.URI, "/"+skillFileName)
}

// label names the skill in errors.
func (sk *Skill) label() string {
	if sk.Name != "" {
		return sk.Name
	}
	return sk.URI
}

// LoadSkill reads the skill's SKILL.md, and only it, and verifies it: its
// digest and size against the listing (unless the skill is dynamic), and its
// frontmatter, which must hold the same fields with the same values as the
// listing's. A mismatch is a *SkillVerificationError, and the content is not
// returned.
func (s *Session) LoadSkill(ctx context.Context, sk *Skill) (*LoadedSkill, error) {
	data, err := s.ReadSkillFile(ctx, sk, sk.URI)
	if err != nil {
		return nil, err
	}
	text := string(data)
	fmText, body, ok := splitFrontmatter(text)
	if !ok {
		return nil, &SkillVerificationError{Skill: sk.label(), URI: sk.URI, Reason: "it does not begin with a YAML frontmatter block between --- lines"}
	}
	if err := compareFrontmatter(fmText, sk.Frontmatter); err != nil {
		return nil, &SkillVerificationError{Skill: sk.label(), URI: sk.URI, Reason: err.Error()}
	}
	return &LoadedSkill{Skill: *sk, Markdown: text, Body: body}, nil
}

// ReadSkillFile reads one file of the skill with resources/read and returns
// its raw bytes (text as UTF-8, a blob decoded) once they match the digest
// and size the listing gives for uri. A file outside the skill's directory,
// one whose path could leave it once decoded or cleaned (see
// skillPathProblem), or one the listing does not name, is not read. A
// mismatch is a *SkillVerificationError, and the content is not returned.
// For a dynamic skill, which lists no files, only the location is checked.
func (s *Session) ReadSkillFile(ctx context.Context, sk *Skill, uri string) ([]byte, error) {
	if uri != sk.URI && !strings.HasPrefix(uri, sk.Dir()+"/") {
		return nil, fmt.Errorf("skill %s: %s is not a file of the skill (outside %s)", s.quote(sk.label()), s.quote(uri), s.quote(sk.Dir()+"/"))
	}
	if problem := skillPathProblem(uri); problem != "" {
		return nil, fmt.Errorf("skill %s: %s is not a file of the skill (its path %s)", s.quote(sk.label()), s.quote(uri), problem)
	}
	var want *SkillFile
	if !sk.Dynamic {
		for i := range sk.Files {
			if sk.Files[i].URI == uri {
				want = &sk.Files[i]
				break
			}
		}
		if want == nil {
			return nil, fmt.Errorf("skill %s: %s is not among the files the listing names", s.quote(sk.label()), s.quote(uri))
		}
	}
	res, err := s.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", s.quote(sk.label()), err)
	}
	var item *ResourceContents
	for i := range res.Contents {
		if res.Contents[i].URI == uri || res.Contents[i].URI == "" {
			item = &res.Contents[i]
			break
		}
	}
	if item == nil {
		return nil, &SkillVerificationError{Skill: sk.label(), URI: uri, Reason: fmt.Sprintf("the server returned %d content item(s), none for this URI", len(res.Contents))}
	}
	data := item.Bytes()
	if want != nil {
		if int64(len(data)) != want.Size {
			return nil, &SkillVerificationError{Skill: sk.label(), URI: uri, Reason: fmt.Sprintf("size %d bytes, the listing says %d", len(data), want.Size)}
		}
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != want.Digest {
			return nil, &SkillVerificationError{Skill: sk.label(), URI: uri, Reason: fmt.Sprintf("digest %s, the listing says %s", got, want.Digest)}
		}
	}
	return data, nil
}

// skillPathProblem says what keeps uri from naming a file inside its
// skill's directory by its text alone, or returns "". The prefix check
// that it begins with the directory holds only for a path with no . or ..
// segments and no empty ones, no backslashes (a separator on Windows) and
// no percent-encoded dots, slashes or backslashes, which a server, or a
// file system behind it, may decode or clean into a path outside the skill.
func skillPathProblem(uri string) string {
	p := uri
	if _, rest, ok := strings.Cut(uri, "://"); ok {
		p = rest
	}
	if strings.ContainsRune(p, '\\') {
		return "has a backslash"
	}
	lower := strings.ToLower(p)
	for _, enc := range []string{"%2e", "%2f", "%5c"} {
		if strings.Contains(lower, enc) {
			return "has a percent-encoded dot, slash or backslash"
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return "has an empty segment"
		case ".", "..":
			return "has a " + seg + " segment"
		}
	}
	return ""
}

// splitFrontmatter splits a SKILL.md into its frontmatter (the YAML between
// the first two --- lines, the first starting the file after an optional
// byte order mark) and the body after it.
func splitFrontmatter(text string) (fm, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	rest, found := cutLine(text, "---")
	if !found {
		return "", "", false
	}
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(strings.TrimSuffix(line, "\r"), " \t") == "---" {
			body := ""
			if end >= 0 {
				body = rest[off+end+1:]
			}
			return rest[:off], body, true
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", "", false
}

// cutLine returns what follows text's first line when that line is marker.
func cutLine(text, marker string) (string, bool) {
	line, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimSuffix(line, "\r") != marker {
		return "", false
	}
	return rest, true
}

// compareFrontmatter compares the YAML frontmatter of a file with the JSON
// object of its listing, field by field; a null field equals an absent one.
// The frontmatter is parsed only when it is at most maxFrontmatterBytes
// long, and anchors and aliases are refused before any value is built, so
// that a few hundred bytes of nested aliases cannot expand to gigabytes.
// Errors quote values only as short, escaped excerpts.
func compareFrontmatter(fmText string, listed json.RawMessage) error {
	if len(fmText) > maxFrontmatterBytes {
		return fmt.Errorf("the frontmatter is larger than %d bytes", maxFrontmatterBytes)
	}
	// A frontmatter is one YAML document: a second one would reach the
	// model with the file without being compared with the listing.
	dec := yaml.NewDecoder(strings.NewReader(fmText))
	var node, next yaml.Node
	if err := dec.Decode(&node); err != nil && err != io.EOF {
		return fmt.Errorf("the frontmatter is not valid YAML: %s", excerpt(err.Error(), maxErrorExcerpt))
	}
	switch err := dec.Decode(&next); {
	case err == nil:
		return errors.New("the frontmatter holds more than one YAML document")
	case err != io.EOF:
		return fmt.Errorf("the frontmatter is not valid YAML: %s", excerpt(err.Error(), maxErrorExcerpt))
	}
	// The frontmatter begins on the line after the file's first ---.
	if err := refuseAliases(&node, 1); err != nil {
		return fmt.Errorf("the frontmatter: %v", err)
	}
	v, err := yamlValue(&node, 0)
	if err != nil {
		return fmt.Errorf("the frontmatter: %s", excerpt(err.Error(), maxErrorExcerpt))
	}
	file, ok := v.(map[string]any)
	if !ok {
		return errors.New("the frontmatter is not a mapping")
	}
	for _, k := range []string{"name", "description"} {
		if s, _ := file[k].(string); s == "" {
			return fmt.Errorf("the frontmatter has no %s", k)
		}
	}
	var entry map[string]any
	if err := json.Unmarshal(listed, &entry); err != nil {
		return fmt.Errorf("the listing's frontmatter is not a JSON object: %v", err)
	}
	keys := make(map[string]bool)
	for k := range file {
		keys[k] = true
	}
	for k := range entry {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		if !reflect.DeepEqual(file[k], entry[k]) {
			diffs = append(diffs, k)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	var b strings.Builder
	b.WriteString("the frontmatter differs from the listing: ")
	for i, k := range diffs {
		if i == maxFrontmatterDiffs {
			fmt.Fprintf(&b, "; and %d more", len(diffs)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s is %s in the file but %s in the listing", excerpt(k, maxErrorExcerpt), jsonText(file[k]), jsonText(entry[k]))
	}
	return errors.New(b.String())
}

// maxFrontmatterDiffs is how many differing fields an error names.
const maxFrontmatterDiffs = 3

// maxErrorExcerpt is how many characters of a value an error quotes.
const maxErrorExcerpt = 60

// refuseAliases returns an error naming the first node of the tree under n
// that has an anchor or is an alias, by its line plus lineOffset. A
// frontmatter has no use for them, and refusing them is what bounds the
// work of reading one: an alias repeats its anchor's whole value, and
// aliases of aliases multiply.
func refuseAliases(n *yaml.Node, lineOffset int) error {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		name := n.Anchor
		if n.Kind == yaml.AliasNode {
			name = n.Value
		}
		return fmt.Errorf("line %d: anchors and aliases are not allowed (&%s)", n.Line+lineOffset, excerpt(name, maxErrorExcerpt))
	}
	for _, c := range n.Content {
		if err := refuseAliases(c, lineOffset); err != nil {
			return err
		}
	}
	return nil
}

// jsonText renders v for an error message as a short, escaped excerpt of
// its JSON.
func jsonText(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return excerpt(fmt.Sprint(v), maxErrorExcerpt)
	}
	return excerpt(string(b), maxErrorExcerpt)
}

// excerpt returns at most max characters of s, followed by "..." when it is
// cut, with every character that is not printable (control characters,
// terminal escapes, bidirectional overrides) written as a \u escape.
func excerpt(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("...")
			break
		}
		n++
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// maxFrontmatterBytes bounds the size of a SKILL.md frontmatter.
const maxFrontmatterBytes = 64 << 10

// maxFrontmatterDepth bounds the nesting of a frontmatter value.
const maxFrontmatterDepth = 64

// yamlValue converts a YAML node to the value encoding/json would decode
// from the same data rendered as JSON: objects, arrays, strings, float64
// numbers, booleans and nil. Timestamps stay the strings they are written
// as, and mapping keys are their text; a key given twice in one mapping is
// an error.
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxFrontmatterDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxFrontmatterDepth)
	}
	switch n.Kind {
	case 0: // empty input
		return nil, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				return nil, errors.New("merge keys (<<) are not supported")
			}
			if _, dup := m[k.Value]; dup {
				// A YAML mapping holds each key once; comparing only the
				// last value would pass a file whose reader may take the
				// first. The frontmatter begins on the file's second line.
				return nil, fmt.Errorf("line %d: the key %q is given twice", k.Line+1, k.Value)
			}
			val, err := yamlValue(v, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, val)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return n.Value, nil
			}
			return f, nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("unsupported YAML node kind %d", n.Kind)
}

// declaresExtension reports whether the capabilities object caps declares
// the extension id under extensions.
func declaresExtension(caps json.RawMessage, id string) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	v, ok := c.Extensions[id]
	return ok && string(jsonrpc.TrimSpace(v)) != "null"
}
