package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// FromRuntime returns a snapshot of tools as a live server listed them, with
// the header of a canonical snapshot. source is the capture command or URL,
// which must already have its secrets removed.
func FromRuntime(server Server, protocolVersion, source string, tools []runtime.Tool) *Snapshot {
	s := &Snapshot{Server: server, ProtocolVersion: protocolVersion, Source: source}
	for i := range tools {
		t := &tools[i]
		s.Tools = append(s.Tools, Tool{
			Name:         t.Name,
			Title:        t.Title,
			Description:  t.Description,
			InputSchema:  t.InputSchema,
			OutputSchema: t.OutputSchema,
			Annotations:  t.Annotations,
			Raw:          t.Raw,
		})
	}
	return s
}

// Marshal encodes s in mcpgen's canonical snapshot format: a header (server
// name and version, protocol version, source) and the tools, sorted by name,
// each with its keys and its schemas' keys in the order the server sent
// them. The JSON is indented by two spaces and ends with a newline; it holds
// no timestamps, so the same tool list always gives the same bytes.
func Marshal(s *Snapshot) ([]byte, error) {
	tools := make([]*Tool, len(s.Tools))
	for i := range s.Tools {
		tools[i] = &s.Tools[i]
	}
	slices.SortStableFunc(tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })

	var b bytes.Buffer
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"server\": {\n    \"name\": %s,\n    \"version\": %s\n  },\n",
		jsonString(s.Server.Name), jsonString(s.Server.Version))
	fmt.Fprintf(&b, "  \"protocolVersion\": %s,\n", jsonString(s.ProtocolVersion))
	fmt.Fprintf(&b, "  \"source\": %s,\n", jsonString(s.Source))
	if len(tools) == 0 {
		b.WriteString("  \"tools\": []\n}\n")
		return b.Bytes(), nil
	}
	b.WriteString("  \"tools\": [\n")
	for i, t := range tools {
		raw, err := toolJSON(t)
		if err != nil {
			return nil, fmt.Errorf("encoding tool %q: %w", t.Name, err)
		}
		b.WriteString("    ")
		if err := json.Indent(&b, raw, "    ", "  "); err != nil {
			return nil, fmt.Errorf("encoding tool %q: %w", t.Name, err)
		}
		if i < len(tools)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// Write writes s to w in the canonical snapshot format (see Marshal).
func Write(w io.Writer, s *Snapshot) error {
	data, err := Marshal(s)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// toolJSON returns the tool object as sent (Raw), or builds one from the
// known fields when Raw is empty.
func toolJSON(t *Tool) ([]byte, error) {
	if raw := bytes.TrimSpace(t.Raw); len(raw) > 0 {
		if !json.Valid(raw) {
			return nil, fmt.Errorf("tool object is not valid JSON")
		}
		return raw, nil
	}
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	b.WriteString(jsonString(t.Name))
	if t.Title != "" {
		b.WriteString(`,"title":`)
		b.WriteString(jsonString(t.Title))
	}
	if t.Description != "" {
		b.WriteString(`,"description":`)
		b.WriteString(jsonString(t.Description))
	}
	members := []struct {
		key string
		raw json.RawMessage
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}, {"annotations", t.Annotations}}
	for _, m := range members {
		raw := bytes.TrimSpace(m.raw)
		if len(raw) == 0 {
			if m.key != "inputSchema" {
				continue
			}
			raw = []byte(`{"type":"object"}`)
		}
		if !json.Valid(raw) {
			return nil, fmt.Errorf("%s is not valid JSON", m.key)
		}
		fmt.Fprintf(&b, ",%q:", m.key)
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonString encodes s as a JSON string without escaping <, > and &, so that
// descriptions stay readable in reviews.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}
