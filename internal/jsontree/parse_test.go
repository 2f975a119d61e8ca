package jsontree

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// snapshotFiles are the JSON files of the module's test data: tool lists of
// real servers, in the forms mcpgen reads.
func snapshotFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../testdata/*.json", "../../testdata/servers/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("found %d JSON files in the test data, want the corpus", len(files))
	}
	return files
}

// parseEdgeCases are documents whose reading is easy to get subtly wrong.
var parseEdgeCases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `tru`, `truex`, `[truex]`, `[true false]`, `nullnull`,
	`0`, `-0`, `01`, `[01]`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5x`, `[1x]`, `+1`,
	`1e308`, `1e309`, `-1e309`, `1e-400`, `[1e400]`, `{"max":1e400}`, `123456789012345678901234567890`,
	strings.Repeat("9", 308), strings.Repeat("9", 309), strings.Repeat("9", 400), "0." + strings.Repeat("0", 400) + "1",
	`""`, `"a`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u0041\u00e9\u2028"`, `"\u"`, `"\u12"`, `"\u12G4"`, `"\x"`, `"\'"`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\uDFFF\uD800"`,
	"\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"\xf4\x90\x80\x80\"", "\"é😀\"", "\"\\n\xff\"",
	"\"\x01\"", "\"\t\"", "\"\x7f\"", "\"a\nb\"",
	`[]`, `{}`, `[ ]`, `{ }`, `[,]`, `[1,]`, `[,1]`, `[1 2]`, `[1,,2]`, `[}`, `{]`, `[1}`, `{"a":1]`,
	`{"a"}`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `{,"a":1}`, `{1:2}`, `{"a":1 "b":2}`, `{"a"::1}`, `{null:1}`,
	`{} {}`, `{}x`, `[] ,`, "{}\n", " \t\r\n[ 1 , \"x\" ]\n\t ", "\f[]", "\v[]", "\xef\xbb\xbf[]", "[]\x00",
	`{"a":1,"a":2}`, ` { "dup": 1, "k": 2, "dup": 3 } `, `[{"a":{"x":1,"x":2},"a":{"y":3}}]`,
	`{"a":1,"\u0061":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"\ud800":1,"\udfff":2}`, `{"a":1,"A":2}`,
	`{"a":1,"a":2,"a":}`, `{"a":1,"a":2} x`, `{"a":[1,2],"b":{"a":{},"a":[]},"a":null}`,
	`{"":1,"":2}`, `{"a/b~":{"k":[],"k":{}}}`, `{"x":"{\"x\":1,\"x\":2}"}`,
	manyKeys(40, "p7"), manyKeys(40, ""), manyKeys(17, "p16"), manyKeys(17, "p0"),
	`{"z":1.50,"a":[true,null,"x"],"m":{"b":{},"a":[]}}`,
	nested(MaxDepth, "1"), nested(MaxDepth+1, "1"), nested(MaxDepth+1, ""), nested(MaxDepth+2, ""),
	nested(maxNesting, ""), nested(maxNesting, "1"), nested(maxNesting+1, ""),
	strings.Repeat("[", MaxDepth+2), strings.Repeat(`{"a":`, 5) + "1" + strings.Repeat("}", 5),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
	"{\n  \"a\": tru\n}", "[1,\n2",
}

// nested returns depth nested arrays around inner.
func nested(depth int, inner string) string {
	return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
}

// manyKeys returns an object with the n members "p0":0, "p1":1, ...,
// followed by extra once more when it is not empty.
func manyKeys(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	if extra != "" {
		b.WriteString(`,"` + extra + `":"again"`)
	}
	b.WriteString("}}")
	return b.String()
}

// agreeWithDecoder checks that Parse and ParseUnique give the same trees
// and errors as their encoding/json based versions, and that the one-pass
// parser takes every document encoding/json accepts (but for a scalar at
// encoding/json's deepest level).
func agreeWithDecoder(t *testing.T, data []byte) {
	t.Helper()
	for _, c := range []struct {
		name       string
		fast, slow func([]byte) (*Node, error)
		unique     bool
	}{
		{"Parse", Parse, decodeParse, false},
		{"ParseUnique", ParseUnique, decodeParseUnique, true},
	} {
		got, gotErr := c.fast(data)
		want, wantErr := c.slow(data)
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("%s(%.200q): error %#v, want %#v", c.name, data, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s(%.200q) = %.200s, want %.200s", c.name, data, got, want)
		}
		if _, ok := parseFast(data, c.unique); ok != (wantErr == nil) && len(data) < maxNesting {
			t.Fatalf("%s(%.200q): the one-pass parser accepts it: %v; encoding/json: %v", c.name, data, ok, wantErr)
		}
	}
}

func TestParseAgreesWithDecoder(t *testing.T) {
	for _, in := range parseEdgeCases {
		agreeWithDecoder(t, []byte(in))
	}
	for _, f := range snapshotFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := parseFast(data, false); !ok {
			t.Errorf("%s: the one-pass parser does not take it", f)
		}
		agreeWithDecoder(t, data)
	}
}

// FuzzParseAgreesWithDecoder compares Parse and ParseUnique with their
// encoding/json based versions on arbitrary bytes. The seeds are the edge
// cases above, the smaller files of the test data whole, and the first
// tools of the larger ones.
func FuzzParseAgreesWithDecoder(f *testing.F) {
	for _, in := range parseEdgeCases {
		f.Add([]byte(in))
	}
	for _, name := range snapshotFiles(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 64<<10 {
			f.Add(data)
			continue
		}
		var doc struct {
			Tools  []json.RawMessage
			Result struct{ Tools []json.RawMessage }
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			continue // not a tool list
		}
		for i, tool := range append(doc.Tools, doc.Result.Tools...) {
			if i == 20 {
				break
			}
			f.Add([]byte(tool))
		}
	}
	f.Fuzz(agreeWithDecoder)
}

// BenchmarkParse parses the largest snapshots of the test data, with the
// one-pass parser and with the encoding/json based one.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"servers/ms365", "servers/digitalocean", "homeassistant-tools-list"} {
		data, err := os.ReadFile("../../testdata/" + name + ".json")
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			parse func([]byte) (*Node, error)
		}{
			{"Parse", Parse}, {"decodeParse", decodeParse},
			{"ParseUnique", ParseUnique}, {"decodeParseUnique", decodeParseUnique},
		} {
			b.Run(filepath.Base(name)+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.parse(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestParseAllocatesOncePerValue holds Parse and ParseUnique to about one
// allocation for each value and key of the document, as a single pass
// that copies each string once makes; reading the text through
// encoding/json's Decoder, once to check it and once per token, made
// several times as many.
func TestParseAllocatesOncePerValue(t *testing.T) {
	data, err := os.ReadFile("../../testdata/servers/digitalocean.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, parse := range []func([]byte) (*Node, error){Parse, ParseUnique} {
		n, err := parse(data)
		if err != nil {
			t.Fatal(err)
		}
		values, keys := countValues(n)
		limit := float64(values+keys) * 1.05
		allocs := testing.AllocsPerRun(5, func() { parse(data) })
		if allocs > limit {
			t.Errorf("parsing %d values and %d keys made %.0f allocations, want at most %.0f", values, keys, allocs, limit)
		}
	}
}

// countValues returns the number of values in n and of keys in its objects.
func countValues(n *Node) (values, keys int) {
	values = 1
	for _, it := range n.Items {
		v, k := countValues(it)
		values, keys = values+v, keys+k
	}
	for _, m := range n.Members {
		v, k := countValues(m.Value)
		values, keys = values+v, keys+k+1
	}
	return values, keys
}
