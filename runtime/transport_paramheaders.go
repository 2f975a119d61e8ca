package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/integral"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Custom headers from tool parameters (2026-07-28, Streamable HTTP): a
// property of a tool's input schema may carry "x-mcp-header": "Region", and
// a tools/call over Streamable HTTP then mirrors that argument into the
// header Mcp-Param-Region, so that intermediaries can route on it without
// reading the body. A tool whose annotations break the rules is left out of
// the tool list.

// ParamHeader is one Mcp-Param-* header of a request: Name is the part after
// the prefix, as the tool's schema spells it, and Value the argument's
// value, not yet encoded for a header field.
type ParamHeader struct {
	Name  string
	Value string
}

// paramHeader is one x-mcp-header annotation: the header name and the
// property keys leading from the root of the arguments to the value.
type paramHeader struct {
	name string
	path []string
}

// paramHeaders returns the x-mcp-header annotations of a tool's input
// schema, or why they make the tool invalid.
func paramHeaders(schema []byte) ([]paramHeader, error) {
	w := &annotationWalk{}
	if err := w.visit(schema, nil, true, "", 0); err != nil {
		return nil, err
	}
	return w.found, nil
}

type annotationWalk struct {
	found []paramHeader
}

// subschemaKeys are the keywords other than properties whose value is a
// schema or an array of schemas (false), or an object of schemas (true). An
// annotation under any of them is not reachable through properties alone.
var subschemaKeys = map[string]bool{
	"items": false, "prefixItems": false, "additionalItems": false, "contains": false,
	"additionalProperties": false, "propertyNames": false,
	"unevaluatedItems": false, "unevaluatedProperties": false,
	"anyOf": false, "oneOf": false, "allOf": false, "not": false,
	"if": false, "then": false, "else": false,
	"$defs": true, "definitions": true, "patternProperties": true,
	"dependentSchemas": true, "dependencies": true,
}

// maxAnnotationDepth bounds the walk; Go's JSON decoder already refused
// anything deeper when the tool was read.
const maxAnnotationDepth = 10000

// visit walks the schema v found at pointer ptr. path is the chain of
// property names from the root while reachable is set.
func (w *annotationWalk) visit(v []byte, path []string, reachable bool, ptr string, depth int) error {
	if depth > maxAnnotationDepth {
		return errors.New("the input schema nests too deeply")
	}
	v = jsonrpc.TrimSpace(v)
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '[':
		i := 0
		return jsonrpc.ArrayEach(v, func(item []byte) error {
			err := w.visit(item, nil, false, ptr+"/"+strconv.Itoa(i), depth+1)
			i++
			return err
		})
	case '{':
	default:
		return nil
	}
	var annotation, typ []byte
	err := jsonrpc.ObjectEach(v, func(key []byte, escaped bool, val []byte) error {
		k, err := jsonrpc.Key(key, escaped)
		if err != nil {
			return err
		}
		name := string(k)
		switch name {
		case "x-mcp-header":
			annotation = val
		case "type":
			typ = val
		case "properties":
			if t := jsonrpc.TrimSpace(val); len(t) == 0 || t[0] != '{' {
				return nil
			}
			return jsonrpc.ObjectEach(val, func(pkey []byte, pescaped bool, pval []byte) error {
				pk, err := jsonrpc.Key(pkey, pescaped)
				if err != nil {
					return err
				}
				var sub []string
				if reachable {
					sub = append(path[:len(path):len(path)], string(pk))
				}
				return w.visit(pval, sub, reachable, ptr+"/properties/"+jsontree.EscapeToken(string(pk)), depth+1)
			})
		}
		isMap, ok := subschemaKeys[name]
		switch {
		case !ok:
		case isMap && jsonrpc.TrimSpace(val)[0] == '{':
			return jsonrpc.ObjectEach(val, func(mkey []byte, mescaped bool, mval []byte) error {
				mk, err := jsonrpc.Key(mkey, mescaped)
				if err != nil {
					return err
				}
				return w.visit(mval, nil, false, ptr+"/"+jsontree.EscapeToken(name)+"/"+jsontree.EscapeToken(string(mk)), depth+1)
			})
		case !isMap:
			return w.visit(val, nil, false, ptr+"/"+jsontree.EscapeToken(name), depth+1)
		}
		return nil
	})
	if err != nil || annotation == nil {
		return err
	}
	return w.add(annotation, typ, path, reachable, ptr)
}

// add checks one annotation and records it.
func (w *annotationWalk) add(annotation, typ []byte, path []string, reachable bool, ptr string) error {
	name, err := jsonrpc.String(annotation)
	where := plainOrQuoted(ptr + "/x-mcp-header")
	switch {
	case err != nil:
		return fmt.Errorf("%s: the annotation is not a string", where)
	case !isToken(name):
		return fmt.Errorf("%s: %s is not a valid header name", where, redact.Quote(name))
	case !reachable || len(path) == 0:
		return fmt.Errorf("%s: %s is not on a property reached through properties alone", where, redact.Quote(name))
	}
	if t := primitiveType(typ); t == "" {
		return fmt.Errorf("%s: %s is on a property of type %s; only string, integer and boolean properties may be annotated", where, redact.Quote(name), typeText(typ))
	}
	for _, h := range w.found {
		if strings.EqualFold(h.name, name) {
			return fmt.Errorf("%s: %s repeats the header of property %s", where, redact.Quote(name), plainOrQuoted(strings.Join(h.path, ".")))
		}
	}
	w.found = append(w.found, paramHeader{name: name, path: path})
	return nil
}

// primitiveType returns the annotated property's type when it is string,
// integer or boolean, possibly with null beside it; otherwise "".
func primitiveType(typ []byte) string {
	if typ == nil {
		return ""
	}
	if s, err := jsonrpc.String(typ); err == nil {
		if s == "string" || s == "integer" || s == "boolean" {
			return s
		}
		return ""
	}
	var found string
	err := jsonrpc.ArrayEach(typ, func(item []byte) error {
		s, err := jsonrpc.String(item)
		switch {
		case err != nil:
			return err
		case s == "null":
		case found == "" && (s == "string" || s == "integer" || s == "boolean"):
			found = s
		default:
			return errors.New("more than one type")
		}
		return nil
	})
	if err != nil {
		return ""
	}
	return found
}

func typeText(typ []byte) string {
	if typ == nil {
		return "any (no type)"
	}
	return plainOrQuoted(string(typ))
}

// plainOrQuoted returns server text for an error: as it is when it is short
// and printable ASCII, as a JSON pointer or a type usually is, and quoted
// by redact.Quote otherwise.
func plainOrQuoted(s string) string {
	if len(s) > redact.MaxQuoted {
		return redact.Quote(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return redact.Quote(s)
		}
	}
	return s
}

// isToken reports whether s is an HTTP token (RFC 9110, 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// appendParamHeaders appends the header of each annotation whose argument
// is present in args (a JSON object) and not null.
func appendParamHeaders(dst []ParamHeader, hs []paramHeader, args []byte) []ParamHeader {
	for _, h := range hs {
		if v, ok := headerValue(lookup(args, h.path)); ok {
			dst = append(dst, ParamHeader{Name: h.name, Value: v})
		}
	}
	return dst
}

// lookup returns the value at path in the JSON object v, or nil.
func lookup(v []byte, path []string) []byte {
	for _, key := range path {
		var next []byte
		err := jsonrpc.ObjectEach(v, func(k []byte, escaped bool, val []byte) error {
			if next == nil && jsonrpc.KeyIs(k, escaped, key) {
				next = val
			}
			return nil
		})
		if err != nil || next == nil {
			return nil
		}
		v = next
	}
	return v
}

// headerValue renders a JSON scalar as a header value: strings as they are,
// integers in decimal, booleans as true or false. Null, objects and arrays
// give no header.
func headerValue(v []byte) (string, bool) {
	v = jsonrpc.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		s, err := jsonrpc.String(v)
		return s, err == nil
	case 't', 'f':
		b, err := jsonrpc.Bool(v)
		return strconv.FormatBool(b), err == nil
	case 'n', '{', '[':
		return "", false
	}
	if n, ok := integral.Literal(string(v)); ok {
		return n, true
	}
	// Not an integer: the server's validation answers that; the header
	// carries the number as written.
	return string(v), true
}

// toolParams is what the last tool listing said of one tool's x-mcp-header
// annotations.
type toolParams struct {
	headers []paramHeader
	invalid error // why the tool was left out of the list
}

// usesParamHeaders reports whether tools/call requests under st carry
// Mcp-Param-* headers: on Streamable HTTP in the 2026-07-28 era.
func (s *Session) usesParamHeaders(st *negotiated) bool { return s.cc.SendsParamHeaders && !st.legacy }

// learnParamHeaders records the annotations of tools and returns tools
// without those whose annotations are invalid, which it logs.
func (s *Session) learnParamHeaders(tools []Tool) []Tool {
	m := make(map[string]toolParams, len(tools))
	kept := tools[:0]
	for _, t := range tools {
		hs, err := paramHeaders(t.InputSchema)
		if err != nil {
			s.log.Warn("left a tool out of the tool list: its x-mcp-header annotation is invalid", "tool", t.Name, "reason", err.Error())
			m[t.Name] = toolParams{invalid: err}
			continue
		}
		m[t.Name] = toolParams{headers: hs}
		kept = append(kept, t)
	}
	s.toolParams.Store(&m)
	return kept
}

// callParams returns the Mcp-Param-* headers of a call of the tool name with
// the arguments args. When no listing has taught the Session the tools'
// annotations yet, or when relist is set because the server found the
// headers wrong, it lists the tools first; concurrent calls share one
// listing.
func (s *Session) callParams(ctx context.Context, name string, args []byte, relist bool) ([]ParamHeader, error) {
	m := s.toolParams.Load()
	if m == nil || relist {
		s.listMu.Lock()
		if s.toolParams.Load() == m {
			if _, err := s.listTools(ctx); err != nil {
				var de *DriftError
				if !errors.As(err, &de) {
					s.log.Warn("could not list the tools to learn their x-mcp-header annotations", "tool", name, "error", err.Error())
					empty := map[string]toolParams{}
					s.toolParams.CompareAndSwap(m, &empty)
				}
			}
		}
		s.listMu.Unlock()
		m = s.toolParams.Load()
		if m == nil {
			// The listing found the server in the legacy era (see
			// eraCheck), in which no Mcp-Param-* headers are sent.
			return nil, nil
		}
	}
	tp := (*m)[name]
	if tp.invalid != nil {
		return nil, fmt.Errorf("the server's tool list left this tool out: its x-mcp-header annotation is invalid: %w", tp.invalid)
	}
	return appendParamHeaders(nil, tp.headers, args), nil
}

// isHeaderMismatch reports whether err is the server's -32020 answer.
func isHeaderMismatch(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Code == CodeHeaderMismatch
}
