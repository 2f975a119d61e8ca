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
// them; then, when s has them (not nil), the prompts sorted by name and the
// resource templates sorted by name and URI template, each as the server
// sent it. The JSON is indented by two spaces and ends with a newline; it holds
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
	raws := make([][]byte, len(tools))
	for i, t := range tools {
		raw, err := toolJSON(t)
		if err != nil {
			return nil, fmt.Errorf("encoding tool %q: %w", t.Name, err)
		}
		raws[i] = raw
	}
	if err := writeList(&b, "tools", raws, true); err != nil {
		return nil, err
	}
	if s.Prompts != nil {
		prompts := slices.Clone(s.Prompts)
		slices.SortStableFunc(prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
		raws := make([][]byte, len(prompts))
		for i := range prompts {
			raw, err := promptJSON(&prompts[i])
			if err != nil {
				return nil, fmt.Errorf("encoding prompt %q: %w", prompts[i].Name, err)
			}
			raws[i] = raw
		}
		if err := writeList(&b, "prompts", raws, false); err != nil {
			return nil, err
		}
	}
	if s.ResourceTemplates != nil {
		templates := slices.Clone(s.ResourceTemplates)
		slices.SortStableFunc(templates, func(a, b ResourceTemplate) int {
			if c := strings.Compare(a.Name, b.Name); c != 0 {
				return c
			}
			return strings.Compare(a.URITemplate, b.URITemplate)
		})
		raws := make([][]byte, len(templates))
		for i := range templates {
			raw, err := templateJSON(&templates[i])
			if err != nil {
				return nil, fmt.Errorf("encoding resource template %q: %w", templates[i].Name, err)
			}
			raws[i] = raw
		}
		if err := writeList(&b, "resourceTemplates", raws, false); err != nil {
			return nil, err
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// writeList writes the member key of a canonical snapshot, an array of the
// objects raws, indented; first tells whether it is the first member after
// the header, which needs no separating comma.
func writeList(b *bytes.Buffer, key string, raws [][]byte, first bool) error {
	if !first {
		b.WriteString(",\n")
	}
	fmt.Fprintf(b, "  %q: [", key)
	if len(raws) == 0 {
		b.WriteString("]")
		return nil
	}
	b.WriteString("\n")
	for i, raw := range raws {
		b.WriteString("    ")
		if err := json.Indent(b, raw, "    ", "  "); err != nil {
			return fmt.Errorf("encoding %s: %w", key, err)
		}
		if i < len(raws)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]")
	return nil
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

// promptJSON returns the prompt object as sent (Raw), or builds one from
// the known fields when Raw is empty.
func promptJSON(p *Prompt) ([]byte, error) {
	if raw := bytes.TrimSpace(p.Raw); len(raw) > 0 {
		if !json.Valid(raw) {
			return nil, fmt.Errorf("prompt object is not valid JSON")
		}
		return raw, nil
	}
	type arg struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
	}
	out := struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Arguments   []arg  `json:"arguments,omitempty"`
	}{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, arg(a))
	}
	return marshalNoEscape(out)
}

// templateJSON returns the template object as sent (Raw), or builds one
// from the known fields when Raw is empty.
func templateJSON(t *ResourceTemplate) ([]byte, error) {
	if raw := bytes.TrimSpace(t.Raw); len(raw) > 0 {
		if !json.Valid(raw) {
			return nil, fmt.Errorf("resource template object is not valid JSON")
		}
		return raw, nil
	}
	return marshalNoEscape(struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
	}{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType})
}

// marshalNoEscape encodes v as JSON without escaping <, > and &.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
