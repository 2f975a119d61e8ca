package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime"
)

// paramHeader is one x-mcp-header annotation of a tool's input schema: the
// header name, after Mcp-Param-, and the property keys leading from the
// root of the arguments to the value it mirrors.
type paramHeader struct {
	name string
	path []string
}

// maxAnnotationDepth bounds the walk of annotations over nested properties.
const maxAnnotationDepth = 64

// paramHeaders returns the x-mcp-header annotations reachable from the root
// of schema through properties alone, in the order of their paths.
func paramHeaders(schema json.RawMessage) []paramHeader {
	var found []paramHeader
	var walk func(raw json.RawMessage, path []string)
	walk = func(raw json.RawMessage, path []string) {
		var s struct {
			Header     *string                    `json:"x-mcp-header"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if len(path) > maxAnnotationDepth || json.Unmarshal(raw, &s) != nil {
			return
		}
		if s.Header != nil && len(path) > 0 {
			found = append(found, paramHeader{name: *s.Header, path: path})
		}
		keys := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(s.Properties[k], append(path[:len(path):len(path)], k))
		}
	}
	walk(schema, nil)
	return found
}

// checkParamHeaders checks the Mcp-Param-* headers of a 2026-07-28
// tools/call against the arguments its tool's annotations name: each
// present, non-null argument must be in its header, and an absent one must
// have none.
func checkParamHeaders(t *tool, args json.RawMessage, h http.Header) *runtime.RPCError {
	for _, ph := range t.headers {
		want, present := headerValue(lookup(args, ph.path))
		got := h.Values("Mcp-Param-" + ph.name)
		switch {
		case present && len(got) == 1 && sameValue(decodeHeaderValue(got[0]), want):
		case !present && len(got) == 0:
		default:
			return rpcError(runtime.CodeHeaderMismatch, fmt.Sprintf("header Mcp-Param-%s is %q, and the argument it mirrors is %q", ph.name, got, want))
		}
	}
	return nil
}

// lookup returns the value at path in args, or nil.
func lookup(args json.RawMessage, path []string) json.RawMessage {
	v := args
	for _, k := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return nil
		}
		if v = m[k]; v == nil {
			return nil
		}
	}
	return v
}

// headerValue renders a JSON scalar as a header carries it: strings as they
// are, numbers and booleans as written. Null, objects and arrays, and no
// value, give no header.
func headerValue(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		return s, json.Unmarshal(v, &s) == nil
	case 'n', '{', '[':
		return "", false
	}
	return string(v), true
}

// sameValue reports whether a header's value and an argument's agree,
// numbers by their value (5 and 5.0 alike).
func sameValue(header, arg string) bool {
	if header == arg {
		return true
	}
	a, errA := strconv.ParseFloat(header, 64)
	b, errB := strconv.ParseFloat(arg, 64)
	return errA == nil && errB == nil && a == b
}
