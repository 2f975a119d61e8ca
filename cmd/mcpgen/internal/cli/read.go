package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcpgen/mcpgen/runtime"
)

var readCommand = &command{
	name:    "read",
	summary: "read one resource of a live server and print its contents",
	run:     runRead,
}

const readHelp = `[--json] [--out FILE] [--no-input] URI ` + serverUsage + `

Reads the resource URI (resources/read), such as one a tool returned as a
resource_link, and prints its contents: text as it is, binary (blob)
contents as a one-line summary of URI, MIME type and size. --out FILE
writes the contents to FILE instead, text or binary, byte for byte but
for the credentials sent to the server, replaced as everywhere (the server
must return exactly one item). --json prints the result as the server
sent it, indented, binary contents in base64.

A 2026-07-28 server may ask for input before it gives the resource
(elicitation): the question is asked on the terminal, as mcpgen call asks
it. Without a terminal, or with --no-input, it is declined.

Exit status: 0 for the contents, 1 when the read fails (the server has no
such resource, say), 2 for usage errors.

` + serverHelp

func runRead(e *env, args []string) error {
	fs := newFlagSet(e, "read", readHelp)
	var sf serverFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	out := fs.String("out", "", "write the contents to `FILE` instead of standard output")
	noInput := fs.Bool("no-input", false, "decline the server's requests for input instead of asking on the terminal")
	pos, err := sf.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("read: missing URI")
	}
	if len(pos) > 1 {
		return usagef("read: unexpected argument %q (a server command goes after --)", pos[1])
	}
	if *asJSON && *out != "" {
		return usagef("read: --json and --out exclude each other")
	}
	uri := pos[0]

	sf.elicit = (&elicitor{noInput: *noInput, stderr: e.stderr, secrets: e.secrets}).handle
	ctx, cancel := sf.context()
	defer cancel()
	s, err := sf.connect(ctx, e, sf.command)
	if err != nil {
		return sf.explain(ctx, err)
	}
	defer closeSession(ctx, s)
	res, err := s.ReadResource(ctx, uri)
	if err != nil {
		return sf.explain(ctx, err)
	}
	switch {
	case *asJSON:
		var b bytes.Buffer
		if err := json.Indent(&b, res.Raw, "", "  "); err != nil {
			return fmt.Errorf("read %s: indenting the result: %w", uri, err)
		}
		b.WriteByte('\n')
		_, err := e.data.Write(b.Bytes())
		return err
	case *out != "":
		return writeContents(e, uri, *out, res)
	}
	writeReadResult(e.stdout, e.data, res)
	return nil
}

// writeReadResult writes the contents for people: text items as they are,
// through data, and a summary of each binary item, through people. An item
// whose URI differs from the one before it (a resource holding several) is
// headed by its URI.
func writeReadResult(people, data io.Writer, res *runtime.ReadResourceResult) {
	for i, c := range res.Contents {
		if c.IsBlob() {
			fmt.Fprintf(people, "[blob %s %s, %d bytes]\n", orDash(c.URI), orDash(c.MIMEType), len(c.Blob))
			continue
		}
		if len(res.Contents) > 1 {
			fmt.Fprintf(people, "[text %s %s, item %d of %d]\n", orDash(c.URI), orDash(c.MIMEType), i+1, len(res.Contents))
		}
		text := c.Text
		if text != "" && text[len(text)-1] != '\n' {
			text += "\n"
		}
		io.WriteString(data, text)
	}
	if len(res.Contents) == 0 {
		io.WriteString(people, "[no contents]\n")
	}
}

// writeContents writes the one item of res to path, byte for byte, with the
// credentials of the server replaced as everywhere else.
func writeContents(e *env, uri, path string, res *runtime.ReadResourceResult) error {
	if n := len(res.Contents); n != 1 {
		return &exitError{code: exitFail, msg: fmt.Sprintf("read %s: the server returned %d content items; --out writes exactly one (--json shows them all)", uri, n)}
	}
	c := &res.Contents[0]
	data := e.secrets.redact(c.Bytes())
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("read %s: writing %s: %w", uri, path, err)
	}
	kind := "text"
	if c.IsBlob() {
		kind = "blob"
	}
	fmt.Fprintf(e.stderr, "wrote %s (%s %s, %d bytes)\n", path, kind, orDash(c.MIMEType), len(data))
	return nil
}
