package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Report is the outcome of comparing two tool lists, ready to print.
type Report struct {
	// Command names what made the report in its heading; "mcpgen diff"
	// when empty.
	Command string
	// Old and New name the two sides, such as file names or REV:path.
	Old, New string
	// Warnings are remarks about the comparison itself, such as two
	// snapshots that name different servers.
	Warnings []string
	Changes  []Change
	// Error says why the comparison could not be made, such as a server
	// that could not be reached; such a report has no changes.
	Error string
}

// Count returns how many changes have severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for i := range r.Changes {
		if r.Changes[i].Severity == s {
			n++
		}
	}
	return n
}

// GoAPICount returns how many changes carry the GO_API marker.
func (r *Report) GoAPICount() int {
	n := 0
	for i := range r.Changes {
		if r.Changes[i].GoAPI {
			n++
		}
	}
	return n
}

// Fails reports whether any change is at least as severe as threshold.
func (r *Report) Fails(threshold Severity) bool {
	for i := range r.Changes {
		if r.Changes[i].Severity >= threshold {
			return true
		}
	}
	return false
}

// Format is a report format.
type Format string

// Report formats.
const (
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
)

// ParseFormat reads a format name: text, json or markdown (md).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "text", "":
		return FormatText, nil
	case "json":
		return FormatJSON, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("format %q is not one of text, json, markdown", s)
}

// Write writes the report in format f.
func (r *Report) Write(w io.Writer, f Format) error {
	var s string
	switch f {
	case FormatText, "":
		s = r.text()
	case FormatJSON:
		b, err := r.json()
		if err != nil {
			return err
		}
		s = string(b)
	case FormatMarkdown:
		s = r.markdown()
	default:
		return fmt.Errorf("format %q is not one of text, json, markdown", string(f))
	}
	_, err := io.WriteString(w, s)
	return err
}

func (r *Report) command() string {
	if r.Command == "" {
		return "mcpgen diff"
	}
	return r.Command
}

// WriteAll writes several reports in format f: the text and Markdown
// reports one after the other, separated by a blank line, and the JSON
// reports as one JSON array.
func WriteAll(w io.Writer, reports []*Report, f Format) error {
	if f != FormatJSON {
		for i, r := range reports {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			if err := r.Write(w, f); err != nil {
				return err
			}
		}
		return nil
	}
	all := make([]jsonReport, len(reports))
	for i, r := range reports {
		all[i] = r.jsonValue()
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the reports: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// counts renders the severity counts, such as "2 ERR, 0 WARN, 1 INFO".
func (r *Report) counts() string {
	return fmt.Sprintf("%d ERR, %d WARN, %d INFO", r.Count(Err), r.Count(Warn), r.Count(Info))
}

func (r *Report) goAPIText() string {
	switch n := r.GoAPICount(); n {
	case 0:
		return "the Go API is unchanged"
	case 1:
		return "1 changes the Go API"
	default:
		return fmt.Sprintf("%d change the Go API", n)
	}
}

// MaxListed is how many changes a report lists; the counts in its summary
// cover them all, and a line (in JSON, "omitted") says how many more there
// are.
const MaxListed = 1000

// listed returns the changes the report lists, and how many it leaves out.
func (r *Report) listed() ([]Change, int) {
	if len(r.Changes) <= MaxListed {
		return r.Changes, 0
	}
	return r.Changes[:MaxListed], len(r.Changes) - MaxListed
}

// omittedText says how many changes the report leaves out.
func omittedText(n int) string {
	return fmt.Sprintf("… and %d more changes (a report lists the first %d)", n, MaxListed)
}

// usesText lists where a change's shared definition is used, such as
// "used at inputSchema/properties/a, inputSchema/properties/b and 3 more
// places"; code renders each place.
func usesText(c *Change, code func(string) string) string {
	if len(c.UsedAt) == 0 {
		return ""
	}
	sites := make([]string, len(c.UsedAt))
	for i, s := range c.UsedAt {
		sites[i] = code(cutPointer(s))
	}
	text := "used at " + strings.Join(sites, ", ")
	if c.MoreUses > 0 {
		text += fmt.Sprintf(" and %d more places", c.MoreUses)
	}
	return text
}

// groups splits the listed changes by tool, prompt or resource template,
// keeping their order.
func (r *Report) groups() [][]Change {
	var out [][]Change
	changes, _ := r.listed()
	for i, c := range changes {
		if i == 0 || c.subject() != changes[i-1].subject() {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], c)
	}
	return out
}

// maxValueRunes bounds how much of an old or new value the text and
// Markdown reports show; the JSON report has them whole.
const maxValueRunes = 120

// shorten makes a value one line of at most maxValueRunes runes.
func shorten(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= maxValueRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxValueRunes-1]) + "…"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (r *Report) text() string {
	var b strings.Builder
	if r.Old != "" || r.New != "" {
		fmt.Fprintf(&b, "%s %s → %s\n", r.command(), r.Old, r.New)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if len(r.Changes) == 0 {
		b.WriteString("No changes.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d changes: %s; %s.\n", len(r.Changes), r.counts(), r.goAPIText())
	for _, g := range r.groups() {
		fmt.Fprintf(&b, "\n%s\n", g[0].subject())
		for _, c := range g {
			marker := ""
			if c.GoAPI {
				marker = "GO_API"
			}
			fmt.Fprintf(&b, "  %-4s %-6s %s: %s\n", c.Severity, marker, c.Where(), oneLine(c.Summary))
			if c.Old != "" || c.New != "" {
				fmt.Fprintf(&b, "              %s → %s\n", orNone(shorten(c.Old)), orNone(shorten(c.New)))
			}
			fmt.Fprintf(&b, "              %s\n", oneLine(c.Why))
			if uses := usesText(&c, oneLine); uses != "" {
				fmt.Fprintf(&b, "              %s\n", uses)
			}
		}
	}
	if _, n := r.listed(); n > 0 {
		fmt.Fprintf(&b, "\n%s\n", omittedText(n))
	}
	return b.String()
}

// oneLine makes text from a server safe to print on one line: control
// characters (terminal escapes included) and bidirectional overrides become
// spaces, and runs of white space one space.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// jsonReport is the JSON form of a report.
type jsonReport struct {
	Old      string      `json:"old,omitempty"`
	New      string      `json:"new,omitempty"`
	Summary  jsonSummary `json:"summary"`
	Warnings []string    `json:"warnings"`
	Changes  []Change    `json:"changes"`
	Error    string      `json:"error,omitempty"`
	// Omitted counts the changes past MaxListed, which are left out.
	Omitted int `json:"omitted,omitempty"`
}

type jsonSummary struct {
	Err   int `json:"ERR"`
	Warn  int `json:"WARN"`
	Info  int `json:"INFO"`
	GoAPI int `json:"GO_API"`
}

func (r *Report) json() ([]byte, error) {
	b, err := json.MarshalIndent(r.jsonValue(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the report: %w", err)
	}
	return append(b, '\n'), nil
}

func (r *Report) jsonValue() jsonReport {
	j := jsonReport{
		Old: r.Old, New: r.New,
		Summary:  jsonSummary{r.Count(Err), r.Count(Warn), r.Count(Info), r.GoAPICount()},
		Warnings: r.Warnings,
		Error:    r.Error,
	}
	j.Changes, j.Omitted = r.listed()
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	if j.Changes == nil {
		j.Changes = []Change{}
	}
	return j
}

func (r *Report) markdown() string {
	var b strings.Builder
	b.WriteString("### " + r.command())
	if r.Old != "" || r.New != "" {
		fmt.Fprintf(&b, ": %s → %s", codeSpan(r.Old), codeSpan(r.New))
	}
	b.WriteString("\n\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "> **Warning:** %s\n\n", mdText(w))
	}
	if len(r.Changes) == 0 {
		b.WriteString("No changes.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "**%d ERR** · **%d WARN** · **%d INFO** · %s\n",
		r.Count(Err), r.Count(Warn), r.Count(Info), r.goAPIText())
	for _, g := range r.groups() {
		fmt.Fprintf(&b, "\n#### %s\n\n", codeSpan(g[0].subject()))
		b.WriteString("| Severity | Where | Change | Old → New | Why it matters |\n")
		b.WriteString("| --- | --- | --- | --- | --- |\n")
		for _, c := range g {
			sev := "**" + c.Severity.String() + "**"
			if c.GoAPI {
				sev += " GO_API"
			}
			values := ""
			if c.Old != "" || c.New != "" {
				values = mdValue(c.Old) + " → " + mdValue(c.New)
			}
			where := codeSpan(c.Where())
			if uses := usesText(&c, codeSpan); uses != "" {
				where += "<br>" + uses
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n",
				sev, cell(where), cell(mdMixed(c.Summary)), cell(values), cell(mdMixed(c.Why)))
		}
	}
	if _, n := r.listed(); n > 0 {
		fmt.Fprintf(&b, "\n%s\n", mdText(omittedText(n)))
	}
	return b.String()
}

func mdValue(s string) string {
	if s == "" {
		return "*none*"
	}
	return codeSpan(shorten(s))
}

// codeSpan renders s as a Markdown code span, with a fence longer than any
// run of backticks in s.
func codeSpan(s string) string {
	s = oneLine(s)
	if s == "" {
		return "` `"
	}
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdText escapes plain text for Markdown.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "#", `\#`, "`", "\\`",
)

func mdText(s string) string { return mdEscaper.Replace(oneLine(s)) }

// mdEscape escapes plain text for Markdown, keeping its spaces.
func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdMixed renders text in which `backticked` parts are code.
func mdMixed(s string) string {
	s = oneLine(s)
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return mdText(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(codeSpan(p))
		} else {
			b.WriteString(mdEscape(p))
		}
	}
	return b.String()
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
