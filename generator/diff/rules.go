package diff

import (
	"fmt"
	"strings"
)

// Severity says how much a change can break the callers of a tool.
type Severity int

// Severities, from the least to the most serious.
const (
	// Info is a change that breaks nobody, shown because descriptions are
	// prompt text and additions are worth knowing about.
	Info Severity = iota
	// Warn is a change that may break some callers or change behaviour.
	Warn
	// Err is a change that breaks callers on the wire.
	Err
)

// String returns "INFO", "WARN" or "ERR".
func (s Severity) String() string {
	switch s {
	case Info:
		return "INFO"
	case Warn:
		return "WARN"
	case Err:
		return "ERR"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity reads "ERR", "WARN" or "INFO" (in any case).
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ERR", "ERROR":
		return Err, nil
	case "WARN", "WARNING":
		return Warn, nil
	case "INFO":
		return Info, nil
	}
	return 0, fmt.Errorf("severity %q is not one of ERR, WARN, INFO", s)
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Rule names the kind of a change. Each rule has a fixed severity for input
// schemas and one for output schemas; the direction flips for output schemas,
// where the server produces the values and the caller consumes them.
type Rule string

// Rules, tool-level first, then schema rules.
const (
	ToolRemoved            Rule = "tool-removed"
	ToolRenamed            Rule = "tool-renamed"
	ToolAdded              Rule = "tool-added"
	ToolTitleChanged       Rule = "tool-title-changed"
	ToolDescriptionChanged Rule = "tool-description-changed"
	ToolAnnotationsChanged Rule = "tool-annotations-changed"
	OutputSchemaAdded      Rule = "output-schema-added"
	OutputSchemaRemoved    Rule = "output-schema-removed"
	PropertyAddedRequired  Rule = "required-property-added"
	PropertyAdded          Rule = "property-added"
	PropertyRemoved        Rule = "property-removed"
	PropertyRenamed        Rule = "property-renamed"
	PropertyBecameRequired Rule = "property-became-required"
	PropertyBecameOptional Rule = "property-became-optional"
	TypeChanged            Rule = "type-changed"
	TypeNarrowed           Rule = "type-narrowed"
	TypeWidened            Rule = "type-widened"
	GoTypeChanged          Rule = "go-type-changed"
	NamedTypeRenamed       Rule = "named-type-renamed"
	FormatAdded            Rule = "format-added"
	FormatChanged          Rule = "format-changed"
	FormatRemoved          Rule = "format-removed"
	NullableAdded          Rule = "nullable-added"
	NullableRemoved        Rule = "nullable-removed"
	EnumAdded              Rule = "enum-added"
	EnumRemoved            Rule = "enum-removed"
	EnumValueAdded         Rule = "enum-value-added"
	EnumValueRemoved       Rule = "enum-value-removed"
	EnumValueRenamed       Rule = "enum-value-renamed"
	ConstAdded             Rule = "const-added"
	ConstChanged           Rule = "const-changed"
	ConstRemoved           Rule = "const-removed"
	LimitTightened         Rule = "limit-tightened"
	LimitRelaxed           Rule = "limit-relaxed"
	LimitAdded             Rule = "limit-added"
	LimitRemoved           Rule = "limit-removed"
	LimitChanged           Rule = "limit-changed"
	PatternAdded           Rule = "pattern-added"
	PatternChanged         Rule = "pattern-changed"
	PatternRemoved         Rule = "pattern-removed"
	BranchAdded            Rule = "branch-added"
	BranchRemoved          Rule = "branch-removed"
	UnionKindChanged       Rule = "union-kind-changed"
	AdditionalPropsClosed  Rule = "additional-properties-closed"
	AdditionalPropsOpened  Rule = "additional-properties-opened"
	TupleLengthChanged     Rule = "tuple-length-changed"
	DefaultAdded           Rule = "default-added"
	DefaultChanged         Rule = "default-changed"
	DefaultRemoved         Rule = "default-removed"
	DescriptionChanged     Rule = "description-changed"
	TitleChanged           Rule = "title-changed"
	KeywordChanged         Rule = "keyword-changed"
	AnnotationChanged      Rule = "annotation-changed"
)

// ruleInfo is what the classifier knows about a rule: its severity on input
// and on output schemas, and why it matters in each direction. In the
// sentences, %s is the subject: a property, value or keyword.
type ruleInfo struct {
	in, out       Severity
	whyIn, whyOut string
}

// rules holds every schema rule. Tool-level rules are classified in
// tools.go, where the direction does not apply.
var rules = map[Rule]ruleInfo{
	PropertyAddedRequired: {Err, Info,
		"Every existing call leaves %s out, and the server now rejects such calls (a default does not help callers that validate against the schema).",
		"Results now always carry %s."},
	PropertyAdded: {Info, Info,
		"Callers may now send %s; existing calls stay valid.",
		"Results may now carry %s."},
	PropertyRemoved: {Warn, Warn,
		"The server no longer declares %s: values callers send for it are ignored or, when additional properties are closed, rejected.",
		"Results no longer carry %s; code that reads it gets nothing."},
	PropertyRenamed: {Warn, Warn,
		"Callers still send the old name %s, which the server no longer reads.",
		"Results carry the value under a new name %s; code reading the old one gets nothing."},
	PropertyBecameRequired: {Err, Info,
		"Calls that leave %s out are now rejected.",
		"Results now always carry %s."},
	PropertyBecameOptional: {Info, Err,
		"Callers may now leave %s out.",
		"Results may now lack %s; code that assumes it is there breaks."},
	TypeChanged: {Err, Err,
		"Values of the old type for %s no longer fit the schema.",
		"Results carry %s with a different type; decoding it as before fails."},
	TypeNarrowed: {Err, Info,
		"%s accepts fewer types: values of the dropped types are now rejected.",
		"Results carry %s with fewer possible types."},
	TypeWidened: {Info, Err,
		"%s accepts more types; existing calls stay valid.",
		"Results may carry %s with a type callers do not decode."},
	GoTypeChanged: {Info, Info,
		"The wire format of %s still fits, but its generated Go type changes.",
		"The wire format of %s still fits, but its generated Go type changes."},
	NamedTypeRenamed: {Info, Info,
		"The shared definition behind %s has a new name, so its generated Go type is renamed.",
		"The shared definition behind %s has a new name, so its generated Go type is renamed."},
	FormatAdded: {Err, Info,
		"%s must now match a format; values that do not are rejected.",
		"Results carry %s in a declared format."},
	FormatChanged: {Err, Err,
		"%s must match a different format; values in the old one are rejected.",
		"Results carry %s in a different format; parsing it as before fails."},
	FormatRemoved: {Info, Err,
		"%s no longer has to match a format.",
		"Results no longer promise a format for %s; code that parses it may fail."},
	NullableAdded: {Info, Err,
		"Callers may now send null for %s.",
		"Results may now carry null for %s; code that assumes a value breaks."},
	NullableRemoved: {Err, Info,
		"Calls that send null for %s are now rejected.",
		"Results no longer carry null for %s."},
	EnumAdded: {Err, Info,
		"%s now only accepts a fixed list of values; others are rejected.",
		"Results carry %s from a fixed list of values."},
	EnumRemoved: {Info, Err,
		"%s no longer restricts values to a list.",
		"Results may carry values for %s outside the former list; a switch over the constants misses them."},
	EnumValueAdded: {Info, Err,
		"Callers may now send %s.",
		"Results may now carry %s; a switch over the old constants misses it."},
	EnumValueRemoved: {Err, Info,
		"Calls that send %s are now rejected.",
		"Results no longer carry %s."},
	EnumValueRenamed: {Err, Err,
		"Calls that send the old value %s are now rejected.",
		"Results carry the new value %s instead of the old one; code matching the old value misses it."},
	ConstAdded: {Err, Info,
		"%s is now fixed to one value; any other value is rejected.",
		"Results always carry the same value for %s."},
	ConstChanged: {Err, Err,
		"%s is fixed to a different value; calls with the old one are rejected.",
		"Results carry a different fixed value for %s; code matching the old one misses it."},
	ConstRemoved: {Info, Err,
		"%s is no longer fixed to one value.",
		"Results may carry any value for %s, not just the former constant."},
	LimitTightened: {Err, Info,
		"The limit %s is stricter: values that passed before are now rejected.",
		"Results stay within the stricter limit %s."},
	LimitRelaxed: {Info, Err,
		"The limit %s is looser; existing calls stay valid.",
		"Results may now go beyond the former limit %s; code that relies on it breaks."},
	LimitAdded: {Warn, Info,
		"The new limit %s rejects values that were accepted before.",
		"Results stay within the new limit %s."},
	LimitRemoved: {Info, Err,
		"The limit %s is gone; existing calls stay valid.",
		"Results are no longer bounded by %s; code that relies on the bound breaks."},
	LimitChanged: {Err, Err,
		"The limit %s changed in a way that rejects some values that passed before.",
		"Results follow a different limit %s; code that relies on the old one may break."},
	PatternAdded: {Err, Info,
		"%s must now match a pattern; values that do not are rejected.",
		"Results carry %s matching a pattern."},
	PatternChanged: {Warn, Warn,
		"%s must match a different pattern; some values that passed before may be rejected.",
		"Results carry %s matching a different pattern."},
	PatternRemoved: {Info, Err,
		"%s no longer has to match a pattern.",
		"Results no longer promise a pattern for %s; code that parses it may fail."},
	BranchAdded: {Info, Err,
		"%s accepts one more alternative; existing calls stay valid.",
		"Results may carry %s in a new shape that callers do not decode."},
	BranchRemoved: {Err, Info,
		"Calls that send %s in the removed shape are now rejected.",
		"Results no longer carry %s in the removed shape."},
	UnionKindChanged: {Warn, Warn,
		"%s switches between anyOf and oneOf: a value that matches several alternatives is judged differently.",
		"%s switches between anyOf and oneOf: a value that matches several alternatives is judged differently."},
	AdditionalPropsClosed: {Err, Info,
		"%s no longer accepts undeclared keys; calls that send them are rejected.",
		"Results carry no undeclared keys in %s."},
	AdditionalPropsOpened: {Info, Err,
		"%s now accepts undeclared keys; existing calls stay valid.",
		"Results may carry undeclared keys in %s that callers do not expect."},
	TupleLengthChanged: {Warn, Warn,
		"The positions of %s changed; values laid out as before may be rejected.",
		"The positions of %s changed; decoding results as before may fail."},
	DefaultAdded: {Info, Info,
		"The server documents a default for %s when it is left out.",
		"The server documents a default for %s."},
	DefaultChanged: {Warn, Warn,
		"Calls that leave %s out now get a different value, with a different behaviour.",
		"The documented default of %s changed."},
	DefaultRemoved: {Warn, Warn,
		"Calls that leave %s out no longer get a documented value; the behaviour may change.",
		"The documented default of %s is gone."},
	DescriptionChanged: {Info, Info,
		"The description of %s is prompt text: the model reads it when it fills in arguments.",
		"The description of %s is prompt text: the model reads it when it reads results."},
	TitleChanged: {Info, Info,
		"The title of %s is shown to users and models.",
		"The title of %s is shown to users and models."},
	KeywordChanged: {Warn, Warn,
		"The constraint %s changed; some values may be judged differently.",
		"The constraint %s changed; results may be shaped differently."},
	AnnotationChanged: {Info, Info,
		"The annotation %s changed; it does not constrain values.",
		"The annotation %s changed; it does not constrain values."},
}
