// Package snapshot reads the tool lists mcpgen generates code from.
//
// A snapshot is the answer of an MCP server to tools/list, saved as JSON. Four
// shapes are read: a whole JSON-RPC response ({"jsonrpc","id","result":
// {"tools":[...]}}), a bare result ({"tools":[...]}), a bare array of tools,
// and mcpgen's own canonical snapshot, which is a bare result with a header
// ({"server":{...},"protocolVersion":...,"source":...,"tools":[...]}).
// A response or result with a nextCursor is one page of a longer list, and
// is refused.
//
// Each tool keeps the exact bytes the server sent, so that schemas keep their
// key order and unknown keys. Bad input is reported with the file name and
// the JSON pointer of the offending value, or with line and column for
// malformed JSON.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/parallel"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/runtime"
)

// Server names the server a snapshot was taken from.
type Server struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// Snapshot is a tool list with the header of a canonical snapshot. Header
// fields are empty when the file has none.
type Snapshot struct {
	Server          Server
	ProtocolVersion string
	// Source is the command or URL the snapshot was captured from.
	Source string
	// Tools are the tools in file order.
	Tools []Tool
	// Prompts and ResourceTemplates are the server's prompts and resource
	// templates, in file order. Each is nil when the file has no such
	// member, as a snapshot taken before mcpgen captured them (Capture
	// records empty lists), and then says nothing of them. Only an object
	// snapshot can hold them.
	Prompts           []Prompt
	ResourceTemplates []ResourceTemplate
}

// Tool is one tool of a snapshot.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema, OutputSchema and Annotations are the exact bytes of those
	// members; OutputSchema and Annotations are nil when absent.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
	// Raw is the whole tool object, unknown keys included.
	Raw json.RawMessage
	// Pointer is the JSON pointer of the tool within its file, such as
	// "/result/tools/3".
	Pointer string
	// Input and Output are the parsed schemas, key order kept; Output is nil
	// when the tool has no output schema.
	Input, Output *jsontree.Node
}

// Runtime returns the tool as the runtime package describes it.
func (t *Tool) Runtime() runtime.Tool {
	return runtime.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Annotations:  t.Annotations,
		Raw:          t.Raw,
	}
}

// RuntimeTools returns every tool of s as the runtime package describes it,
// in file order.
func (s *Snapshot) RuntimeTools() []runtime.Tool {
	out := make([]runtime.Tool, len(s.Tools))
	for i := range s.Tools {
		out[i] = s.Tools[i].Runtime()
	}
	return out
}

// Inputs returns each tool's parsed input schema, in the order of Tools.
func (s *Snapshot) Inputs() []*jsontree.Node {
	out := make([]*jsontree.Node, len(s.Tools))
	for i := range s.Tools {
		out[i] = s.Tools[i].Input
	}
	return out
}

// Error is a problem with a snapshot file. It names the file and either the
// JSON pointer or the line and column of the problem.
type Error struct {
	File    string
	Pointer string
	// Line and Column locate malformed JSON; they are zero otherwise.
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("%s: %s: %s", e.File, p, e.Msg)
}

// MaxFileSize bounds the size of a snapshot, in bytes: 64 MiB, eighteen
// times the largest tool list of the servers in testdata, so that a wrong
// file (a 200 MB log, /dev/zero) is refused instead of read whole.
const MaxFileSize = 64 << 20

// ReadFile reads the snapshot at path. Errors name the path as given.
func ReadFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	defer f.Close()
	data, err := ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	return Read(path, data)
}

// ReadAll reads the bytes of a snapshot from r, no more than one byte
// beyond MaxFileSize: Read refuses a larger snapshot, and the rest of it is
// never read.
func ReadAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, MaxFileSize+1))
}

// Read parses a snapshot. name is the file name used in errors. A UTF-8
// byte order mark at the start, which some editors write and RFC 8259 lets
// a reader ignore, is skipped.
func Read(name string, data []byte) (*Snapshot, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	fail := func(ptr, format string, args ...any) error {
		return &Error{File: name, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxFileSize {
		return nil, fail("", "the snapshot is larger than %d bytes (snapshot.MaxFileSize)", MaxFileSize)
	}
	doc, err := jsontree.Parse(data)
	if err != nil {
		var se *jsontree.SyntaxError
		if errors.As(err, &se) {
			if ptr, lit, ok := numberBeyondFloat64(data); ok {
				return nil, fail(ptr, "the number %s is beyond the range of a float64, which mcpgen reads JSON numbers as", lit)
			}
			return nil, &Error{File: name, Line: se.Line, Column: se.Column, Msg: "malformed JSON: " + se.Msg}
		}
		var de *jsontree.DuplicateKeyError
		if errors.As(err, &de) {
			return nil, fail(de.Pointer, "%v", de)
		}
		return nil, fail("", "%v", err)
	}
	s := &Snapshot{}
	var list *jsontree.Node
	var listPtr string
	var rawList []json.RawMessage
	var result *jsontree.Node
	var resultPtr string
	var rawResult []byte
	switch doc.Kind {
	case jsontree.Array:
		list, listPtr = doc, ""
		rawList = rawItems(data)
	case jsontree.Object:
		result, resultPtr, rawResult = doc, "", data
		if r := doc.Get("result"); r != nil {
			if r.Kind != jsontree.Object {
				return nil, fail("/result", "result is a JSON %s, want an object", r.Kind)
			}
			result, resultPtr, rawResult = r, "/result", rawMember(data, "result")
		} else if doc.Get("error") != nil {
			return nil, fail("/error", "the response is a JSON-RPC error, not a tool list: %s", doc.Get("error"))
		}
		list, listPtr = result.Get("tools"), resultPtr+"/tools"
		if list == nil {
			return nil, fail(resultPtr, "no tools member: want a tools/list response, its result, or an array of tools")
		}
		if list.Kind != jsontree.Array {
			return nil, fail(listPtr, "tools is a JSON %s, want an array", list.Kind)
		}
		// A cursor, even an empty one, says the server has more pages
		// (the Session follows it); a package generated from the first
		// would lack the other tools, and its SnapshotHash would never
		// match the server's.
		if c := result.Get("nextCursor"); c != nil && c.Kind != jsontree.Null {
			return nil, fail(resultPtr+"/nextCursor", "the tool list is one page of several (nextCursor is set), and the tools of the other pages are missing: capture the whole list with mcpgen snapshot")
		}
		if err := readHeader(doc, s); err != nil {
			return nil, fail(err.ptr, "%s", err.msg)
		}
		rawList = rawItems(rawMember(rawResult, "tools"))
	default:
		return nil, fail("", "snapshot is a JSON %s, want an object or an array of tools", doc.Kind)
	}
	if len(rawList) != len(list.Items) {
		return nil, fail(listPtr, "tools cannot be read: %d raw items for %d parsed", len(rawList), len(list.Items))
	}
	// Each tool is read on its own, on every processor; the first problem
	// in the list's order is the one reported.
	tools := make([]*Tool, len(list.Items))
	errs := make([]*readErr, len(list.Items))
	parallel.For(len(list.Items), func(i int) {
		tools[i], errs[i] = readTool(list.Items[i], rawList[i], listPtr+"/"+strconv.Itoa(i))
	})
	seen := make(map[string]string, len(list.Items))
	if len(tools) > 0 {
		s.Tools = make([]Tool, 0, len(tools))
	}
	for i, t := range tools {
		ptr := listPtr + "/" + strconv.Itoa(i)
		if err := errs[i]; err != nil {
			return nil, fail(err.ptr, "%s", err.msg)
		}
		if first, dup := seen[t.Name]; dup {
			return nil, fail(ptr+"/name", "duplicate tool name %q (first at %s)", t.Name, first)
		}
		seen[t.Name] = ptr
		s.Tools = append(s.Tools, *t)
	}
	if result != nil {
		if err := readListings(result, resultPtr, rawResult, s); err != nil {
			return nil, fail(err.ptr, "%s", err.msg)
		}
	}
	return s, nil
}

type readErr struct{ ptr, msg string }

func errAt(ptr, format string, args ...any) *readErr {
	return &readErr{ptr, fmt.Sprintf(format, args...)}
}

func readHeader(doc *jsontree.Node, s *Snapshot) *readErr {
	str := func(v *jsontree.Node, ptr string) (string, *readErr) {
		if v == nil {
			return "", nil
		}
		if v.Kind != jsontree.String {
			return "", errAt(ptr, "want a string, got a JSON %s", v.Kind)
		}
		return v.Str, nil
	}
	var err *readErr
	if srv := doc.Get("server"); srv != nil {
		if srv.Kind != jsontree.Object {
			return errAt("/server", "server is a JSON %s, want an object", srv.Kind)
		}
		if s.Server.Name, err = str(srv.Get("name"), "/server/name"); err != nil {
			return err
		}
		if s.Server.Version, err = str(srv.Get("version"), "/server/version"); err != nil {
			return err
		}
	}
	if s.ProtocolVersion, err = str(doc.Get("protocolVersion"), "/protocolVersion"); err != nil {
		return err
	}
	if s.Source, err = str(doc.Get("source"), "/source"); err != nil {
		return err
	}
	return nil
}

func readTool(item *jsontree.Node, raw json.RawMessage, ptr string) (*Tool, *readErr) {
	if item.Kind != jsontree.Object {
		return nil, errAt(ptr, "tool is a JSON %s, want an object", item.Kind)
	}
	t := &Tool{Raw: bytes.TrimSpace(raw), Pointer: ptr}
	members := rawMembers(raw, "inputSchema", "outputSchema", "annotations")
	name := item.Get("name")
	switch {
	case name == nil:
		return nil, errAt(ptr, "tool has no name")
	case name.Kind != jsontree.String:
		return nil, errAt(ptr+"/name", "tool name is a JSON %s, want a string", name.Kind)
	case strings.TrimSpace(name.Str) == "":
		return nil, errAt(ptr+"/name", "tool name is empty")
	}
	t.Name = name.Str
	if err := t.CheckName(); err != nil {
		return nil, errAt(ptr+"/name", "%v", err)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"title", &t.Title}, {"description", &t.Description}} {
		v := item.Get(f.key)
		if v == nil || v.Kind == jsontree.Null {
			continue
		}
		if v.Kind != jsontree.String {
			return nil, errAt(ptr+"/"+f.key, "%s of tool %q is a JSON %s, want a string", f.key, t.Name, v.Kind)
		}
		*f.dst = v.Str
	}
	in := item.Get("inputSchema")
	if in == nil {
		return nil, errAt(ptr, "tool %q has no inputSchema", t.Name)
	}
	if in.Kind != jsontree.Object {
		return nil, errAt(ptr+"/inputSchema", "inputSchema of tool %q is a JSON %s, want an object", t.Name, in.Kind)
	}
	if typ := in.Get("type"); typ != nil && !(typ.Kind == jsontree.String && typ.Str == "object") {
		return nil, errAt(ptr+"/inputSchema/type", "inputSchema of tool %q has type %s, want \"object\"", t.Name, typ)
	}
	if e := checkRefs(in, in, ptr+"/inputSchema"); e != nil {
		return nil, e
	}
	t.Input = in
	t.InputSchema = bytes.TrimSpace(members[0])
	if out := item.Get("outputSchema"); out != nil && out.Kind != jsontree.Null {
		if out.Kind != jsontree.Object {
			return nil, errAt(ptr+"/outputSchema", "outputSchema of tool %q is a JSON %s, want an object", t.Name, out.Kind)
		}
		if e := checkRefs(out, out, ptr+"/outputSchema"); e != nil {
			return nil, e
		}
		t.Output = out
		t.OutputSchema = bytes.TrimSpace(members[1])
	}
	if a := item.Get("annotations"); a != nil && a.Kind != jsontree.Null {
		t.Annotations = bytes.TrimSpace(members[2])
	}
	return t, nil
}

// numberBeyondFloat64 finds the first number of the JSON text data that a
// float64 cannot hold, which jsontree.Parse refuses as a syntax error (see
// jsontree.BeyondFloat64). ok is false when data is not well-formed JSON,
// or holds no such number.
func numberBeyondFloat64(data []byte) (ptr, lit string, ok bool) {
	doc, err := jsontree.ParseUnique(data)
	if err != nil {
		return "", "", false
	}
	return jsontree.BeyondFloat64(doc)
}

// CheckRefs reports the first reference of the schema document doc that
// would need a fetch (see checkRefs), as a JSON pointer within doc and a
// message; msg is empty when there is none.
func CheckRefs(doc *jsontree.Node) (ptr, msg string) {
	if e := checkRefs(doc, doc, ""); e != nil {
		return e.ptr, e.msg
	}
	return "", ""
}

// checkRefs reports the first $ref under v that does not resolve within
// root, the first $dynamicRef or $recursiveRef that points outside it, and
// the first $schema that names no draft the validator embeds: each would
// need a fetch, which mcpgen never does. ptr is v's pointer within the file.
func checkRefs(root, v *jsontree.Node, ptr string) *readErr {
	r := refChecker{root: root, ptr: ptr}
	return r.check(v)
}

// refChecker walks a schema for checkRefs. It keeps the keys and indexes
// that lead to the current value, unescaped, and builds a pointer from them
// only for an error.
type refChecker struct {
	root *jsontree.Node
	ptr  string
	path []string
}

// at returns the pointer of the current value's member key.
func (r *refChecker) at(key string) string {
	var b strings.Builder
	b.WriteString(r.ptr)
	for _, tok := range r.path {
		b.WriteByte('/')
		b.WriteString(jsontree.EscapeToken(tok))
	}
	b.WriteByte('/')
	b.WriteString(jsontree.EscapeToken(key))
	return b.String()
}

func (r *refChecker) check(v *jsontree.Node) *readErr {
	switch v.Kind {
	case jsontree.Object:
		for _, m := range v.Members {
			if m.Value.Kind == jsontree.String {
				switch m.Key {
				case "$ref":
					if _, _, err := schema.Resolve(r.root, m.Value.Str); err != nil {
						return errAt(r.at(m.Key), "%v", err)
					}
					continue
				case "$dynamicRef", "$recursiveRef":
					if !isLocalRef(r.root, m.Value.Str) {
						return errAt(r.at(m.Key), "%s %q points outside the schema, which mcpgen does not fetch", m.Key, m.Value.Str)
					}
					continue
				case "$schema":
					if !knownMetaSchema(m.Value.Str) {
						return errAt(r.at(m.Key), "$schema %q is not a JSON Schema draft mcpgen knows (draft-04, -06, -07, 2019-09, 2020-12), and its meta-schema is never fetched", m.Value.Str)
					}
					continue
				}
			}
			if schema.DataKeywords[m.Key] || m.Value.Kind != jsontree.Object && m.Value.Kind != jsontree.Array {
				continue
			}
			r.path = append(r.path, m.Key)
			e := r.check(m.Value)
			r.path = r.path[:len(r.path)-1]
			if e != nil {
				return e
			}
		}
	case jsontree.Array:
		for i, it := range v.Items {
			if it.Kind != jsontree.Object && it.Kind != jsontree.Array {
				continue
			}
			r.path = append(r.path, strconv.Itoa(i))
			e := r.check(it)
			r.path = r.path[:len(r.path)-1]
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// isLocalRef reports whether ref is a fragment of the schema document root
// itself ("#...", or the root's $id followed by "#...").
func isLocalRef(root *jsontree.Node, ref string) bool {
	if strings.HasPrefix(ref, "#") {
		return true
	}
	id := root.Get("$id")
	return id != nil && id.Kind == jsontree.String && strings.HasPrefix(ref, id.Str+"#")
}

// knownMetaSchema reports whether url names one of the JSON Schema drafts
// whose meta-schemas the validator embeds, with or without an empty
// fragment, over http or https.
func knownMetaSchema(url string) bool {
	u := strings.TrimSuffix(url, "#")
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else {
		return false
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2019-09/schema",
		"json-schema.org/draft-07/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-04/schema":
		return true
	}
	return false
}
