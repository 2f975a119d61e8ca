// Package integral reads JSON numbers whose value is an integer however
// they are written, for the decoding of generated code and for the
// Mcp-Param-* headers of the session.
package integral

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// JSON Schema counts a number whose value is an integer as an integer
// however it is written (50, 50.0, 5e1), and servers validate arguments
// that way; encoding/json refuses 50.0 for an integer field. Generated code
// decodes through Unmarshal (by way of package mcpimpl), which accepts such
// numbers for integer fields too.

// Unmarshal decodes data into v with encoding/json. When that fails only
// because a number with a fraction or exponent went to an integer field, it
// decodes again with every integral number written as an integer.
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number ") {
		return err
	}
	norm, changed := Numbers(data)
	if !changed {
		return err
	}
	return json.Unmarshal(norm, v)
}

// Numbers returns data with each number that has a fraction or an
// exponent but an integer value written as an integer, and whether it
// changed any.
func Numbers(data []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '-' || (c >= '0' && c <= '9'):
			start := i
			for i < len(data) && strings.IndexByte("0123456789.eE+-", data[i]) >= 0 {
				i++
			}
			tok := string(data[start:i])
			if !strings.ContainsAny(tok, ".eE") {
				continue
			}
			if n, ok := Literal(tok); ok {
				out = append(append(out, data[last:start]...), n...)
				last = i
			}
		default:
			i++
		}
	}
	if out == nil {
		return data, false
	}
	return append(out, data[last:]...), true
}

// Literal returns the JSON number tok written as an integer when its
// value is one that fits in 19 digits, as every int64 does.
func Literal(tok string) (string, bool) {
	neg := strings.HasPrefix(tok, "-")
	if neg {
		tok = tok[1:]
	}
	mant, exp := tok, 0
	if i := strings.IndexAny(tok, "eE"); i >= 0 {
		e, err := strconv.Atoi(tok[i+1:])
		if err != nil || e > 40 || e < -40 {
			return "", false
		}
		mant, exp = tok[:i], e
	}
	whole, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		whole, frac = mant[:i], mant[i+1:]
	}
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	// The value is digits × 10^shift.
	if shift := exp - len(frac); shift < 0 {
		cut := max(len(digits)+shift, 0)
		if strings.Trim(digits[cut:], "0") != "" {
			return "", false
		}
		digits = digits[:cut]
	} else {
		digits += strings.Repeat("0", shift)
	}
	digits = strings.TrimLeft(digits, "0")
	switch {
	case digits == "":
		return "0", true
	case len(digits) > 19:
		return "", false
	case neg:
		return "-" + digits, true
	}
	return digits, true
}
