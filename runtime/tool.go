package runtime

import "encoding/json"

// Tool is one tool as listed by tools/list. The schemas are kept as the exact
// bytes the server sent, so that validation and provider declarations see
// what the server meant, key order included.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Raw is the whole tool object as the server sent it, unknown keys
	// included.
	Raw json.RawMessage `json:"-"`
}
