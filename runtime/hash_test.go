package runtime

import (
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
