package runtime

import (
	"crypto/sha256"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// maxPages bounds the pages a paginated list follows, beyond the cursor
// loop check.
const maxPages = 10000

// maxListBytes bounds the bytes of the pages of one paginated list
// together: Options.MaxTools bounds the items, and the transport's message
// limit each page, but 10,000 pages of one 16 MiB tool each are within
// both. The largest real server of the corpus lists its 344 tools in 3.6
// MB; a snapshot file holds at most as much (snapshot.MaxFileSize). A
// variable for tests.
var maxListBytes = 64 << 20

// pages walks the pages of a paginated list method (tools/list,
// skills/list): the cursor each request sends, the bounds on pages and
// their bytes, and the check that the server's cursors do not loop. It
// keeps a digest of each cursor, not the cursor: a server chooses their
// size.
type pages struct {
	method string
	// scrub removes the connection's credentials from a cursor an error
	// names; nil for none.
	scrub  func(string) string
	n      int
	bytes  int
	cursor *string
	seen   map[[sha256.Size]byte]struct{}
}

// read counts the bytes of a page's result, res, and fails once the pages
// read hold more than maxListBytes.
func (p *pages) read(res []byte) error {
	p.bytes += len(res)
	if p.bytes > maxListBytes {
		return fmt.Errorf("%s: the server's pages hold more than %d MiB in all", p.method, maxListBytes>>20)
	}
	return nil
}

// params returns the members of the next page's request: none for the
// first page, the cursor after it.
func (p *pages) params() (func(b []byte) []byte, error) {
	if p.n == maxPages {
		return nil, fmt.Errorf("%s: more than %d pages", p.method, maxPages)
	}
	p.n++
	if p.cursor == nil {
		return nil, nil
	}
	c := *p.cursor
	return func(b []byte) []byte {
		b = append(b, `"cursor":`...)
		return jsonrpc.AppendString(b, c)
	}, nil
}

// advance takes the next cursor of the page just read, and reports whether
// there is another page.
func (p *pages) advance(next *string) (bool, error) {
	if next == nil {
		return false, nil
	}
	if p.seen == nil {
		p.seen = map[[sha256.Size]byte]struct{}{}
	}
	sum := sha256.Sum256([]byte(*next))
	if _, ok := p.seen[sum]; ok {
		return false, fmt.Errorf("%s: the server sent cursor %s twice; its pagination loops", p.method, p.quoteCursor(*next))
	}
	p.seen[sum] = struct{}{}
	p.cursor = next
	return true, nil
}

// quoteCursor quotes a cursor for an error message, as redact.Quote does
// with the connection's credentials scrubbed, its first 64 bytes when it is
// longer.
func (p *pages) quoteCursor(c string) string {
	n := len(c)
	if p.scrub != nil {
		c = p.scrub(c)
	}
	const max = 64
	if len(c) <= max {
		return redact.Quote(c)
	}
	return fmt.Sprintf("%s... (%d bytes)", redact.Quote(textcut.Prefix(c, max)), n)
}
