package ir

// NeedsValidate reports whether some value of t can break its schema, so
// that its checks are more than "return nil". The generated package
// leaves out the Validate method of a nested struct that needs none, and
// every call of one. memo holds the answers so far, shared by the calls
// over one package: a type being answered counts as needing checks, so
// that a recursive type is answered once.
func NeedsValidate(t *Type, memo map[*Type]bool) bool {
	if v, ok := memo[t]; ok {
		return v
	}
	memo[t] = true // assume so while recursing
	v := needsValidate(t, memo)
	memo[t] = v
	return v
}

func needsValidate(t *Type, memo map[*Type]bool) bool {
	switch t.Kind {
	case Raw, Bool, Const:
		return false
	case Enum, Union:
		return true
	case Int, Number:
		return t.Minimum != nil || t.Maximum != nil || t.MultipleOf != ""
	case String:
		return t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 || t.Format != ""
	case Nullable:
		return NeedsValidate(t.Elem, memo)
	case Slice:
		return t.MinItems != nil || t.MaxItems != nil || NeedsValidate(t.Elem, memo)
	case Map:
		return t.MinEntries != nil || t.MaxEntries != nil || len(t.KeyPatterns) > 0 || NeedsValidate(t.Elem, memo)
	case Struct:
		if t.Extra != nil && (len(t.Fields) > 0 || NeedsValidate(t.Extra, memo)) {
			// An Extra member that is a field is invalid (see
			// emit's extraFieldCheck).
			return true
		}
		for _, f := range t.Fields {
			if f.Required && (f.Type.Kind == Slice || f.Type.Kind == Map) {
				return true
			}
			if f.Required && (f.Type.Kind == Struct || f.Type.Kind == Union) && f.Type.Recursive {
				return true // a pointer that must not be nil
			}
			if NeedsValidate(f.Type, memo) {
				return true
			}
		}
	}
	return false
}
