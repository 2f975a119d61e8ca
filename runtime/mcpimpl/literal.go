package mcpimpl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// DecodeLiterals decodes JSON texts the generator wrote, one value of T
// each, such as the Gemini declarations of a package's tools, and returns
// a new value for every text. Data kept as JSON compiles far faster than
// the same values written as Go composite literals.
//
// Struct fields are matched by their json tag names, exactly. A field of
// interface type gets its value as json.RawMessage, with the bytes of the
// text, so that a JSON Schema inside keeps its key order. The generator
// checks that every text decodes back to the value it encoded, so an error
// means that the package that defines T changed in an incompatible way
// after the code was generated: the texts that decode are returned, with
// an error naming the first text that did not.
func DecodeLiterals[T any](texts []string) ([]*T, error) {
	out := make([]*T, 0, len(texts))
	var first error
	for i, s := range texts {
		v := new(T)
		if err := DecodeLiteral(s, v); err != nil {
			if first == nil {
				first = fmt.Errorf("decoding literal %d: %w", i, err)
			}
			continue
		}
		out = append(out, v)
	}
	return out, first
}

// DecodeLiteral decodes one JSON text into v, a non-nil pointer, as
// DecodeLiterals does.
func DecodeLiteral(text string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decoding a literal into %T: not a non-nil pointer", v)
	}
	d := literalDecoder{s: text}
	if err := d.value(rv.Elem()); err != nil {
		return err
	}
	if d.space(); d.i < len(d.s) {
		return d.errorf("data after the value")
	}
	return nil
}

// literalDecoder reads one JSON text. It is a small recursive descent
// parser rather than encoding/json, which takes several times as long and
// turns interface values into maps without their key order.
type literalDecoder struct {
	s string
	i int
}

func (d *literalDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *literalDecoder) space() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

// next skips white space and returns the next byte, or 0 at the end.
func (d *literalDecoder) next() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

func (d *literalDecoder) expect(c byte) error {
	if d.next() != c {
		return d.errorf("want %q", c)
	}
	d.i++
	return nil
}

func (d *literalDecoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Interface:
		d.space()
		from := d.i
		if err := d.skip(); err != nil {
			return err
		}
		if raw := d.s[from:d.i]; raw != "null" {
			v.Set(reflect.ValueOf(json.RawMessage(raw)))
		}
		return nil
	case reflect.Pointer:
		if d.null() {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := d.value(p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		fields := literalFields(v.Type())
		return d.members(func(key string) error {
			i, ok := fields[key]
			if !ok {
				return d.errorf("%s has no member %q", v.Type(), key)
			}
			return d.value(v.Field(i))
		})
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return d.errorf("cannot decode into %s", v.Type())
		}
		m := reflect.MakeMap(v.Type())
		err := d.members(func(key string) error {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(e); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), e)
			return nil
		})
		v.Set(m)
		return err
	case reflect.Slice:
		if err := d.expect('['); err != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), 0, 4)
		for first := true; d.next() != ']'; first = false {
			if !first {
				if err := d.expect(','); err != nil {
					return err
				}
			}
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(e); err != nil {
				return err
			}
			s = reflect.Append(s, e)
		}
		d.i++
		v.Set(s)
		return nil
	case reflect.String:
		s, err := d.str()
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		switch {
		case strings.HasPrefix(d.s[d.i:], "true"):
			d.i += 4
			v.SetBool(true)
		case strings.HasPrefix(d.s[d.i:], "false"):
			d.i += 5
		default:
			return d.errorf("want a boolean")
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(d.number(), 10, v.Type().Bits())
		if err != nil {
			return d.errorf("%v", err)
		}
		v.SetInt(n)
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(d.number(), v.Type().Bits())
		if err != nil {
			return d.errorf("%v", err)
		}
		v.SetFloat(f)
		return nil
	}
	return d.errorf("cannot decode into %s", v.Type())
}

// null consumes a null, if one comes next.
func (d *literalDecoder) null() bool {
	if d.next() == 'n' && strings.HasPrefix(d.s[d.i:], "null") {
		d.i += 4
		return true
	}
	return false
}

// members reads an object, calling member with each key when the decoder
// is at its value.
func (d *literalDecoder) members(member func(key string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	for first := true; d.next() != '}'; first = false {
		if !first {
			if err := d.expect(','); err != nil {
				return err
			}
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
	}
	d.i++
	return nil
}

// str reads a string. One without escapes is a substring of the text.
func (d *literalDecoder) str() (string, error) {
	if d.next() != '"' {
		return "", d.errorf("want a string")
	}
	start := d.i
	escaped := false
	for j := start + 1; j < len(d.s); j++ {
		switch d.s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			d.i = j + 1
			if !escaped {
				return d.s[start+1 : j], nil
			}
			var s string
			if err := json.Unmarshal([]byte(d.s[start:d.i]), &s); err != nil {
				return "", d.errorf("%v", err)
			}
			return s, nil
		}
	}
	return "", d.errorf("unterminated string")
}

// number returns the text of the number that comes next.
func (d *literalDecoder) number() string {
	d.space()
	start := d.i
	for d.i < len(d.s) && strings.IndexByte("+-.0123456789eE", d.s[d.i]) >= 0 {
		d.i++
	}
	return d.s[start:d.i]
}

// skip moves past the value that comes next, checking its syntax.
func (d *literalDecoder) skip() error {
	start := d.i
	switch c := d.next(); {
	case c == '{', c == '[':
		d.space()
		var end int
		depth := 0
		for j := d.i; j < len(d.s); j++ {
			switch d.s[j] {
			case '"':
				d.i = j
				if _, err := d.str(); err != nil {
					return err
				}
				j = d.i - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			if depth == 0 {
				end = j + 1
				break
			}
		}
		if depth != 0 {
			return d.errorf("unterminated value")
		}
		d.i = end
	case c == '"':
		if _, err := d.str(); err != nil {
			return err
		}
	default:
		for d.i < len(d.s) && strings.IndexByte(",}] \t\r\n", d.s[d.i]) < 0 {
			d.i++
		}
	}
	if !json.Valid([]byte(d.s[start:d.i])) {
		i := d.i
		d.i = start
		err := d.errorf("invalid JSON value %.40q", d.s[start:i])
		d.i = i
		return err
	}
	return nil
}

var literalFieldCache sync.Map // reflect.Type → map[string]int

// literalFields maps the JSON names of the exported fields of the struct
// type t to their indexes.
func literalFields(t reflect.Type) map[string]int {
	if m, ok := literalFieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = i
	}
	literalFieldCache.Store(t, m)
	return m
}
