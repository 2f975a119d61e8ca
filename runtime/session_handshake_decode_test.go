package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeHandshakeResults checks the readers of the initialize and
// server/discover results and of capabilities: what encoding/json read
// from them before, with members matched by their exact names (encoding/json
// also took "ServerInfo" for "serverInfo" and "Tools" for "tools"), and
// errors that name the member of the wrong type.
func TestDecodeHandshakeResults(t *testing.T) {
	r, err := decodeInitializeResult([]byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{},"logging":null,"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1","title":"S","icons":[]},"instructions":"be brief","extra":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.protocolVersion != "2025-11-25" || r.serverInfo != (Implementation{Name: "s", Version: "1", Title: "S"}) || r.instructions != "be brief" {
		t.Errorf("initialize result = %+v", r)
	}
	caps := parseCapabilities(r.capabilities)
	want := ServerCapabilities{Tools: true, ToolsListChanged: true, Prompts: true, ToolTasks: true, Raw: r.capabilities}
	if !reflect.DeepEqual(caps, want) {
		t.Errorf("capabilities = %+v, want %+v", caps, want)
	}

	d, err := decodeDiscoverResult([]byte(`{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"resources":{"subscribe":true},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"d","version":"2"},"other":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.supportedVersions, []string{"2026-07-28", "2025-11-25"}) || d.serverInfo != (Implementation{Name: "d", Version: "2"}) {
		t.Errorf("server/discover result = %+v", d)
	}
	caps = parseCapabilities(d.capabilities)
	want = ServerCapabilities{Resources: true, Completions: true, ToolTasks: true, Raw: d.capabilities}
	if !reflect.DeepEqual(caps, want) {
		t.Errorf("capabilities = %+v, want %+v", caps, want)
	}

	// Only exact names count.
	r, err = decodeInitializeResult([]byte(`{"ProtocolVersion":"2025-11-25","ServerInfo":{"Name":"s"},"capabilities":{"Tools":{},"tools":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.protocolVersion != "" || r.serverInfo != (Implementation{}) {
		t.Errorf("members of other names were read: %+v", r)
	}
	if c := parseCapabilities(r.capabilities); c.Tools {
		t.Errorf("capabilities %s: Tools set", r.capabilities)
	}

	for _, tc := range []struct{ name, capabilities string }{
		{"not an object", `[]`},
		{"malformed", `{"tools":{}`},
		{"tools of the wrong type", `{"tools":true}`},
		{"listChanged of the wrong type", `{"tools":{"listChanged":"yes"}}`},
	} {
		c := parseCapabilities(json.RawMessage(tc.capabilities))
		if c.ToolsListChanged || (c.Tools && tc.name != "listChanged of the wrong type") {
			t.Errorf("%s: capabilities = %+v", tc.name, c)
		}
	}

	for _, tc := range []struct{ result, want string }{
		{`{"protocolVersion":5}`, "protocolVersion: expected a JSON string"},
		{`{"serverInfo":{"name":["s"]}}`, "serverInfo: name: expected a JSON string"},
		{`null`, "expected a JSON object"},
	} {
		if _, err := decodeInitializeResult([]byte(tc.result)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decodeInitializeResult(%s) = %v, want an error with %q", tc.result, err, tc.want)
		}
	}
	if _, err := decodeDiscoverResult([]byte(`{"supportedVersions":["2026-07-28",7]}`)); err == nil || !strings.Contains(err.Error(), "supportedVersions: element 1: expected a JSON string") {
		t.Errorf("server/discover result with a number for a version: %v", err)
	}
}
