package jsontree

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendStringIsEncodingJSON writes strings that need every kind of
// escape as encoding/json does.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and backslash \`, "<html> & 'apostrophes'",
		"\b\f\n\r\t", "\x00\x01\x1f\x7f", "é, 💡 and 日本",
		"\u2028 and \u2029 separators", "bad \xff utf-8 \xc3", "\xe2\x80", "ends in \\",
	} {
		if got, want := string(AppendString(nil, s)), encodingJSON(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// encodingJSON is v as encoding/json writes it with HTML escaping off.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
