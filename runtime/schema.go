package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Schema validates raw JSON arguments against a tool's own JSON Schema.
//
// The schema is compiled once, on first use, from the bytes given to
// NewSchema. Schemas without $schema are read as JSON Schema 2020-12; draft-07
// and the other drafts are honoured when $schema names them. A $ref to
// anything outside the schema itself is never fetched: it fails compilation.
type Schema struct {
	tool string
	raw  []byte

	once     sync.Once
	compiled *jsonschema.Schema
	err      error
}

// NewSchema returns a validator for tool's schema. It does not compile the
// schema; the first Validate does.
func NewSchema(tool string, raw []byte) *Schema {
	return &Schema{tool: tool, raw: raw}
}

// Compile compiles the schema if it has not been compiled yet, and reports
// whether it compiles.
func (s *Schema) Compile() error {
	s.once.Do(func() { s.compiled, s.err = compileSchema(s.tool, s.raw) })
	return s.err
}

// Validate reports whether args, one JSON value, satisfies the schema. A
// violation is a *ValidationError naming the JSON pointer of the offending
// value; malformed JSON and a schema that does not compile are plain errors.
// An object that repeats a key is a violation too, at the pointer of the
// repeated key: the schema's validator judges only the last of its values,
// and a server may read another (see jsontree.DuplicateKeyError).
func (s *Schema) Validate(args []byte) error {
	if err := s.Compile(); err != nil {
		return err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments for %s are not valid JSON: %w", s.tool, err)
	}
	if dup, ok := jsontree.CheckUniqueKeys(args).(*jsontree.DuplicateKeyError); ok {
		return &ValidationError{Tool: s.tool, Pointer: dup.Pointer, Reason: dup.Error()}
	}
	return s.ValidateValue(v)
}

// ValidateValue is Validate for a value already decoded by
// jsonschema.UnmarshalJSON or encoding/json (numbers as json.Number or
// float64).
func (s *Schema) ValidateValue(v any) error {
	if err := s.Compile(); err != nil {
		return err
	}
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validating arguments for %s: %w", s.tool, err)
	}
	leaf := deepestCause(ve)
	return &ValidationError{
		Tool:    s.tool,
		Pointer: pointerFromPath(leaf.InstanceLocation),
		Reason:  oneLine(leaf.ErrorKind.LocalizedString(printer)),
	}
}

var printer = message.NewPrinter(language.English)

// schemaURL is the made-up location the schema is compiled under. It is never
// fetched.
const schemaURL = "mcpgen:///schema.json"

// noLoader refuses every URL, so that a $ref outside the schema fails
// compilation instead of reaching the file system or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not fetched", url)
}

func compileSchema(tool string, raw []byte) (*jsonschema.Schema, error) {
	if d := jsonNesting(raw, MaxSchemaNesting); d > MaxSchemaNesting {
		return nil, fmt.Errorf("schema of %s nests more than %d levels deep (MaxSchemaNesting)", tool, MaxSchemaNesting)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(compileRegexp)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %s", tool, strings.ReplaceAll(err.Error(), schemaURL, ""))
	}
	return compiled, nil
}

// compileRegexp compiles the patterns of a schema as generated validators
// do (see CompilePattern).
func compileRegexp(p string) (jsonschema.Regexp, error) {
	return CompilePattern(p)
}

// deepestCause follows the first cause of each error down to a leaf, which
// names the most specific location and reason.
func deepestCause(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	best, bestDepth := e, len(e.InstanceLocation)
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 && len(e.InstanceLocation) > bestDepth {
			best, bestDepth = e, len(e.InstanceLocation)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(e)
	if best == e {
		for len(best.Causes) > 0 {
			best = best.Causes[0]
		}
	}
	return best
}

// pointerFromPath turns path segments into an RFC 6901 JSON pointer.
func pointerFromPath(path []string) string {
	if len(path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, seg := range path {
		b.WriteByte('/')
		b.WriteString(jsontree.EscapeToken(seg))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
