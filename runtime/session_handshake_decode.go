package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// The results of initialize and server/discover, and the capabilities they
// carry, are read with the scanner of internal/jsonrpc rather than decoded
// into structs by encoding/json: a fresh process would otherwise build
// encoding/json's field caches of each of those types during its first
// handshake, which costs more than the reading itself. Members are matched
// by their exact names, as the tools of a listing are (see ParseTool).

// handshakeResult is what an initialize or server/discover result says of
// the server.
type handshakeResult struct {
	protocolVersion   string   // initialize
	supportedVersions []string // server/discover
	capabilities      json.RawMessage
	serverInfo        Implementation
	instructions      string
}

// decodeInitializeResult reads the result of initialize.
func decodeInitializeResult(res []byte) (handshakeResult, error) {
	var r handshakeResult
	err := jsonrpc.ObjectEach(res, func(key []byte, escaped bool, v []byte) error {
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "protocolVersion"):
			r.protocolVersion, err = optionalString("protocolVersion", v)
		case jsonrpc.KeyIs(key, escaped, "capabilities"):
			r.capabilities = rawMember(v)
		case jsonrpc.KeyIs(key, escaped, "serverInfo"):
			r.serverInfo, err = decodeImplementation("serverInfo", v)
		case jsonrpc.KeyIs(key, escaped, "instructions"):
			r.instructions, err = optionalString("instructions", v)
		}
		return err
	})
	return r, err
}

// decodeDiscoverResult reads the result of server/discover.
func decodeDiscoverResult(res []byte) (handshakeResult, error) {
	var r handshakeResult
	err := jsonrpc.ObjectEach(res, func(key []byte, escaped bool, v []byte) error {
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "supportedVersions"):
			r.supportedVersions, err = decodeStrings("supportedVersions", v)
		case jsonrpc.KeyIs(key, escaped, "capabilities"):
			r.capabilities = rawMember(v)
		case jsonrpc.KeyIs(key, escaped, "instructions"):
			r.instructions, err = optionalString("instructions", v)
		case jsonrpc.KeyIs(key, escaped, "_meta"):
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ObjectEach(v, func(key []byte, escaped bool, v []byte) error {
				if !jsonrpc.KeyIs(key, escaped, "io.modelcontextprotocol/serverInfo") {
					return nil
				}
				var err error
				r.serverInfo, err = decodeImplementation("_meta.io.modelcontextprotocol/serverInfo", v)
				return err
			})
		}
		return err
	})
	return r, err
}

// rawMember returns a copy of the member value v, nil for null: the
// message it was read from may be reused.
func rawMember(v []byte) json.RawMessage {
	if jsonrpc.IsNull(v) {
		return nil
	}
	return bytes.Clone(v)
}

// optionalString decodes the string member name of value v; null is "".
func optionalString(name string, v []byte) (string, error) {
	if jsonrpc.IsNull(v) {
		return "", nil
	}
	s, err := jsonrpc.String(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// decodeStrings decodes the member name of value v, an array of strings;
// null is none.
func decodeStrings(name string, v []byte) ([]string, error) {
	if jsonrpc.IsNull(v) {
		return nil, nil
	}
	var out []string
	err := jsonrpc.ArrayEach(v, func(e []byte) error {
		s, err := optionalString(fmt.Sprintf("element %d", len(out)), e)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// decodeImplementation decodes the member name of value v, a server's
// name, version and title; null is the zero Implementation.
func decodeImplementation(name string, v []byte) (Implementation, error) {
	var impl Implementation
	if jsonrpc.IsNull(v) {
		return impl, nil
	}
	err := jsonrpc.ObjectEach(v, func(key []byte, escaped bool, v []byte) error {
		var err error
		switch {
		case jsonrpc.KeyIs(key, escaped, "name"):
			impl.Name, err = optionalString("name", v)
		case jsonrpc.KeyIs(key, escaped, "version"):
			impl.Version, err = optionalString("version", v)
		case jsonrpc.KeyIs(key, escaped, "title"):
			impl.Title, err = optionalString("title", v)
		}
		return err
	})
	if err != nil {
		return Implementation{}, fmt.Errorf("%s: %w", name, err)
	}
	return impl, nil
}

// parseCapabilities reads the capabilities object raw. What is not an
// object, or a member of the wrong type, declares nothing.
func parseCapabilities(raw json.RawMessage) ServerCapabilities {
	var caps ServerCapabilities
	present := func(v []byte) bool { return !jsonrpc.IsNull(v) }
	err := jsonrpc.ObjectEach(raw, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "tools"):
			caps.Tools, caps.ToolsListChanged = isObject(v), false
			if caps.Tools {
				caps.ToolsListChanged, _ = jsonrpc.Bool(objectMember(v, "listChanged"))
			}
		case jsonrpc.KeyIs(key, escaped, "prompts"):
			caps.Prompts = present(v)
		case jsonrpc.KeyIs(key, escaped, "resources"):
			caps.Resources = present(v)
		case jsonrpc.KeyIs(key, escaped, "logging"):
			caps.Logging = present(v)
		case jsonrpc.KeyIs(key, escaped, "completions"):
			caps.Completions = present(v)
		}
		return nil
	})
	if err != nil {
		return ServerCapabilities{Raw: raw}
	}
	caps.ToolTasks = toolTasksCap(raw)
	caps.Raw = raw
	return caps
}

// toolTasksCap reports whether capabilities declare task-run tools/call: the
// 2025-11-25 tasks.requests.tools.call, or the 2026-07-28 tasks extension.
func toolTasksCap(raw json.RawMessage) bool {
	call := objectMember(objectMember(objectMember(objectMember(raw, "tasks"), "requests"), "tools"), "call")
	if call != nil && !jsonrpc.IsNull(call) {
		return true
	}
	ext := objectMember(objectMember(raw, "extensions"), tasksExtension)
	return ext != nil && !jsonrpc.IsNull(ext)
}

// objectMember returns the value of the member name of the JSON object obj
// (the last, when the name repeats), or nil when obj is not an object or
// has no such member.
func objectMember(obj []byte, name string) []byte {
	if !isObject(obj) {
		return nil
	}
	var v []byte
	if jsonrpc.ObjectEach(obj, func(key []byte, escaped bool, val []byte) error {
		if jsonrpc.KeyIs(key, escaped, name) {
			v = val
		}
		return nil
	}) != nil {
		return nil
	}
	return v
}

// isObject reports whether the JSON value v, without leading space, is an
// object.
func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
