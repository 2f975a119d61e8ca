package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
// and a server may read another (see jsontree.DuplicateKeyError). So is a
// number a float64 cannot hold, such as 1e400 or 1e-400, or one longer
// than 1000 characters, at its pointer.
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
	if path, reason, ok := unreadableNumber(v); ok {
		return &ValidationError{Tool: s.tool, Pointer: pointerFromPath(path), Reason: reason}
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

// maxNumberLength bounds the characters of a number Validate judges: the
// validator reads numbers exactly, in time that grows faster than their
// length, and the longest a float64 or an int64 needs is 24.
const maxNumberLength = 1000

// unreadableNumber finds a number in v (json.Number, as
// jsonschema.UnmarshalJSON decodes numbers) that a float64 cannot hold:
// beyond its range, nonzero but read as 0, or longer than maxNumberLength.
// The validator's exact reading of such a number panics when its exponent
// is beyond a million, and takes seconds for one of a million digits; the
// decoding of a generated package, a float64, fails or reads 0. It returns
// the path to the number, the first under the least key of each object,
// and why it is refused.
func unreadableNumber(v any) (path []string, reason string, ok bool) {
	switch v := v.(type) {
	case json.Number:
		reason = numberReason(string(v))
		return nil, reason, reason != ""
	case map[string]any:
		var least string
		for k, m := range v {
			if ok && k >= least {
				continue
			}
			if p, r, found := unreadableNumber(m); found {
				least, path, reason, ok = k, p, r, true
			}
		}
		if ok {
			path = append([]string{least}, path...)
		}
		return path, reason, ok
	case []any:
		for i, it := range v {
			if p, r, found := unreadableNumber(it); found {
				return append([]string{strconv.Itoa(i)}, p...), r, true
			}
		}
	}
	return nil, "", false
}

// numberReason says why a float64 cannot hold the JSON number lit, or
// returns "" when it can.
func numberReason(lit string) string {
	quoted := lit
	if len(quoted) > 64 {
		quoted = quoted[:64] + "…"
	}
	if len(lit) > maxNumberLength {
		return fmt.Sprintf("the number %s is longer than %d characters", quoted, maxNumberLength)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if errors.Is(err, strconv.ErrRange) {
		return "the number " + quoted + " is beyond the range of a float64"
	}
	mant, _, _ := strings.Cut(strings.ToLower(lit), "e")
	if f == 0 && strings.ContainsAny(mant, "123456789") {
		return "the number " + quoted + " is too small for a float64, which reads it as 0"
	}
	return ""
}

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
	if _, deep := jsontree.NestedBeyond(raw, MaxSchemaNesting); deep {
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
