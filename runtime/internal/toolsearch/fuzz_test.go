package toolsearch

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

// FuzzSearch indexes a tool made of arbitrary text and searches it with an
// arbitrary query: nothing panics, every token is bounded, and a hit is a
// valid index.
func FuzzSearch(f *testing.F) {
	f.Add("send-mail", "Send an e-mail.", `{"properties":{"toRecipients":{}}}`, "send an email")
	f.Add("HTTPServer", "ÉTÉ été\u0301 ﬁ", `[`, "to-do OneNote")
	f.Fuzz(func(t *testing.T, name, desc, schema, query string) {
		for _, tok := range tokens(desc) {
			if len(tok) > maxTokenBytes || (utf8.ValidString(desc) && !utf8.ValidString(tok)) {
				t.Fatalf("token %q of %q", tok, desc)
			}
		}
		ix := New([]runtime.Tool{{Name: name, Title: query, Description: desc, InputSchema: json.RawMessage(schema)}, {Name: "other"}})
		for _, i := range ix.Search(query, 3) {
			if i < 0 || i > 1 {
				t.Fatalf("hit %d", i)
			}
		}
	})
}
