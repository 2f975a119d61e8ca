package cli

import (
	"github.com/mcpgen/mcpgen/internal/jsontree"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

var toolsCommand = &command{
	name:    "tools",
	summary: "list the tools of a live server",
	run:     runTools,
}

const toolsHelp = `[--json] ` + serverUsage + `

Lists the server's tools as a table: name, arguments (optional ones end
in "?") and the first line of the description. --json prints the tool
objects as the server sent them, as one JSON array.

` + serverHelp

func runTools(e *env, args []string) error {
	fs := newFlagSet(e, "tools", toolsHelp)
	var sf serverFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the raw tool list as a JSON array")
	pos, err := sf.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("tools: unexpected argument %q (a server command goes after --)", pos[0])
	}
	ctx, cancel := sf.context()
	defer cancel()
	s, err := sf.connect(ctx, e, sf.command)
	if err != nil {
		return sf.explain(ctx, err)
	}
	defer closeSession(ctx, s)
	tools, err := s.ListTools(ctx)
	if err != nil {
		return sf.explain(ctx, fmt.Errorf("listing the tools of %s: %w", sf.source(), err))
	}
	if *asJSON {
		return writeToolsJSON(e.data, tools)
	}
	info := s.ServerInfo()
	fmt.Fprintf(e.stdout, "%s %s, protocol %s, %d tool(s)\n\n", orUnknown(info.Name), info.Version, s.ProtocolVersion(), len(tools))
	return writeToolsTable(e.stdout, tools, e.width)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unnamed server)"
	}
	return s
}

// writeToolsJSON writes tools as a JSON array of the objects the server
// sent, indented by two spaces, key order kept.
func writeToolsJSON(w io.Writer, tools []runtime.Tool) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, t := range tools {
		if i > 0 {
			b.WriteString(",")
		}
		raw := t.Raw
		if len(raw) == 0 {
			var err error
			if raw, err = json.Marshal(t); err != nil {
				return fmt.Errorf("encoding tool %s: %w", t.Name, err)
			}
		}
		b.Write(raw)
	}
	b.WriteString("]")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("encoding the tool list: %w", err)
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// maxDescription is the width of the description column.
const maxDescription = 72

// writeToolsTable writes one row per tool, sorted by name. When width is
// positive, the ARGUMENTS and DESCRIPTION cells are cut, with an ellipsis,
// so that each line fits in width columns (the names stay whole).
func writeToolsTable(w io.Writer, tools []runtime.Tool, width int) error {
	sorted := append([]runtime.Tool(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	rows := make([][3]string, 0, len(sorted)+1)
	rows = append(rows, [3]string{"NAME", "ARGUMENTS", "DESCRIPTION"})
	for _, t := range sorted {
		rows = append(rows, [3]string{visibleCell(t.Name), visibleCell(argumentSummary(t.InputSchema)), visibleCell(summarize(firstNonEmpty(t.Description, t.Title), maxDescription))})
	}
	if width > 0 {
		fitColumns(rows, width)
	}
	tw := tabwriter.NewWriter(w, 0, 4, tablePadding, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r[0], r[1], r[2])
	}
	return tw.Flush()
}

// tablePadding is the number of spaces between the columns of a table.
const tablePadding = 2

// minCutColumn is the narrowest a cut column gets, however narrow the
// terminal: below it, a line is let run over rather than lose its column.
const minCutColumn = 8

// fitColumns cuts the second and third cells of rows so that no row is wider
// than width columns, the first column and the padding included. Each of
// the two columns keeps its whole width when it fits in half of what the
// first leaves; the other then gets the rest.
func fitColumns(rows [][3]string, width int) {
	var w [3]int
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	budget := width - w[0] - 2*tablePadding
	if w[1]+w[2] <= budget {
		return
	}
	half := budget / 2
	limit := [3]int{0, budget - half, half}
	switch {
	case w[1] <= half:
		limit[1], limit[2] = w[1], budget-w[1]
	case w[2] <= half:
		limit[1], limit[2] = budget-w[2], w[2]
	}
	for i := range rows {
		for c := 1; c <= 2; c++ {
			rows[i][c] = cutCell(rows[i][c], max(limit[c], minCutColumn))
		}
	}
}

// cutCell returns s when it has at most n characters, and else its first
// n-1 characters, without a trailing separator, and an ellipsis.
func cutCell(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), ", ") + "…"
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// summarize returns the first line of s, cut to at most n runes.
func summarize(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.ReplaceAll(s, "\t", " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// argumentSummary lists the top-level properties of an input schema in the
// server's order, optional ones followed by "?", or "-" when there are none.
func argumentSummary(schema json.RawMessage) string {
	root, err := jsontree.ParseUnique(schema)
	if err != nil {
		return "-"
	}
	names := root.Get("properties").Keys()
	if len(names) == 0 {
		return "-"
	}
	required := map[string]bool{}
	if req := root.Get("required"); req != nil { // a malformed "required" marks every argument optional
		for _, r := range req.Items {
			if name, ok := r.StringValue(); ok {
				required[name] = true
			}
		}
	}
	for i, n := range names {
		if !required[n] {
			names[i] = n + "?"
		}
	}
	return strings.Join(names, ", ")
}
