package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

func TestToolsHash(t *testing.T) {
	a := Tool{Name: "a", Raw: json.RawMessage(`{"name":"a", "inputSchema":{"type":"object"}}`)}
	b := Tool{Name: "b", Raw: json.RawMessage(`{"name":"b","inputSchema":{"type":"object"}}`)}
	b2 := Tool{Name: "b", Raw: json.RawMessage(`{"name":"b","inputSchema":{"type":"object","properties":{}}}`)}
	compact := Tool{Name: "a", Raw: json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}
	h := ToolsHash([]Tool{a, b})
	if got := ToolsHash([]Tool{b, compact}); got != h {
		t.Errorf("order or whitespace changed the hash: %s vs %s", got, h)
	}
	if got := ToolsHash([]Tool{a, b2}); got == h {
		t.Errorf("a schema change kept the hash %s", got)
	}
	if len(h) != len("sha256:")+12 {
		t.Errorf("hash %q has the wrong length", h)
	}
}

// TestToolsHashIsOfJSONCompact pins the hash to json.Compact's form of each
// tool, whitespace inside strings kept, which generated packages recorded
// before ToolsHash compacted with a faster pass.
func TestToolsHashIsOfJSONCompact(t *testing.T) {
	raws := []string{
		"{\n  \"name\": \"a\",\n  \"description\": \"two  spaces, a \\\" quote\\\\ and\\ttab\",\n  \"inputSchema\": {\"type\": \"object\"}\n}",
		`{"name":"b","inputSchema":{"type":"object","properties":{"x y":{"type":"string","default":" \u00e9 "}}}}`,
	}
	h := sha256.New()
	var tools []Tool
	for i, r := range raws {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(r)); err != nil {
			t.Fatal(err)
		}
		h.Write(buf.Bytes())
		h.Write([]byte{'\n'})
		tools = append(tools, Tool{Name: string(rune('a' + i)), Raw: json.RawMessage(r)})
	}
	want := "sha256:" + hex.EncodeToString(h.Sum(nil))[:12]
	if got := ToolsHash(tools); got != want {
		t.Errorf("ToolsHash = %s, want %s", got, want)
	}
}
