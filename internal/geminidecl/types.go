package geminidecl

// The types of the typed form, as the Gemini API spells them (genai.Type).
const (
	TypeString  = "STRING"
	TypeNumber  = "NUMBER"
	TypeInteger = "INTEGER"
	TypeBoolean = "BOOLEAN"
	TypeArray   = "ARRAY"
	TypeObject  = "OBJECT"
)

// Schema is one schema of the typed form: the fields of genai.Schema the
// conversion sets, with the properties in their declared order, which is
// also the order of genai's PropertyOrdering.
type Schema struct {
	AnyOf       []*Schema
	Description string
	Enum        []string
	Format      string
	Items       *Schema
	MaxItems    *int64
	MaxLength   *int64
	// MaxProperties and the other bounds are nil when the schema sets none.
	MaxProperties *int64
	Maximum       *float64
	MinItems      *int64
	MinLength     *int64
	MinProperties *int64
	Minimum       *float64
	Nullable      bool
	Properties    []Property
	Required      []string
	Type          string
}

// Property is one property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Property returns the schema of the property name, or nil.
func (s *Schema) Property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// requiredOf returns the names of required that are properties of s, each
// once, in the order of required.
func (s *Schema) requiredOf(required []string) []string {
	if len(required) == 0 || len(s.Properties) == 0 {
		return nil
	}
	names := make(map[string]bool, len(s.Properties))
	for _, p := range s.Properties {
		names[p.Name] = true
	}
	var out []string
	for _, r := range required {
		if names[r] {
			out = append(out, r)
			delete(names, r)
		}
	}
	return out
}
