package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestContentUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    string // the block re-encoded, or the error's substring after "!"
		wantRaw bool
	}{
		{`{"type":"text","text":"a\u00e9\n"}`, `{"type":"text","text":"aé\n"}`, false},
		{`{"t\u0079pe":"text","text":"escaped key"}`, `{"type":"text","text":"escaped key"}`, false},
		{`{"type":"image","data":"AQI\/","mimeType":"image/png"}`, `{"type":"image","data":"AQI/","mimeType":"image/png"}`, false},
		{`{"type":"audio","data":null,"mimeType":"audio/wav"}`, `{"type":"audio","mimeType":"audio/wav"}`, false},
		{`{"type":"resource_link","uri":"u","name":"n","size":null}`, `{"type":"resource_link","uri":"u","name":"n"}`, false},
		{`{"type":"resource","resource":{"uri":"u","blob":"AA==","_meta":{"k":1}}}`, `{"type":"resource","resource":{"uri":"u","blob":"AA==","_meta":{"k":1}}}`, false},
		{`{"type":"text","text":"x","_meta":{"a":[1]},"annotations":{"priority":0.5}}`, `{"type":"text","text":"x","annotations":{"priority":0.5},"_meta":{"a":[1]}}`, false},
		{`{"type":"widget","spin":true}`, `{"type":"widget","spin":true}`, true},
		{`{"text":"no type"}`, `!has no type`, false},
		{`{"type":"image","data":"***"}`, `!invalid base64`, false},
		{`{"type":"resource_link","uri":"u","size":"12"}`, `!size`, false},
		{`{"type":3}`, `!type`, false},
		{`[]`, `!expected a JSON object`, false},
	} {
		var c Content
		err := json.Unmarshal([]byte(tc.in), &c)
		if msg, ok := strings.CutPrefix(tc.want, "!"); ok {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("Unmarshal(%s) = %v, want an error about %q", tc.in, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", tc.in, err)
			continue
		}
		got, _ := json.Marshal(c)
		if string(got) != tc.want {
			t.Errorf("Unmarshal(%s) re-encodes as %s, want %s", tc.in, got, tc.want)
		}
		if (len(c.Raw) > 0) != tc.wantRaw {
			t.Errorf("Unmarshal(%s): Raw = %s", tc.in, c.Raw)
		}
	}
}

func TestDecodeResult(t *testing.T) {
	for _, tc := range []struct {
		in        string
		text      string
		isError   bool
		structure string
		retry     bool
		err       string
	}{
		{`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, "a\nb", false, "", false, ""},
		{`{"content":[],"isError":true}`, "", true, "", false, ""},
		{`{"content":null,"structuredContent":[1,2]}`, "", false, "[1,2]", false, ""},
		{`{"content":[],"structuredContent":"just a string","resultType":"complete"}`, "", false, `"just a string"`, false, ""},
		{`{"resultType":"input_required","requestState":"s"}`, "", false, "", true, ""},
		{`{"resultType":"task"}`, "", false, "", false, `result of type "task"`},
		{`{"content":[{"type":"text"}],"isError":"no"}`, "", false, "", false, "isError"},
		{`{"content":{}}`, "", false, "", false, "expected a JSON array"},
		{`{"content":[{"type":"text","text":"a"}]`, "", false, "", false, "malformed result"},
	} {
		res, more, err := decodeResult([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("decodeResult(%s) = %v, want an error about %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("decodeResult(%s): %v", tc.in, err)
			continue
		}
		if tc.retry {
			if more == nil || string(more.requestState) != `"s"` {
				t.Errorf("decodeResult(%s) = %+v, want a retry with the request state", tc.in, more)
			}
			continue
		}
		if res.Text() != tc.text || res.IsError != tc.isError || string(res.StructuredContent) != tc.structure {
			t.Errorf("decodeResult(%s) = %+v", tc.in, res)
		}
	}
}

func TestResultUnmarshalsWithEncodingJSON(t *testing.T) {
	var r Result
	in := `{"content":[{"type":"image","data":"AQ==","mimeType":"image/gif"},{"type":"odd","x":1}],"structuredContent":{"n":1},"isError":true}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || string(r.Content[0].Data) != "\x01" || string(r.Content[1].Raw) != `{"type":"odd","x":1}` || !r.IsError {
		t.Errorf("Result = %+v", r)
	}
	back, _ := json.Marshal(r)
	if string(back) != in {
		t.Errorf("re-encoded as %s, want %s", back, in)
	}
}

// TestResourceLinkIconsKept decodes a 2025-11-25 resource_link block with
// icons, from a tools/call result and with encoding/json: the icons are
// kept as the server sent them, and the block re-encodes with them.
func TestResourceLinkIconsKept(t *testing.T) {
	const icons = `[{"src":"https://example.com/a.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]`
	const block = `{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","icons":` + icons + `}`
	res, _, err := decodeResult([]byte(`{"content":[` + block + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	var c Content
	if err := json.Unmarshal([]byte(block), &c); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Content{res.Content[0], c} {
		if string(c.Icons) != icons {
			t.Errorf("Icons = %s, want %s", c.Icons, icons)
		}
		got, _ := json.Marshal(c)
		if string(got) != block {
			t.Errorf("the block re-encodes as %s, want %s", got, block)
		}
	}
}
