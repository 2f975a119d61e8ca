package mcpimpl

import (
	"encoding/json"
	"strings"
	"testing"
)

type literalLeaf struct {
	Name    string                  `json:"name,omitempty"`
	Min     *float64                `json:"min,omitempty"`
	Max     *int64                  `json:"max,omitempty"`
	Flag    *bool                   `json:"flag,omitempty"`
	Default any                     `json:"default,omitempty"`
	Kind    literalKind             `json:"kind,omitempty"`
	Items   []*literalLeaf          `json:"items,omitempty"`
	Props   map[string]*literalLeaf `json:"props,omitempty"`
	Tags    []string                `json:"tags,omitempty"`
	Bare    string                  `json:",omitempty"`
	hidden  string
}

type literalKind string

func TestDecodeLiteralKeepsInterfaceBytes(t *testing.T) {
	text := `{"name":"n","min":-1.5,"max":7,"flag":true,"default":{"z":1,"a":[1e2,"<&>"]},"kind":"OBJECT",` +
		`"items":[{"name":"i0"},{"tags":["x","y"]}],"props":{"b":{"default":"s"},"a":{"Bare":"v"}},"Bare":"w"}`
	var got literalLeaf
	if err := DecodeLiteral(text, &got); err != nil {
		t.Fatal(err)
	}
	if raw, ok := got.Default.(json.RawMessage); !ok || string(raw) != `{"z":1,"a":[1e2,"<&>"]}` {
		t.Errorf("Default = %#v, want the text's own bytes as json.RawMessage", got.Default)
	}
	if got.Name != "n" || *got.Min != -1.5 || *got.Max != 7 || !*got.Flag || got.Kind != "OBJECT" || got.Bare != "w" {
		t.Errorf("scalars = %+v", got)
	}
	if len(got.Items) != 2 || got.Items[0].Name != "i0" || strings.Join(got.Items[1].Tags, ",") != "x,y" {
		t.Errorf("Items = %+v", got.Items)
	}
	if string(got.Props["b"].Default.(json.RawMessage)) != `"s"` || got.Props["a"].Bare != "v" {
		t.Errorf("Props = %+v", got.Props)
	}
	// What the decoder returns encodes to the text it read.
	again, err := json.Marshal(&got)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal(again, &a)
	json.Unmarshal([]byte(text), &b)
	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Errorf("re-encoded %s, want %s", ja, jb)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDecodeLiteralRejects(t *testing.T) {
	for _, text := range []string{
		`{"nosuch":1}`,
		`{"hidden":"x"}`,
		`{"name":1}`,
		`{"items":{}}`,
		`{"name":"x"} {}`,
		`{"name":"x"`,
		`[]`,
	} {
		var v literalLeaf
		if err := DecodeLiteral(text, &v); err == nil {
			t.Errorf("DecodeLiteral(%s) = nil, want an error", text)
		}
	}
	if err := DecodeLiteral(`{}`, literalLeaf{}); err == nil {
		t.Error("DecodeLiteral into a non-pointer = nil, want an error")
	}
}

func TestDecodeLiteralsKeepsWhatDecodes(t *testing.T) {
	got, err := DecodeLiterals[literalLeaf]([]string{`{"name":"a"}`, `{"name":2}`, `{"name":"c"}`})
	if err == nil || !strings.Contains(err.Error(), "literal 1") {
		t.Errorf("error = %v, want one naming literal 1", err)
	}
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Errorf("decoded %+v, want a and c", got)
	}
	fresh, err := DecodeLiterals[literalLeaf]([]string{`{"items":[{"name":"x"}]}`})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := DecodeLiterals[literalLeaf]([]string{`{"items":[{"name":"x"}]}`})
	fresh[0].Items[0].Name = "changed"
	if again[0].Items[0].Name != "x" {
		t.Error("values decoded by one call are shared with the next")
	}
}
