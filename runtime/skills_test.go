package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	skillURI   = "skill://pdf-processing/SKILL.md"
	formsURI   = "skill://pdf-processing/references/FORMS.md"
	skillMD    = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n  released: 2026-01-02\n---\n\nSkill body.\n"
	formsMD    = "Supporting content.\n"
	skillsCaps = `{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{}}}`
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillsServer is a modern memConn server with one skill. serve, when it
// returns true, has replied to m itself; file gives the content read for a
// URI.
type skillsServer struct {
	frontmatter string
	file        func(uri string) string
	listed      func(uri string) string // the content the listing describes
}

func (sv *skillsServer) conn() *memConn {
	if sv.frontmatter == "" {
		sv.frontmatter = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","metadata":{"version":2,"released":"2026-01-02"}}`
	}
	content := func(uri string) string {
		if uri == formsURI {
			return formsMD
		}
		return skillMD
	}
	if sv.file == nil {
		sv.file = content
	}
	if sv.listed == nil {
		sv.listed = content
	}
	return newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+skillsCaps+`,"ttlMs":0,"cacheScope":"public"}`)
		case "skills/list":
			entry := map[string]any{
				"uri":         skillURI,
				"frontmatter": json.RawMessage(sv.frontmatter),
				"resources": []map[string]any{
					{"uri": skillURI, "digest": digestOf(sv.listed(skillURI)), "size": len(sv.listed(skillURI))},
					{"uri": formsURI, "digest": digestOf(sv.listed(formsURI)), "size": len(sv.listed(formsURI))},
				},
			}
			b, _ := json.Marshal(map[string]any{"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "skills": []any{entry}})
			c.reply(m, string(b))
		case "resources/read":
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(m.Params, &p)
			b, _ := json.Marshal(map[string]any{"resultType": "complete", "contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/markdown", "text": sv.file(p.URI)}}})
			c.reply(m, string(b))
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	})
}

// reads returns the URIs the Session read, in order.
func (c *memConn) reads() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.seen {
		if m.Method == "resources/read" {
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(m.Params, &p)
			out = append(out, p.URI)
		}
	}
	return out
}

func connectSkills(t *testing.T, sv *skillsServer) (*Session, *memConn, Skill) {
	t.Helper()
	conn := sv.conn()
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	skills, err := s.ListSkills(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 1 {
		t.Fatalf("ListSkills = %d skills, want 1", len(skills))
	}
	return s, conn, skills[0]
}

func TestSkillsNoPrefetch(t *testing.T) {
	s, conn, sk := connectSkills(t, &skillsServer{})
	if sk.Name != "pdf-processing" || sk.Description != "Extract, fill, and assemble PDF documents" || len(sk.Files) != 2 || sk.Dir() != "skill://pdf-processing" {
		t.Errorf("skill = %+v", sk)
	}
	if r := conn.reads(); len(r) != 0 {
		t.Fatalf("listing read %v; no file may be read before the skill is loaded", r)
	}
	loaded, err := s.LoadSkill(context.Background(), &sk)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Markdown != skillMD || loaded.Body != "\nSkill body.\n" {
		t.Errorf("loaded = %q, body %q", loaded.Markdown, loaded.Body)
	}
	if r := conn.reads(); !slices.Equal(r, []string{skillURI}) {
		t.Fatalf("loading read %v, want only %s", r, skillURI)
	}
	data, err := s.ReadSkillFile(context.Background(), &sk, formsURI)
	if err != nil || string(data) != formsMD {
		t.Fatalf("ReadSkillFile = %q, %v", data, err)
	}
}

// checkVerification checks that err is a *SkillVerificationError naming the
// skill, the file and want.
func checkVerification(t *testing.T, err error, uri, want string) {
	t.Helper()
	var ve *SkillVerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *SkillVerificationError", err)
	}
	msg := err.Error()
	for _, s := range []string{`skill "pdf-processing"`, uri, want} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not say %q", msg, s)
		}
	}
}

func TestSkillDigestMismatch(t *testing.T) {
	s, conn, sk := connectSkills(t, &skillsServer{file: func(uri string) string {
		if uri == formsURI {
			return "Supporting content!\n" // same size, other bytes
		}
		return strings.Replace(skillMD, "Skill body.", "Evil body!!", 1)
	}})
	_, err := s.LoadSkill(context.Background(), &sk)
	checkVerification(t, err, skillURI, "digest sha256:")
	_, err = s.ReadSkillFile(context.Background(), &sk, formsURI)
	checkVerification(t, err, formsURI, "the listing says "+digestOf(formsMD))
	if r := conn.reads(); len(r) != 2 {
		t.Errorf("reads = %v", r)
	}
}

func TestSkillSizeMismatch(t *testing.T) {
	s, _, sk := connectSkills(t, &skillsServer{file: func(uri string) string {
		return skillMD + "extra bytes the entry did not account for\n"
	}})
	_, err := s.LoadSkill(context.Background(), &sk)
	checkVerification(t, err, skillURI, fmt.Sprintf("the listing says %d", len(skillMD)))
}

func TestSkillBadFrontmatter(t *testing.T) {
	tampered := strings.Replace(skillMD, "description: Extract, fill, and assemble PDF documents", "description: Exfiltrate credentials", 1)
	for _, tc := range []struct {
		name, file, want string
	}{
		{"differs", tampered, `description is "Exfiltrate credentials" in the file but "Extract, fill, and assemble PDF documents" in the listing`},
		{"extra field", strings.Replace(skillMD, "metadata:", "license: MIT\nmetadata:", 1), `license is "MIT" in the file but absent in the listing`},
		{"nested", strings.Replace(skillMD, "version: 2", "version: 3", 1), `metadata is {"released":"2026-01-02","version":3} in the file`},
		{"missing", "Skill body without frontmatter.\n", "does not begin with a YAML frontmatter block"},
		{"unterminated", "---\nname: pdf-processing\n", "does not begin with a YAML frontmatter block"},
		{"not yaml", "---\nname: [pdf\n---\n", "not valid YAML"},
		{"no description", "---\nname: pdf-processing\n---\n", "the frontmatter has no description"},
		{"deep", "---\nname: pdf-processing\nx: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n---\n", "nested deeper than 64 levels"},
		{"merge key", "---\n<<: {name: pdf-processing}\n---\n", "merge keys (<<) are not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The listing's digest and size match the tampered file, so
			// only the frontmatter check can catch it.
			same := func(string) string { return tc.file }
			s, _, sk := connectSkills(t, &skillsServer{file: same, listed: same})
			_, err := s.LoadSkill(context.Background(), &sk)
			checkVerification(t, err, skillURI, tc.want)
		})
	}
}

func TestSkillFrontmatterEquivalent(t *testing.T) {
	// YAML spelled differently from the listing's JSON is still the same
	// frontmatter: quoting, flow style, a byte order mark, CRLF lines,
	// a date kept as written, an integer written as a float in JSON.
	file := "\ufeff---\r\nname: \"pdf-processing\"\r\ndescription: 'Extract, fill, and assemble PDF documents'\r\nmetadata: {version: 2.0, released: 2026-01-02}\r\n---  \r\nBody.\r\n"
	same := func(string) string { return file }
	s, _, sk := connectSkills(t, &skillsServer{file: same, listed: same})
	loaded, err := s.LoadSkill(context.Background(), &sk)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Body != "Body.\r\n" {
		t.Errorf("Body = %q", loaded.Body)
	}
}

func TestSkillFileOutsideListing(t *testing.T) {
	s, conn, sk := connectSkills(t, &skillsServer{})
	for uri, want := range map[string]string{
		"skill://pdf-processing/secret.txt": "is not among the files the listing names",
		"skill://other/SKILL.md":            `is not a file of the skill (outside "skill://pdf-processing/")`,
		"file:///etc/passwd":                "is not a file of the skill",
	} {
		_, err := s.ReadSkillFile(context.Background(), &sk, uri)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `skill "pdf-processing"`) {
			t.Errorf("ReadSkillFile(%s) = %v, want an error saying %q", uri, err, want)
		}
	}
	if r := conn.reads(); len(r) != 0 {
		t.Errorf("read %v", r)
	}
}

func TestSkillsListingErrors(t *testing.T) {
	for _, tc := range []struct {
		name, caps, list, want string
	}{
		{"undeclared", `{"resources":{}}`, ``, "does not declare the io.modelcontextprotocol/skills extension"},
		{"bad digest", skillsCaps, `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"md5:00","size":1}]}]}`, `skill "a": resources[0] ("skill://a/SKILL.md"): digest "md5:00"`},
		{"no SKILL.md entry", skillsCaps, `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[]}]}`, `skill "a": resources does not list its SKILL.md`},
		{"no frontmatter", skillsCaps, `{"skills":[{"uri":"skill://a/SKILL.md","resources":"dynamic"}]}`, `skill "skill://a/SKILL.md": the frontmatter is missing`},
		{"bad uri", skillsCaps, `{"skills":[{"uri":"skill://a/README.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}]}`, "does not end in /SKILL.md"},
		{"loop", skillsCaps, `{"skills":[],"nextCursor":"c"}`, `cursor "c" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
				switch m.Method {
				case "server/discover":
					c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+tc.caps+`}`)
				case "skills/list":
					c.reply(m, tc.list)
				}
				return nil
			})
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.ListSkills(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ListSkills = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestSkillDynamic(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+skillsCaps+`}`)
		case "skills/list":
			c.reply(m, `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}]}`)
		case "resources/read":
			c.reply(m, `{"contents":[{"uri":"skill://a/SKILL.md","text":"---\nname: a\ndescription: d\n---\nHi\n"}]}`)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	skills, err := s.ListSkills(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !skills[0].Dynamic || skills[0].Files != nil {
		t.Fatalf("skill = %+v, want a dynamic one", skills[0])
	}
	loaded, err := s.LoadSkill(context.Background(), &skills[0])
	if err != nil || loaded.Body != "Hi\n" {
		t.Fatalf("LoadSkill = %+v, %v", loaded, err)
	}
}

// aliasBomb returns a frontmatter whose aliases, expanded, hold 9^levels
// strings.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("---\nname: pdf-processing\ndescription: d\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\nBody.\n")
	return b.String()
}

// manyKeys returns n YAML lines with keys the listing does not have.
func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "extra%03d: v\n", i)
	}
	return b.String()
}

func TestSkillFrontmatterLimits(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
	}{
		// Five levels expand to 59049 strings: enough to show that the
		// aliases are refused rather than expanded, without the minutes
		// and gigabytes of the nine levels a hostile server would send.
		{"alias bomb", aliasBomb(5), "the frontmatter: line 4: anchors and aliases are not allowed (&l0)"},
		{"anchor", "---\nname: &n pdf-processing\ndescription: d\n---\n", "the frontmatter: line 2: anchors and aliases are not allowed (&n)"},
		{"many differences", "---\nname: pdf-processing\ndescription: d\n" + manyKeys(500) + "---\n", "and 499 more"},
		{"size", "---\nname: pdf-processing\ndescription: d\npad: " + strings.Repeat("x", maxFrontmatterBytes) + "\n---\n", fmt.Sprintf("the frontmatter is larger than %d bytes", maxFrontmatterBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same := func(string) string { return tc.file }
			s, _, sk := connectSkills(t, &skillsServer{file: same, listed: same})
			_, err := s.LoadSkill(context.Background(), &sk)
			checkVerification(t, err, skillURI, tc.want)
			if n := len(err.Error()); n > 400 {
				t.Errorf("the error is %d bytes long, want a short one", n)
			}
		})
	}
}

func TestSkillFrontmatterErrorExcerpt(t *testing.T) {
	// A value that differs from the listing is quoted in the error only as
	// a short excerpt, with control and format characters escaped.
	long := "Exfiltrate \x1b]52;c;ZXZpbA==\x07 \u202e" + strings.Repeat("y", 5000)
	file := "---\nname: pdf-processing\ndescription: " + strconv.Quote(long) + "\n---\n"
	same := func(string) string { return file }
	s, _, sk := connectSkills(t, &skillsServer{file: same, listed: same})
	_, err := s.LoadSkill(context.Background(), &sk)
	checkVerification(t, err, skillURI, `description is "Exfiltrate \u001b]52;c;ZXZpbA==\u0007 \u202e`)
	msg := err.Error()
	if len(msg) > 400 || strings.ContainsAny(msg, "\x1b\x07\u202e") {
		t.Errorf("error = %q: want a short excerpt with escapes", msg)
	}
}

func TestSkillFileConfinement(t *testing.T) {
	escapes := []string{
		"skill://a/../b/secret.md",
		"skill://a/./../b/secret.md",
		"skill://a/refs/../../b/secret.md",
		"skill://a/%2e%2e/b/secret.md",
		"skill://a/%2E%2e/b/secret.md",
		"skill://a/..%2fb/secret.md",
		`skill://a/..\b\secret.md`,
		"skill://a//etc/passwd",
		"skill://a/./SKILL.md",
		"skill://a/refs/",
		"skill://a/refs/%2e%2e%2f%2e%2e%2fb/secret.md",
	}
	for _, dynamic := range []bool{false, true} {
		t.Run(fmt.Sprintf("dynamic=%v", dynamic), func(t *testing.T) {
			// A listed skill whose listing names the escaping URIs as its
			// own files, so that only the path check stands in the way.
			files := []map[string]any{{"uri": "skill://a/SKILL.md", "digest": digestOf("x"), "size": 1}}
			for _, u := range escapes {
				files = append(files, map[string]any{"uri": u, "digest": digestOf("secret"), "size": 6})
			}
			var resources any = files
			if dynamic {
				resources = "dynamic"
			}
			list, _ := json.Marshal(map[string]any{"skills": []any{map[string]any{
				"uri": "skill://a/SKILL.md", "frontmatter": map[string]any{"name": "a", "description": "d"}, "resources": resources,
			}}})
			conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
				switch m.Method {
				case "server/discover":
					c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+skillsCaps+`}`)
				case "skills/list":
					c.reply(m, string(list))
				case "resources/read":
					c.reply(m, `{"contents":[{"text":"secret"}]}`)
				}
				return nil
			})
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			skills, err := s.ListSkills(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range escapes {
				data, err := s.ReadSkillFile(context.Background(), &skills[0], u)
				if err == nil || !strings.Contains(err.Error(), `skill "a": `) || !strings.Contains(err.Error(), "is not a file of the skill") {
					t.Errorf("ReadSkillFile(%s) = %q, %v; want it refused", u, data, err)
				}
			}
			if r := conn.reads(); len(r) != 0 {
				t.Errorf("read %v", r)
			}
		})
	}
}
