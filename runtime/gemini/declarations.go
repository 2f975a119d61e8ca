package gemini

import (
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// DeclarationOptions tune Declarations. A nil *DeclarationOptions means the
// zero value: the typed Parameters form.
type DeclarationOptions struct {
	// JSONSchema declares every tool's parameters in the JSON Schema form
	// (FunctionDeclaration.ParametersJsonSchema, the server's schema bytes
	// as they are, but for a type list at the root, such as
	// ["object","null"], declared "object") instead of the typed
	// Parameters form.
	JSONSchema bool
	// Search, when set, puts a Toolset in deferred mode: each request
	// declares the pinned tools, the tools found so far and a search
	// function, "search_tools", that the Toolset answers itself (see
	// runtime.ToolSearch; Gemini has no search of its own, so Native is
	// ignored). Declarations ignores it.
	Search *runtime.ToolSearch
}

// ValidName reports whether Gemini accepts name as a function name as it is.
// Declarations keeps such names, and rewrites the others.
func ValidName(name string) bool { return geminidecl.ValidName(name) }

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
// description, as does the empty string, which Gemini refuses as an enum
// value; const becomes a one-value enum (strings) or a description
// note; exclusive bounds, multipleOf, pattern, uniqueItems, default and
// formats other than date-time also move to the description; an array
// without items gets string items, and a schema that accepts any value is
// declared as a string, both saying so. A property that no value passes
// (false, "not" of every value, or a $ref that leads back to itself through
// bare $refs only, a loop on which validators refuse every value) is left
// out, and its object's description tells the model not to send it. A tool
// without parameters has nil Parameters.
//
// A tool the typed form cannot describe without changing which arguments
// are valid is declared in the JSON Schema form instead, so that what the
// model sends still passes the server's schema: a property name Gemini
// rejects (such as "auth-method" or "$filter"; renaming it would need every
// caller to rename arguments back), an object with no declared properties
// below the top level or, at the top level, one with a schema for its
// undeclared keys (a free-form map, patternProperties), one each of whose
// properties only nests it again (a chain of "next" links), a required
// name that properties does not declare, a tuple array, a union at the top
// level, a schema that only excludes values (not), or a schema too large
// or too deeply nested (more than 64 levels) to expand, or whose expanded
// text (a long description repeated at every use of a $ref) would exceed
// the schema's own size by more than 1 MiB.
//
// The error names the tool and the JSON pointer of the part that cannot be
// converted: an external or dangling $ref, allOf branches that contradict
// each other, an input schema that is not an object or that is a loop of
// bare $refs (no arguments are valid), a number beyond the range of a
// float64 (such as 1e400), which the API cannot read, a $ref that is not
// a URI reference (a malformed %-escape), which no validator of the
// tool's arguments compiles.
func Declarations(tools []runtime.Tool, opts *DeclarationOptions) ([]*genai.FunctionDeclaration, map[string]string, error) {
	if opts == nil {
		opts = &DeclarationOptions{}
	}
	decls, names, err := geminidecl.Declare(tools, nil, opts.JSONSchema)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*genai.FunctionDeclaration, len(decls))
	for i, d := range decls {
		out[i] = &genai.FunctionDeclaration{Name: d.Name, Description: d.Description, Parameters: genaiSchema(d.Parameters)}
		if d.ParametersJSONSchema != nil {
			out[i].ParametersJsonSchema = d.ParametersJSONSchema
		}
	}
	return out, names, nil
}

// genaiSchema returns s as a *genai.Schema; nil stays nil.
func genaiSchema(s *geminidecl.Schema) *genai.Schema {
	if s == nil {
		return nil
	}
	g := &genai.Schema{
		Description:   s.Description,
		Enum:          s.Enum,
		Format:        s.Format,
		Items:         genaiSchema(s.Items),
		MaxItems:      s.MaxItems,
		MaxLength:     s.MaxLength,
		MaxProperties: s.MaxProperties,
		Maximum:       s.Maximum,
		MinItems:      s.MinItems,
		MinLength:     s.MinLength,
		MinProperties: s.MinProperties,
		Minimum:       s.Minimum,
		Required:      s.Required,
		Type:          genai.Type(s.Type),
	}
	for _, a := range s.AnyOf {
		g.AnyOf = append(g.AnyOf, genaiSchema(a))
	}
	if s.Nullable {
		g.Nullable = genai.Ptr(true)
	}
	if len(s.Properties) > 0 {
		g.Properties = make(map[string]*genai.Schema, len(s.Properties))
		g.PropertyOrdering = make([]string, len(s.Properties))
		for i, p := range s.Properties {
			g.Properties[p.Name] = genaiSchema(p.Schema)
			g.PropertyOrdering[i] = p.Name
		}
	}
	return g
}

// ToolDescription returns the description to declare for a tool: its
// description, else its title, else a sentence made from its name, such as
// "Describe doorbell." for describe_doorbell. It is never empty.
func ToolDescription(t runtime.Tool) string { return toolname.Describe(t) }
