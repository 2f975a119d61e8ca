package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// TestRawTextMatchesUnmarshal checks that rawItems and rawMembers find the
// same texts as json.Unmarshal into json.RawMessage values, which Read
// used, over every snapshot in testdata and documents with escapes,
// brackets inside strings and nesting.
func TestRawTextMatchesUnmarshal(t *testing.T) {
	docs := map[string][]byte{
		"escaped keys": []byte(`{"in\u0070utSchema" : {"a":"}]\"{["} , "outputSchema":[1,{"b":[]}],"annotations":null,"x\\y":-1.5e3}`),
		"spaces":       []byte(" \n{ \"inputSchema\" :\t{ } ,\r\n\"annotations\" : true }\n"),
		"empty":        []byte(`{}`),
		"array":        []byte(` [ {"inputSchema":{}} , "s\"]", 12 , [ [ ] ], {} ] `),
		"empty array":  []byte(`[ ]`),
	}
	files, err := filepath.Glob("../../testdata/servers/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no snapshots in testdata/servers")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = data
	}
	keys := []string{"inputSchema", "outputSchema", "annotations", "result", "tools", "x\\y"}
	for name, data := range docs {
		if _, err := jsontree.Parse(data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkRaw(t, name, data, keys)
	}
}

// checkRaw compares the raw texts of data, and of the tools it lists, with
// json.Unmarshal's.
func checkRaw(t *testing.T, name string, data []byte, keys []string) {
	t.Helper()
	var items []json.RawMessage
	if json.Unmarshal(data, &items) == nil {
		got := rawItems(data)
		if len(got) != len(items) {
			t.Fatalf("%s: rawItems found %d items, json.Unmarshal %d", name, len(got), len(items))
		}
		for i := range items {
			if !bytes.Equal(got[i], bytes.TrimSpace(items[i])) {
				t.Errorf("%s: item %d is %q, json.Unmarshal gives %q", name, i, got[i], items[i])
			}
			checkRaw(t, name, items[i], keys)
		}
		return
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return
	}
	got := rawMembers(data, keys...)
	for k, key := range keys {
		want := bytes.TrimSpace(members[key])
		if !bytes.Equal(got[k], want) {
			t.Errorf("%s: member %q is %q, json.Unmarshal gives %q", name, key, got[k], want)
		}
		if want != nil && (key == "result" || key == "tools") {
			checkRaw(t, name+"/"+key, want, keys)
		}
	}
}
