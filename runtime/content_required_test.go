package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestContentKeepsRequiredMembers checks that the members the protocol
// requires are written even when empty: a text block's text, and an
// embedded resource's text or blob. A sampling answer the model left empty
// must still be a valid CreateMessageResult.
func TestContentKeepsRequiredMembers(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"empty text block", Content{Type: ContentText}, `{"type":"text","text":""}`},
		{"empty sampling answer", &SamplingResult{Content: []Content{{Type: ContentText}}, Model: "m"}, `"content":{"type":"text","text":""}`},
		{"sampling answer without content", &SamplingResult{Model: "m"}, `"content":{"type":"text","text":""}`},
		{"empty text resource", Content{Type: ContentResource, Resource: &ResourceContents{URI: "u"}}, `{"type":"resource","resource":{"uri":"u","text":""}}`},
		{"empty blob resource", Content{Type: ContentResource, Resource: &ResourceContents{URI: "u", Blob: []byte{}}}, `{"type":"resource","resource":{"uri":"u","blob":""}}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: encoded as %s, want %s in it", tc.name, b, tc.want)
		}
	}
	// An empty blob stays a blob across a round trip.
	b, _ := json.Marshal(ResourceContents{URI: "u", Blob: []byte{}})
	var back ResourceContents
	if _, err := back.decode(b, func(v []byte) json.RawMessage { return v }); err != nil || !back.IsBlob() {
		t.Errorf("an empty blob encoded as %s decodes as IsBlob() = %v (%v)", b, back.IsBlob(), err)
	}
}
