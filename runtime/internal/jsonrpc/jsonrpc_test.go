package jsonrpc

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in     string
		kind   Kind
		id     string
		method string
		result string
		err    bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,{"b":"}"}]}}`, KindResponse, "1", "", `{"a":[1,2,{"b":"}"}]}`, false},
		{`{"result":{},"jsonrpc":"2.0","id":"x"}`, KindResponse, `"x"`, "", `{}`, false},
		{` {"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}} `, KindResponse, "7", "", "", false},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, KindRequest, "3", "ping", "", false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`, KindNotification, "", "notifications/progress", "", false},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, KindNotification, "null", "x", "", false},
		{`{"jsonrpc":"2.0","\u0069d":5,"result":1}`, KindResponse, "5", "", "1", false},
		{`{"jsonrpc":"2.0","method":"a\u00e9"}`, KindNotification, "", "aé", "", false},
		{`{"jsonrpc":"2.0"}`, KindInvalid, "", "", "", true},
		{`{"jsonrpc":"2.0","id":1,"result":`, KindInvalid, "", "", "", true},
		{`{"jsonrpc":"2.0","id":1,"result":{}} trailing`, KindInvalid, "", "", "", true},
		{`not json`, KindInvalid, "", "", "", true},
		{`{"id":1,"result":tru}`, KindInvalid, "", "", "", true},
		{`{"id":1,"method":3}`, KindInvalid, "", "", "", true},
		{"{\"id\":1,\"result\":\"a\x01\"}", KindInvalid, "", "", "", true},
	} {
		m, err := Decode([]byte(tc.in))
		if (err != nil) != tc.err {
			t.Errorf("Decode(%s) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if m.Kind != tc.kind || string(m.ID) != tc.id || m.Method != tc.method || (tc.result != "" && string(m.Result) != tc.result) {
			t.Errorf("Decode(%s) = %+v", tc.in, m)
		}
	}
}

func TestDeepNestingIsAnError(t *testing.T) {
	deep := `{"id":1,"result":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	if _, err := Decode([]byte(deep)); err == nil {
		t.Fatal("Decode accepted nesting beyond the limit")
	}
}

func TestBatch(t *testing.T) {
	in := ` [{"jsonrpc":"2.0","id":1,"result":{}}, {"jsonrpc":"2.0","method":"n"}] `
	if !IsBatch([]byte(in)) {
		t.Fatal("IsBatch = false")
	}
	var kinds []Kind
	err := Batch([]byte(in), func(m []byte) error {
		d, err := Decode(m)
		kinds = append(kinds, d.Kind)
		return err
	})
	if err != nil || len(kinds) != 2 || kinds[0] != KindResponse || kinds[1] != KindNotification {
		t.Fatalf("Batch: %v %v", kinds, err)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "line\nfeed\r\ttab", "\x00\x1f", "héllo 世界", "bad\xffutf8", "<&>"} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("AppendString(%q) = %s, not valid JSON: %v", s, got, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Errorf("AppendString(%q) round-trips to %q", s, back)
		}
		if strings.ContainsAny(string(got), "\n\r") {
			t.Errorf("AppendString(%q) = %s contains a line break", s, got)
		}
	}
}

func TestEncoders(t *testing.T) {
	b := AppendRequestHead(nil, 42, "tools/call")
	b = append(b, `"name":"x"}}`...)
	if string(b) != `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x"}}` || !json.Valid(b) {
		t.Errorf("request = %s", b)
	}
	if got := string(AppendError(nil, []byte(`"s1"`), -32601, "method not found: x")); got != `{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"method not found: x"}}` {
		t.Errorf("error = %s", got)
	}
	if got := string(AppendResult(nil, []byte(`3`), []byte(`{}`))); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("result = %s", got)
	}
}

func TestFindID(t *testing.T) {
	for _, tc := range []struct {
		prefix, suffix string
		want           string
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"xxxx`, `xxx"}]}}`, "12"},
		{`{"result":{"content":[{"type":"text","text":"xxxx`, `xxxx"}]},"jsonrpc":"2.0","id":34}`, "34"},
		{`{"result":{"content":[{"type":"text","text":"xxxx`, `xx"}],"id":99},"jsonrpc":"2.0","id":"s5"}`, `"s5"`},
		{`{"result":{"content":[{"type":"text","text":"xxxx`, `xx"}]},"id":56,"jsonrpc":"2.0"}`, "56"},
		{`{"result":{"x":"`, `...","id":3}}`, ""},
		{`garbage`, `more garbage`, ""},
	} {
		id, ok := FindID([]byte(tc.prefix), []byte(tc.suffix))
		if tc.want == "" {
			if ok {
				t.Errorf("FindID(%s ... %s) = %s, want none", tc.prefix, tc.suffix, id)
			}
			continue
		}
		if !ok || string(id) != tc.want {
			t.Errorf("FindID(%s ... %s) = %s, %v, want %s", tc.prefix, tc.suffix, id, ok, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	secret := func(n string) bool { return strings.Contains(strings.ToLower(n), "token") }
	in := `{"a":1,"accessToken":"abc","nested":[{"refresh_token":{"x":1}},{"ok":"fine"}],"tok\u0065n":"esc","token":null}`
	out, ok := Redact([]byte(in), secret)
	if !ok {
		t.Fatal("Redact failed")
	}
	want := `{"a":1,"accessToken":"[REDACTED]","nested":[{"refresh_token":"[REDACTED]"},{"ok":"fine"}],"tok\u0065n":"[REDACTED]","token":null}`
	if string(out) != want {
		t.Errorf("Redact = %s\nwant     %s", out, want)
	}
	if _, ok := Redact([]byte(`{"token":"abc"`), secret); ok {
		t.Error("Redact accepted malformed JSON")
	}
}

func TestScalars(t *testing.T) {
	if n, ok := Int([]byte("-17")); !ok || n != -17 {
		t.Errorf("Int(-17) = %d, %v", n, ok)
	}
	for _, bad := range []string{"1.5", "", "-", "99999999999999999999", `"a"`, `"8"`, `"-17"`} {
		if _, ok := Int([]byte(bad)); ok {
			t.Errorf("Int(%q) succeeded", bad)
		}
	}
	if b, err := Bool([]byte("true")); !b || err != nil {
		t.Error("Bool(true)")
	}
	if _, err := Bool([]byte(`"yes"`)); err == nil {
		t.Error(`Bool("yes") succeeded`)
	}
	if s, err := String([]byte(`"a\nb"`)); err != nil || s != "a\nb" {
		t.Errorf("String = %q, %v", s, err)
	}
}

// FuzzDecode checks that no input makes the decoder, the batch splitter, the
// id recovery or the redactor panic, and that Decode agrees with
// encoding/json on what is valid.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`[{"jsonrpc":"2.0","method":"x"},{"id":2,"error":{"code":1,"message":"m"}}]`,
		`{"id":"\u0041","method":"\ud800"}`,
		`{"a":[1,2.5e-3,true,false,null,"s"]}`,
		`{"id":1,"result":"\`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Decode(data)
		if err == nil && !json.Valid(data) {
			t.Errorf("Decode accepted invalid JSON %q", data)
		}
		_ = Batch(data, func([]byte) error { return nil })
		FindID(data, data)
		Redact(data, func(string) bool { return true })
	})
}

// skipStringBytewise is skipString as it was before it skipped eight plain
// bytes at a time: the reference the faster one must agree with.
func skipStringBytewise(data []byte, i int) (int, error) {
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(data) {
				return len(data), errTruncated
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(data) {
						return len(data), errTruncated
					}
					if !isHex(data[k]) {
						return k, errSyntax
					}
				}
				i += 6
			default:
				return i, errSyntax
			}
		case c < 0x20:
			return i, errSyntax
		default:
			i++
		}
	}
	return len(data), errTruncated
}

// Skipping a string eight bytes at a time finds every quote, backslash and
// control character, whatever its byte value and its place in a word, next
// to plain ASCII or UTF-8.
func TestSkipStringWordwiseAgreesBytewise(t *testing.T) {
	for _, filler := range []string{"a", "é", "\x7f", "\xff"} {
		for n := 0; n < 24; n++ {
			for p := 0; p < n; p++ {
				for v := 0; v < 256; v++ {
					body := []byte(strings.Repeat(filler, n))[:n]
					body[p] = byte(v)
					for _, data := range [][]byte{
						append(append([]byte{'"'}, body...), '"'),
						append([]byte{'"'}, body...),
						append(append([]byte{'"'}, body...), `\u00e9"`...),
					} {
						gi, gerr := skipString(data, 0)
						wi, werr := skipStringBytewise(data, 0)
						if gi != wi || gerr != werr {
							t.Fatalf("%q: skipString = %d, %v; want %d, %v", data, gi, gerr, wi, werr)
						}
					}
					if got, want := hasControl(body), v < 0x20 || strings.ContainsAny(filler, "\x00\x1f"); got != want {
						t.Fatalf("%q: hasControl = %v, want %v", body, got, want)
					}
				}
			}
		}
	}
}

// TestIntBeyondInt64 reads the 19-digit integers beyond an int64, which
// wrapped around to negative numbers, and the extremes of an int64.
func TestIntBeyondInt64(t *testing.T) {
	for _, bad := range []string{"9223372036854775808", "9999999999999999999", "-9223372036854775809", "-9999999999999999999"} {
		if n, ok := Int([]byte(bad)); ok {
			t.Errorf("Int(%s) = %d, want no int64", bad, n)
		}
	}
	for _, good := range []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 0} {
		lit := strconv.FormatInt(good, 10)
		if n, ok := Int([]byte(lit)); !ok || n != good {
			t.Errorf("Int(%s) = %d, %v", lit, n, ok)
		}
	}
}
