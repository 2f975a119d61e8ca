package mcpimpl

import "strings"

// Lines splits a JSON Lines file the generator wrote, such as a package's
// tools.jsonl, into its JSON texts, one a line. The file's first line, a
// JSON string that marks it as generated code, is not one of them. A
// carriage return before a line feed is dropped, so that a checkout that
// turned line feeds into CRLF still reads as written, and a last line
// without a line feed is kept.
func Lines(text string) []string {
	if strings.HasPrefix(text, `"`) {
		_, text, _ = strings.Cut(text, "\n")
	}
	out := make([]string, 0, strings.Count(text, "\n")+1)
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if line = strings.TrimSuffix(line, "\r"); line != "" {
			out = append(out, line)
		}
	}
	return out
}
