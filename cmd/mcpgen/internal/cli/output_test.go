package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// evil is text a hostile server sends to take over a terminal: it sets the
// window title (OSC 0), writes the clipboard (OSC 52), clears the screen,
// overwrites the line with CR and backspaces, colors with a C1 CSI,
// reverses what follows with a bidi override, breaks the line with U+2028,
// and ends with DEL.
const evil = "ok\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\roverwritten\b\b\u009b31m\u202egnp.exe\u2028next\x7f"

// evilShown is evil as mcpgen shows it.
const evilShown = `ok\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\roverwritten\b\b\u009b31m\u202egnp.exe\u2028next\x7f`

// terminalHazard describes the first character of s that could act on a
// terminal, or returns "" when there is none.
func terminalHazard(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf("the byte %#x at %d", s[i], i)
			}
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f, dangerousRune(r):
			return fmt.Sprintf("%U at %d", r, i)
		}
	}
	return ""
}

// checkShown fails t when a text of texts holds a character that could act
// on a terminal, or does not show evil as escapes.
func checkShown(t *testing.T, texts map[string]string) {
	t.Helper()
	for what, text := range texts {
		if h := terminalHazard(text); h != "" {
			t.Errorf("%s holds %s:\n%q", what, h, text)
		}
		if !strings.Contains(text, `\x1b]0;pwned\a`) {
			t.Errorf("%s does not show the escape sequences, so the check proves nothing:\n%q", what, text)
		}
	}
}

// runTerminal runs mcpgen as Main does when standard output is a terminal.
func runTerminal(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = mainTerminal(args, strings.NewReader(""), &out, &errOut, true)
	return code, out.String(), errOut.String()
}

// evilServer is a server named evil whose tool "show" has evil in its name
// and description, and returns evil as text, resource text and in the
// summaries of an image, a resource link and a resource; the tool "refuse"
// answers with an error response whose message is evil. A last tool's name
// would add a row to a table.
func evilServer(t *testing.T) string {
	e := jsonString(evil)
	srv := fakeServer(t, evil, func(r *http.Request, method, tool string) (string, string) {
		switch {
		case method == "tools/list":
			return `{"tools":[{"name":"show","description":` + e + `,"inputSchema":{"type":"object","properties":{` + e + `:{"type":"string"}}}},{"name":` + e + `,"inputSchema":{"type":"object"}},{"name":"refuse","inputSchema":{"type":"object"}},{"name":"row\nfake\tinjected","inputSchema":{"type":"object"}}]}`, ""
		case tool == "show":
			return `{"content":[{"type":"text","text":` + e + `},{"type":"image","mimeType":` + e + `,"data":"AAEC"},{"type":"resource_link","uri":` + e + `,"name":` + e + `},{"type":"resource","resource":{"uri":` + e + `,"mimeType":"text/plain","text":` + e + `}}]}`, ""
		}
		return "", `{"code":-32000,"message":` + e + `}`
	})
	return srv.URL
}

// TestEscapeInjectionCall calls a tool whose results carry terminal escape
// sequences. On a terminal, nothing of them reaches it raw. Piped, the text
// content is written exactly as sent, while the summaries mcpgen writes
// around it still show the sequences as escapes. --json keeps the exact
// text, JSON-escaped.
func TestEscapeInjectionCall(t *testing.T) {
	url := evilServer(t)
	code, out, errOut := runTerminal(t, "call", "--url", url, "show")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	checkShown(t, map[string]string{"call on a terminal": out})
	if strings.Count(out, evilShown) != 6 {
		t.Errorf("call on a terminal shows the text %d times as escapes, want 6 (text, image, link URI and name, resource URI and text):\n%s", strings.Count(out, evilShown), out)
	}

	code, out, errOut = run(t, "", "call", "--url", url, "show")
	if code != 0 {
		t.Fatalf("piped: exit %d, stderr %q", code, errOut)
	}
	if strings.Count(out, evil) != 2 {
		t.Errorf("piped, the text content and resource text are not exact:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "[") {
			checkShown(t, map[string]string{"piped summary " + line[:10]: line})
		}
	}

	code, out, errOut = run(t, "", "call", "--json", "--url", url, "show")
	if code != 0 {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Content) == 0 || res.Content[0].Text != evil {
		t.Errorf("--json does not keep the text: %v\n%s", err, out)
	}
	if strings.ContainsAny(out, "\x1b\r\b\x07") {
		t.Errorf("--json holds raw control characters:\n%q", out)
	}
}

// TestEscapeInjectionTools lists a server whose name, tool names,
// descriptions and argument names carry terminal escape sequences: the
// header line and the table show them as escapes, piped or not, and a name
// with a newline and a tab stays in its cell.
func TestEscapeInjectionTools(t *testing.T) {
	url := evilServer(t)
	code, piped, errOut := run(t, "", "tools", "--url", url)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, onTerminal, _ := runTerminal(t, "tools", "--url", url)
	checkShown(t, map[string]string{"tools": piped, "tools on a terminal": onTerminal})
	if lines := strings.Split(piped, "\n"); !strings.HasPrefix(lines[0], evilShown) {
		t.Errorf("the header line does not name the server with escapes:\n%s", lines[0])
	}
	if strings.Contains(piped, "\nfake") || !strings.Contains(piped, `row\nfake\tinjected`) {
		t.Errorf("a tool name makes a row of its own:\n%s", piped)
	}
	code, asJSON, _ := run(t, "", "tools", "--json", "--url", url)
	if code != 0 || strings.ContainsAny(asJSON, "\x1b\r\b\x07") {
		t.Errorf("tools --json: exit %d, holds raw control characters:\n%q", code, asJSON)
	}
}

// TestEscapeInjectionErrors makes the server's words reach standard error:
// an error response whose message carries escape sequences, and a stdio
// server that writes them to its standard error before it exits, which the
// connection error quotes. Both show as escapes.
func TestEscapeInjectionErrors(t *testing.T) {
	url := evilServer(t)
	code, _, rpcErr := run(t, "", "call", "--no-validate", "--url", url, "refuse")
	if code != 1 {
		t.Errorf("refuse: exit %d, want 1", code)
	}
	script := fmt.Sprintf("printf '%%s' %s >&2; exit 3", shellQuote(evil))
	code, _, exitErr := run(t, "", "tools", "--", "sh", "-c", script)
	if code != 1 || !strings.Contains(exitErr, "3") {
		t.Errorf("a server that exits: exit %d, stderr %q", code, exitErr)
	}
	checkShown(t, map[string]string{"the error response": rpcErr, "the exit error": exitErr})
}

// TestEscapeInjectionDiff compares two snapshots of a tool whose name and
// argument carry escape sequences: the headings and messages of the text and
// markdown reports show them as escapes.
func TestEscapeInjectionDiff(t *testing.T) {
	dir := t.TempDir()
	e := jsonString(evil)
	old := writeSnapshot(t, dir, "old.json", "s", `{"name":`+e+`,"inputSchema":{"type":"object","properties":{`+e+`:{"type":"string"}}}}`)
	cur := writeSnapshot(t, dir, "new.json", "s", `{"name":`+e+`,"inputSchema":{"type":"object","properties":{`+e+`:{"type":"integer"}}}}`)
	texts := map[string]string{}
	for _, format := range []string{"text", "markdown", "json"} {
		code, out, errOut := run(t, "", "diff", "--format", format, old, cur)
		if code != 1 {
			t.Errorf("%s: exit %d, stderr %q", format, code, errOut)
		}
		texts[format] = out
	}
	// JSON escapes the C0 controls its own way, and markdown turns them
	// into spaces.
	for _, format := range []string{"json", "markdown"} {
		if h := terminalHazard(texts[format]); h != "" {
			t.Errorf("the %s report holds %s", format, h)
		}
		delete(texts, format)
	}
	checkShown(t, texts)
}

// TestEscapeInjectionGenerate generates from a snapshot whose schema fails
// under a property name carrying escape sequences: the error's JSON pointer
// shows them as escapes.
func TestEscapeInjectionGenerate(t *testing.T) {
	dir := t.TempDir()
	snap := writeSnapshot(t, dir, "s.json", "s", `{"name":"a","inputSchema":{"type":"object","properties":{`+jsonString(evil)+`:{"$ref":"#/nope"}}}}`)
	code, _, errOut := run(t, "", "generate", "--snapshot", snap, "--out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(errOut, "/inputSchema/properties/") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	checkShown(t, map[string]string{"the generate error": errOut})
}

// TestEscapeInjectionWriter writes through an output stream in pieces that
// cut escape sequences and characters apart, through both its sides.
func TestEscapeInjectionWriter(t *testing.T) {
	var out bytes.Buffer
	s := &outStream{w: &out, secrets: &secrets{}}
	for i := 0; i < len(evil); i++ {
		s.visible().Write([]byte{evil[i]})
	}
	s.visible().Write([]byte("\xff\n"))
	s.exact().Write([]byte(evil + "\n"))
	s.visible().Write([]byte("é"[:1]))
	s.visible().Write([]byte("é"[1:] + "\u202e"[:2]))
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	want := evilShown + `\xff` + "\n" + evil + "\n" + `é\xe2\x80`
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
	if got := visibleCell("a\tcell\nwith \\ \x1b"); got != `a\tcell\nwith \ \x1b` {
		t.Errorf("visibleCell = %q", got)
	}
}
