package sse

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// result is one outcome of Next, flattened for comparison.
type result struct {
	typ, data, id string
	tooLarge      string // prefix of a TooLargeError
	suffix        string // and its suffix
}

func readAll(t *testing.T, r *Reader) []result {
	t.Helper()
	var out []result
	for range 1000 {
		ev, err := r.Next()
		var tl *TooLargeError
		switch {
		case err == io.EOF:
			return out
		case errors.As(err, &tl):
			out = append(out, result{tooLarge: string(tl.Prefix), suffix: string(tl.Suffix)})
		case err != nil:
			t.Fatalf("Next: %v", err)
		default:
			out = append(out, result{typ: ev.Type, data: string(ev.Data), id: ev.ID})
		}
	}
	t.Fatal("Next never returned io.EOF")
	return nil
}

func TestReader(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  []result
	}{
		{
			name: "one event",
			in:   "event: message\ndata: {\"a\":1}\n\n",
			want: []result{{typ: "message", data: `{"a":1}`}},
		},
		{
			name: "multi-line data joins with newlines",
			in:   "data: a\ndata:b\ndata\n\n",
			want: []result{{data: "a\nb\n"}},
		},
		{
			name: "CRLF and CR line ends",
			in:   "data: a\r\nid: 7\r\n\r\ndata: b\rid: 8\r\rdata: c\n\n",
			want: []result{{data: "a", id: "7"}, {data: "b", id: "8"}, {data: "c", id: "8"}},
		},
		{
			name: "comments are ignored",
			in:   ": keep-alive\n\n:another\ndata: x\n: inside\n\n",
			want: []result{{data: "x"}},
		},
		{
			name: "priming event has empty data and sets the id",
			in:   "id: e1\nretry: 500\ndata: \n\nevent: message\ndata: {}\n\n",
			want: []result{{data: "", id: "e1"}, {typ: "message", data: "{}", id: "e1"}},
		},
		{
			name: "an event without data is not dispatched but its id sticks",
			in:   "id: 5\n\nevent: endpoint\n\ndata: z\n\n",
			want: []result{{data: "z", id: "5"}},
		},
		{
			name: "unknown fields are ignored",
			in:   "foo: bar\ndata: y\n\n",
			want: []result{{data: "y"}},
		},
		{
			name: "an event cut off by the end of the stream is dropped",
			in:   "data: whole\n\ndata: half\n",
			want: []result{{data: "whole"}},
		},
		{
			name: "a value keeps all but the first space",
			in:   "data:   two spaces\n\n",
			want: []result{{data: "  two spaces"}},
		},
		{
			name:  "oversize event is reported and skipped",
			in:    "data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n",
			limit: 15,
			want:  []result{{tooLarge: "0123456789\n0123456789", suffix: "0123456789\n0123456789"}, {data: "ok"}},
		},
		{
			name:  "oversize single line longer than the buffer",
			in:    "data: {\"id\":3," + strings.Repeat("x", 40000) + "\n\nevent: message\ndata: after\n\n",
			limit: 100,
			want: []result{
				{tooLarge: (`{"id":3,` + strings.Repeat("x", PrefixSize))[:PrefixSize], suffix: strings.Repeat("x", PrefixSize)},
				{typ: "message", data: "after"},
			},
		},
		{
			name:  "oversize line keeps its real end as the suffix",
			in:    "data: {\"result\":\"" + strings.Repeat("r", 50000) + "\",\"jsonrpc\":\"2.0\",\"id\":42}\r\n\r\ndata: next\r\n\r\n",
			limit: 1000,
			want: []result{
				{tooLarge: (`{"result":"` + strings.Repeat("r", PrefixSize))[:PrefixSize], suffix: (strings.Repeat("r", PrefixSize) + `","jsonrpc":"2.0","id":42}`)[26:]},
				{data: "next"},
			},
		},
		{
			name:  "oversize over several lines keeps the last line's end",
			in:    "data: aaaa\ndata: bbbb\ndata: cccc\ndata: dddd\n\n",
			limit: 12,
			want:  []result{{tooLarge: "aaaa\nbbbb\ncccc", suffix: "aaaa\nbbbb\ncccc\ndddd"}},
		},
		{
			name:  "data exactly at the limit passes",
			in:    "data: 0123456789\n\n",
			limit: 10,
			want:  []result{{data: "0123456789"}},
		},
		{
			name: "a byte order mark that starts the stream is dropped",
			in:   "\ufeffevent: endpoint\ndata: /m\n\n",
			want: []result{{typ: "endpoint", data: "/m"}},
		},
		{
			name: "only one byte order mark is dropped, only at the start",
			in:   "\ufeff\ufeffdata: a\n\ndata: \ufeffb\n\n",
			want: []result{{data: "\ufeffb"}},
		},
		{
			name: "a stream shorter than a byte order mark",
			in:   "\xef\n\n",
		},
		{
			name: "a long line under no limit",
			in:   "data: " + strings.Repeat("y", 30000) + "\n\n",
			want: []result{{data: strings.Repeat("y", 30000)}},
		},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "one byte at a time"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				if mode != "whole" {
					src = iotest.OneByteReader(src)
				}
				r := NewReader(src, tt.limit)
				defer r.Release()
				got := readAll(t, r)
				if len(got) != len(tt.want) {
					t.Fatalf("got %d results %q, want %d %q", len(got), got, len(tt.want), tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("result %d = %+v, want %+v", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

func TestReaderRetry(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"retry: 500\n\n", 500 * time.Millisecond, true},
		{"retry: 0\n\n", 0, true},
		{"retry: 2592000000\n\n", 2592000000 * time.Millisecond, true},
		{"retry: 99999999999999999999999\n\n", math.MaxInt64 / time.Millisecond * time.Millisecond, true},
		{"retry: 5x\n\n", 0, false},
		{"retry: -1\n\n", 0, false},
		{"retry: +1\n\n", 0, false},
		{"retry:\n\n", 0, false},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(tt.in), 0)
		readAll(t, r)
		got, ok := r.Retry()
		if got != tt.want || ok != tt.ok {
			t.Errorf("%q: Retry() = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReaderResetKeepsIDAndRetry(t *testing.T) {
	r := NewReader(strings.NewReader("id: a1\nretry: 20\ndata: x\n\ndata: partial"), 0)
	readAll(t, r)
	r.Reset(strings.NewReader("data: y\n\n"))
	got := readAll(t, r)
	if len(got) != 1 || got[0] != (result{data: "y", id: "a1"}) {
		t.Fatalf("after Reset got %+v", got)
	}
	if d, ok := r.Retry(); !ok || d != 20*time.Millisecond {
		t.Errorf("Retry() = %v, %v after Reset", d, ok)
	}
	if r.LastID() != "a1" {
		t.Errorf("LastID() = %q", r.LastID())
	}
}

// TestReaderLastIDOfDispatchedEventsOnly checks that the id of an event the
// end of the stream cut off is not the last event id: a client resuming
// with it would tell the server it had the event it never got.
func TestReaderLastIDOfDispatchedEventsOnly(t *testing.T) {
	r := NewReader(strings.NewReader("id: e1\ndata: a\n\nid: e2\ndata: {\"half"), 0)
	readAll(t, r)
	if got := r.LastID(); got != "e1" {
		t.Fatalf("LastID() = %q after an event cut off with id e2, want e1", got)
	}
	r.Reset(strings.NewReader("data: b\n\n"))
	if got := readAll(t, r); len(got) != 1 || got[0] != (result{data: "b", id: "e1"}) {
		t.Errorf("after Reset got %+v, want b with id e1", got)
	}
}

// TestReaderResetDropsByteOrderMark checks that each stream a Reader is
// Reset to may begin with its own byte order mark, as each response of a
// reconnection is decoded afresh.
func TestReaderResetDropsByteOrderMark(t *testing.T) {
	r := NewReader(strings.NewReader("\ufeffid: 1\ndata: a\n\n"), 0)
	readAll(t, r)
	r.Reset(iotest.OneByteReader(strings.NewReader("\ufeffid: 2\ndata: b\n\n")))
	if got := readAll(t, r); len(got) != 1 || got[0] != (result{data: "b", id: "2"}) {
		t.Errorf("after Reset got %+v, want b with id 2", got)
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)), 0)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("first Next = %q, %v", ev.Data, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("second Next error = %v, want boom", err)
	}
}

func TestEventDataIsACopy(t *testing.T) {
	r := NewReader(strings.NewReader("data: first\n\ndata: second\n\n"), 0)
	a, _ := r.Next()
	b, _ := r.Next()
	if string(a.Data) != "first" || string(b.Data) != "second" {
		t.Fatalf("data overwritten: %q %q", a.Data, b.Data)
	}
}

func FuzzReader(f *testing.F) {
	f.Add("data: a\r\n\r\nid: 1\rdata: b\r\r", 8)
	f.Add(": c\ndata: "+strings.Repeat("z", 100)+"\n\n", 16)
	f.Add("\ufeffid: 2\ndata: x\n\nid: 3\ndata: cut", 8)
	f.Fuzz(func(t *testing.T, in string, limit int) {
		r := NewReader(iotest.HalfReader(strings.NewReader(in)), limit%1024)
		for range len(in) + 2 {
			ev, err := r.Next()
			if err == io.EOF {
				return
			}
			var tl *TooLargeError
			if errors.As(err, &tl) {
				if len(tl.Prefix) > PrefixSize || len(tl.Suffix) > PrefixSize {
					t.Fatalf("prefix of %d bytes, suffix of %d", len(tl.Prefix), len(tl.Suffix))
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if l := limit % 1024; l > 0 && len(ev.Data) > l {
				t.Fatalf("event of %d bytes passed limit %d", len(ev.Data), l)
			}
		}
		t.Fatal("Next did not reach the end of the stream")
	})
}
