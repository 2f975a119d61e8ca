package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// ToolsHash returns a short content hash of a tool list, such as
// "sha256:3f9a0c1b2d4e". Generated packages record the hash of the snapshot
// they came from, and a Session compares it with the live list.
//
// The hash covers each tool's whole object as the server sent it (Raw, or the
// known fields when Raw is empty), compacted and ordered by tool name, so
// whitespace and the order of tools do not change it, and every other change
// does.
func ToolsHash(tools []Tool) string {
	sorted := make([]*Tool, len(tools))
	for i := range tools {
		sorted[i] = &tools[i]
	}
	slices.SortFunc(sorted, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	var buf []byte
	for _, t := range sorted {
		raw := t.Raw
		if len(raw) == 0 {
			raw, _ = json.Marshal(t)
		}
		// Raw is JSON a decoder accepted (or Marshal wrote), which
		// AppendCompact compacts as json.Compact does without checking
		// it again, at a fraction of the cost.
		buf = jsontree.AppendCompact(buf[:0], raw)
		h.Write(buf)
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:12]
}
