package mcpimpl

import "github.com/mcpgen/mcpgen/runtime"

// Tools decodes the tools a generated package keeps as the JSON text the
// server sent, one compact object a line of its tools.jsonl, for its
// MCPTools function. Each call returns new values. The generator wrote each
// text from a tool it had decoded, so none fails to decode; one that did
// would keep its Raw and the members read before the failure.
func Tools(file string) []runtime.Tool {
	raw := Lines(file)
	out := make([]runtime.Tool, len(raw))
	for i, r := range raw {
		out[i], _ = runtime.ParseTool([]byte(r))
	}
	return out
}
