package mcpimpl

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// The checks of generated objects take a value apart level by level: an
// object into its members, an array into its items. json.Unmarshal into a
// map[string]json.RawMessage would validate and copy the whole value at
// every level, so that a value nested d levels deep was read some 3d times
// over, most of it byte by byte; a 16 MiB string eight levels down took
// seconds. These split a value in one fast pass over it, into slices of
// data, and fall back to json.Unmarshal, for its result or its error,
// where the text is not what they expect.

// splitObject returns the members of the JSON object data as json.Unmarshal
// into a map[string]json.RawMessage returns them (a repeated key keeps its
// last value), with each value a slice of data rather than a copy.
func splitObject(data []byte) (map[string]json.RawMessage, error) {
	members := make(map[string]json.RawMessage)
	err := jsonrpc.ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		if escaped || !utf8.Valid(key) {
			// encoding/json's own unescaping, which turns invalid UTF-8
			// into U+FFFD byte by byte.
			var name string
			if err := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name); err != nil {
				return err
			}
			members[name] = v
			return nil
		}
		members[string(key)] = v
		return nil
	})
	if err != nil {
		members = nil
		if err := json.Unmarshal(data, &members); err != nil {
			return nil, err
		}
	}
	return members, nil
}

// splitArray returns the items of the JSON array data as json.Unmarshal into
// a []json.RawMessage returns them, each a slice of data rather than a copy.
// An empty array gives an empty slice, not nil, which would encode as null.
func splitArray(data []byte) ([]json.RawMessage, error) {
	items := []json.RawMessage{}
	err := jsonrpc.ArrayEach(data, func(v []byte) error {
		items = append(items, v)
		return nil
	})
	if err != nil {
		items = nil
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, err
		}
	}
	return items, nil
}
