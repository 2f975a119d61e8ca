package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestLongPropertyNamesCutInReports compares two properties whose names of
// 1 MiB differ in their last byte: the text and Markdown reports cut each
// name, in the pointers and in the sentences, to a bounded length that
// keeps the two apart, instead of printing the megabyte in every pointer.
func TestLongPropertyNamesCutInReports(t *testing.T) {
	long := strings.Repeat("n", 1<<20)
	p, q := long+"p", long+"q"
	schema := func(typ string) []byte {
		return []byte(`{"type":"object","properties":{"` + p + `":{"type":"` + typ + `"},"` + q + `":{"type":"object","properties":{"x":{"type":"` + typ + `"}}}}}`)
	}
	changes, err := Tools([]runtime.Tool{{Name: "t", InputSchema: schema("string")}}, []runtime.Tool{{Name: "t", InputSchema: schema("integer")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 {
		t.Fatalf("%d changes, want 2:%s", len(changes), fmtWants(wants(changes)))
	}
	r := &Report{Old: "old.json", New: "new.json", Changes: changes}
	for _, f := range []Format{FormatText, FormatMarkdown} {
		var b bytes.Buffer
		if err := r.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 8<<10 {
			t.Errorf("%s report: %d bytes, want at most 8 KiB", f, b.Len())
		}
	}
	pp, qp := changes[0].Where(), changes[1].Where()
	if pp == qp || len(pp) > 512 || len(qp) > 512 {
		t.Errorf("places %.200q (%d bytes) and %.200q (%d bytes): want two places of at most 512 bytes", pp, len(pp), qp, len(qp))
	}
	if !strings.HasSuffix(qp, "/properties/x/type") {
		t.Errorf("place %.200q does not end with the name after the cut one", qp)
	}
}
