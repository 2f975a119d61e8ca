package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// DeclarationOptions tune Declarations. A nil *DeclarationOptions means the
// zero value: the typed Parameters form.
type DeclarationOptions struct {
	// JSONSchema declares every tool's parameters in the JSON Schema form
	// (FunctionDeclaration.ParametersJsonSchema, the server's schema bytes
	// as they are) instead of the typed Parameters form.
	JSONSchema bool
	// Search, when set, puts a Toolset in deferred mode: each request
	// declares the pinned tools, the tools found so far and a search
	// function, "search_tools", that the Toolset answers itself (see
	// runtime.ToolSearch; Gemini has no search of its own, so Native is
	// ignored). Declarations ignores it.
	Search *runtime.ToolSearch
}

// nameRules are the function names Gemini accepts: a letter or '_', then
// letters, digits, '_', '.', ':' or '-', at most 64 characters (the API
// enforces 64, though the SDK documents 128).
var nameRules = toolname.Rules{
	MaxLen: 64,
	First:  func(c byte) bool { return toolname.IsLetter(c) || c == '_' },
	Rest: func(c byte) bool {
		return toolname.IsLetter(c) || toolname.IsDigit(c) || c == '_' || c == '.' || c == ':' || c == '-'
	},
	Prefix: "_",
}

// ValidName reports whether Gemini accepts name as a function name as it is.
// Declarations keeps such names, and rewrites the others.
func ValidName(name string) bool { return nameRules.Valid(name) }

// Declarations returns one function declaration per tool, in the order of
// tools, and a map from each declared function name to the MCP tool name.
//
// Names Gemini rejects (see ValidName) are rewritten: each disallowed
// character becomes '_', a name that starts with neither a letter nor '_'
// gets a '_' in front, and a name that is too long, or taken, ends in '_'
// and six hex digits of a hash of the MCP name. Valid names are kept.
// An empty description is replaced by the tool's title, or by a sentence made
// from its name.
//
// The typed form follows what the Gemini API accepts: local $refs are
// inlined (a recursive one is expanded twice, and the property that would
// nest it again is left out, which its object's description says); allOf is
// merged; oneOf becomes anyOf; a type list with "null" becomes the type plus
// Nullable, and several types become anyOf with one branch per type; enums
// are string-only, so the allowed values of a number or boolean move to the
// description; const becomes a one-value enum (strings) or a description
// note; exclusive bounds, multipleOf, pattern, uniqueItems, default and
// formats other than date-time also move to the description; an array
// without items gets string items, and a schema that accepts any value is
// declared as a string, both saying so. A tool without parameters has nil
// Parameters.
//
// A tool the typed form cannot describe without changing which arguments
// are valid is declared in the JSON Schema form instead, so that what the
// model sends still passes the server's schema: a property name Gemini
// rejects (such as "auth-method" or "$filter"; renaming it would need every
// caller to rename arguments back), an object with no declared properties
// below the top level or, at the top level, one with a schema for its
// undeclared keys (a free-form map), a tuple array, a union at the top
// level, or a schema too large to expand.
//
// The error names the tool and the JSON pointer of the part that cannot be
// converted: an external or dangling $ref, allOf branches that contradict
// each other, an input schema that is not an object.
func Declarations(tools []runtime.Tool, opts *DeclarationOptions) ([]*genai.FunctionDeclaration, map[string]string, error) {
	if opts == nil {
		opts = &DeclarationOptions{}
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	declared, err := toolname.Assign(names, nameRules)
	if err != nil {
		return nil, nil, fmt.Errorf("declaring tools for Gemini: %w", err)
	}
	decls := make([]*genai.FunctionDeclaration, len(tools))
	errs := make([]error, len(tools))
	eachTool(len(tools), func(i int) {
		t := tools[i]
		d := &genai.FunctionDeclaration{Name: declared[i], Description: ToolDescription(t)}
		errs[i] = setParameters(d, t, opts.JSONSchema)
		decls[i] = d
	})
	reverse := make(map[string]string, len(tools))
	for i, t := range tools {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		reverse[declared[i]] = t.Name
	}
	return decls, reverse, nil
}

// parallelTools is the number of tools from which Declarations converts
// them on every processor: a server of hundreds of tools with large
// schemas takes a good part of a second on one.
const parallelTools = 64

// eachTool calls f for 0 ≤ i < n, on up to GOMAXPROCS goroutines when n
// reaches parallelTools. Each call must touch only its own index's data.
func eachTool(n int, f func(i int)) {
	workers := goruntime.GOMAXPROCS(0)
	if n < parallelTools || workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// setParameters fills Parameters or ParametersJsonSchema.
func setParameters(d *genai.FunctionDeclaration, t runtime.Tool, jsonSchema bool) error {
	raw := bytes.TrimSpace(t.InputSchema)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	root, err := jsontree.ParseUnique(raw)
	if err != nil {
		return fmt.Errorf("tool %s: reading input schema: %w", t.Name, err)
	}
	root = schema.StaticRefs(root)
	c := &converter{tool: t.Name, root: root}
	var refs []string
	flat, err := c.flatten(root, nil, &refs)
	if err != nil {
		return err
	}
	// A type that names no type (an object, a number, []) is not object
	// either.
	if typ := flat.Get("type"); typ != nil && !containsString(schema.Types(typ), "object") {
		return fmt.Errorf("tool %s: input schema at (root): type is %s, not object", t.Name, typ.String())
	}
	if !hasParameters(flat) {
		return nil
	}
	if jsonSchema {
		d.ParametersJsonSchema = json.RawMessage(jsontree.AppendCompact(make([]byte, 0, len(raw)), raw))
		return nil
	}
	s, pr, err := c.convert(root, nil, 0)
	if err != nil {
		return err
	}
	if pr == nil && len(s.AnyOf) > 0 {
		c.fallbackf(nil, "a union at the top level has no typed form")
	}
	if ap := flat.Get("additionalProperties"); ap != nil && ap.Kind == jsontree.Object && len(ap.Members) > 0 && (pr != nil || len(s.Properties) == 0) {
		c.fallbackf(nil, "an object whose keys are not declared has no typed form")
	}
	if c.fallback != "" {
		d.ParametersJsonSchema = json.RawMessage(jsontree.AppendCompact(make([]byte, 0, len(raw)), raw))
		return nil
	}
	if pr != nil || s.Type != genai.TypeObject || len(s.Properties) == 0 {
		return nil
	}
	s.Nullable = nil
	d.Parameters = s
	return nil
}

// hasParameters reports whether a flattened root schema declares any
// parameter: properties, a union, or a schema for other keys.
func hasParameters(flat *jsontree.Node) bool {
	if p := flat.Get("properties"); p != nil && p.Kind == jsontree.Object && len(p.Members) > 0 {
		return true
	}
	if flat.Has("anyOf") || flat.Has("oneOf") {
		return true
	}
	if ap := flat.Get("additionalProperties"); ap != nil && ap.Kind == jsontree.Object && len(ap.Members) > 0 {
		return true
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ToolDescription returns the description to declare for a tool: its
// description, else its title, else a sentence made from its name, such as
// "Describe doorbell." for describe_doorbell. It is never empty.
func ToolDescription(t runtime.Tool) string { return toolname.Describe(t) }
