package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestParamHeadersAnnotations(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string // "name=path;…", or the error's text
		bad    bool
	}{
		{"none", `{"type":"object","properties":{"a":{"type":"string"}}}`, "", false},
		{"top level", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, "Region=region", false},
		{"nested, several types", `{"type":"object","properties":{"opts":{"type":"object","properties":{"prio":{"type":"integer","x-mcp-header":"Priority"},"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},"tenant":{"type":["string","null"],"x-mcp-header":"Tenant"}}}`, "Priority=opts.prio;Dry-Run=opts.dry;Tenant=tenant", false},
		{"property named like the annotation", `{"type":"object","properties":{"x-mcp-header":{"type":"string"}}}`, "", false},
		{"empty name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, `/properties/a/x-mcp-header: "" is not a valid header name`, true},
		{"not a token", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Re gion"}}}`, `"Re gion" is not a valid header name`, true},
		{"CRLF", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\nX-Evil: 1"}}}`, `is not a valid header name`, true},
		{"not a string", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`, `/properties/a/x-mcp-header: the annotation is not a string`, true},
		{"on the root", `{"type":"object","x-mcp-header":"Root"}`, `/x-mcp-header: "Root" is not on a property reached through properties alone`, true},
		{"under items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, `/properties/l/items/x-mcp-header: "L" is not on a property`, true},
		{"under anyOf", `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, `/anyOf/0/properties/a/x-mcp-header`, true},
		{"under $defs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/r"}},"$defs":{"r":{"type":"string","x-mcp-header":"R"}}}`, `/$defs/r/x-mcp-header`, true},
		{"number", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, `"N" is on a property of type "number"`, true},
		{"no type", `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`, `"N" is on a property of type any (no type)`, true},
		{"two types", `{"type":"object","properties":{"n":{"type":["string","integer"],"x-mcp-header":"N"}}}`, `of type ["string","integer"]`, true},
		{"repeated", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`, `/properties/b/x-mcp-header: "region" repeats the header of property a`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, err := paramHeaders([]byte(tt.schema))
			if tt.bad {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				got = append(got, h.name+"="+strings.Join(h.path, "."))
			}
			if g := strings.Join(got, ";"); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func TestParamHeaderValues(t *testing.T) {
	hs := []paramHeader{
		{"S", []string{"s"}}, {"I", []string{"o", "i"}}, {"F", []string{"f"}}, {"B", []string{"b"}},
		{"N", []string{"n"}}, {"Absent", []string{"absent"}}, {"Obj", []string{"o"}}, {"Big", []string{"big"}},
	}
	args := `{"s":"東京 ","o":{"i":-42},"f":42.0,"b":false,"n":null,"big":1.5e300}`
	got := appendParamHeaders(nil, hs, []byte(args))
	want := []ParamHeader{{"S", "東京 "}, {"I", "-42"}, {"F", "42"}, {"B", "false"}, {"Big", "1.5e300"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// paramToolsServer serves the 2026-07-28 Streamable HTTP transport with the
// tools listed by tools (called on each tools/list), and answers every
// tools/call with the Mcp-Param-* headers it carried. When requireRegion is
// set, a call of route without Mcp-Param-Region gets -32020. A legacy server
// refuses server/discover and answers initialize instead.
func paramToolsServer(t *testing.T, legacy bool, tools func() string, requireRegion *atomic.Bool) *httpServer {
	return newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case m.Method == "server/discover" && legacy:
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID))
		case m.Method == "server/discover":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, modernDiscover))
		case m.Method == "initialize":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, legacyInit))
		case m.Method == "tools/list":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":%s}}`, m.ID, tools()))
		case m.Method == "tools/call":
			if requireRegion != nil && requireRegion.Load() && m.Params.Name == "route" && r.Header.Get("Mcp-Param-Region") == "" {
				writeJSON(w, 400, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32020,"message":"header mismatch: Mcp-Param-Region"}}`, m.ID))
				return
			}
			var got []string
			for k, v := range r.Header {
				if strings.HasPrefix(k, "Mcp-Param-") {
					got = append(got, k+": "+strings.Join(v, ","))
				}
			}
			slices.Sort(got)
			text, _ := json.Marshal(strings.Join(got, "\n"))
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":%s}]}}`, m.ID, text))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
}

const paramTools = `[
	{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"opts":{"type":"object","properties":{"prio":{"type":"integer","x-mcp-header":"Priority"}}},"note":{"type":["string","null"],"x-mcp-header":"Note"}}}},
	{"name":"plain","inputSchema":{"type":"object","properties":{"region":{"type":"string"}}}},
	{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}
]`

// TestParamHeadersOverHTTP checks the client side of x-mcp-header on
// 2026-07-28 Streamable HTTP: a tool with an invalid annotation is left out
// of the list with a warning and refused; each annotated argument present
// and not null travels as its Mcp-Param-* header, encoded when it is not
// plain ASCII; a call before any listing lists first.
func TestParamHeadersOverHTTP(t *testing.T) {
	srv := paramToolsServer(t, false, func() string { return paramTools }, nil)
	var logs logBuffer
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// No listing yet: the call lists the tools to learn the annotations.
	if got := callText(t, s, "route", map[string]any{"region": "us-west1", "opts": map[string]any{"prio": 3}, "note": nil}); got != "Mcp-Param-Priority: 3\nMcp-Param-Region: us-west1" {
		t.Errorf("headers sent:\n%s", got)
	}
	if got := callText(t, s, "route", map[string]any{"region": "東京"}); got != "Mcp-Param-Region: =?base64?5p2x5Lqs?=" {
		t.Errorf("headers sent:\n%s", got)
	}
	if got := callText(t, s, "plain", map[string]any{"region": "x"}); got != "" {
		t.Errorf("a tool without annotations sent:\n%s", got)
	}
	if _, err := s.CallTool(context.Background(), "bad", map[string]any{"n": 1}); err == nil || !strings.Contains(err.Error(), "x-mcp-header") {
		t.Errorf("calling the invalid tool: %v", err)
	}

	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"route", "plain"}) {
		t.Errorf("listed %v, want route and plain", names)
	}
	if l := logs.String(); !strings.Contains(l, "tool=bad") || !strings.Contains(l, "only string, integer and boolean properties") {
		t.Errorf("no warning naming the tool and the reason:\n%s", l)
	}
	lists := 0
	for _, r := range srv.requests() {
		if strings.Contains(r.Body, `"tools/list"`) {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("%d tools/list requests, want 2 (one learning the annotations, one asked for)", lists)
	}
}

// TestParamHeadersMismatchRelists checks that a -32020 answer makes the
// Session list the tools again and retry the call once with the headers the
// new list asks for.
func TestParamHeadersMismatchRelists(t *testing.T) {
	var annotated, require atomic.Bool
	srv := paramToolsServer(t, false, func() string {
		if annotated.Load() {
			return paramTools
		}
		return strings.ReplaceAll(paramTools, `"x-mcp-header":"Region"`, `"description":"where"`)
	}, &require)
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, testHTTPOptions(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := callText(t, s, "route", map[string]any{"region": "eu"}); got != "" {
		t.Errorf("headers sent before the annotation existed:\n%s", got)
	}
	annotated.Store(true)
	require.Store(true)
	if got := callText(t, s, "route", map[string]any{"region": "eu"}); got != "Mcp-Param-Region: eu" {
		t.Errorf("headers sent after the mismatch:\n%s", got)
	}
}

// TestParamHeadersOnlyModernHTTP checks that the annotations mean nothing
// in the legacy era: every tool is listed and callable, and no call carries
// Mcp-Param-* headers.
func TestParamHeadersOnlyModernHTTP(t *testing.T) {
	srv := paramToolsServer(t, true, func() string { return paramTools }, nil)
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, testHTTPOptions(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(context.Background())
	if err != nil || len(tools) != 3 {
		t.Fatalf("ListTools: %d tools, %v; want all 3", len(tools), err)
	}
	for _, name := range []string{"route", "bad"} {
		if got := callText(t, s, name, map[string]any{"region": "eu", "n": 1}); got != "" {
			t.Errorf("%s sent:\n%s", name, got)
		}
	}
}

// TestParamHeadersErrorsQuoteServerText: the error that leaves a tool out
// for its x-mcp-header annotation names the annotation, the property's
// place and its type, all server text: with terminal escapes in a property
// name of 64 KiB, an annotation of 64 KiB and a long type list, the error
// holds no raw escape and stays short.
func TestParamHeadersErrorsQuoteServerText(t *testing.T) {
	long := strings.Repeat("p", 64<<10)
	prop := `"\u001b]0;pwned\u0007` + long + `"`
	types := `["string"` + strings.Repeat(`,"number"`, 8<<10) + `]`
	for _, schema := range []string{
		`{"type":"object","properties":{` + prop + `:{"type":"string","x-mcp-header":"Bad Name` + long + `"}}}`,
		`{"type":"object","properties":{` + prop + `:{"type":` + types + `,"x-mcp-header":"Region"}}}`,
		`{"type":"object","properties":{` + prop + `:{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`,
	} {
		_, err := paramHeaders([]byte(schema))
		if err == nil {
			t.Fatalf("no error for %.80s", schema)
		}
		if msg := err.Error(); len(msg) > 1000 || strings.ContainsAny(msg, "\x1b\x07") {
			t.Errorf("error of %d bytes: %.300q", len(msg), msg)
		}
	}
}
