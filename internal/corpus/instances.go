package corpus

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
)

// Limits of the instance generator. They keep the instance count of a
// server with hundreds of tools and deep schemas in the tens of thousands.
const (
	maxDepth     = 12 // schema nesting followed, $refs included
	maxVariants  = 4  // union branch choices tried per schema
	maxMutations = 40 // invalid instances per schema
)

// Instances returns JSON instances of a schema: values built to satisfy it,
// one per union branch choice with every property and one with only the
// required ones, followed by each of those mutated at one place to break a
// constraint (a wrong JSON kind, a value outside an enum, a missing required
// property, a number or length out of range, an unknown property of a
// closed object). Whether an instance really is valid is for the validators
// under test to say; the generator only aims. The output is deterministic.
func Instances(schema []byte) ([]json.RawMessage, error) {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("reading schema: %w", err)
	}
	seen := map[string]bool{}
	var out []json.RawMessage
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil || seen[string(b)] {
			return
		}
		seen[string(b)] = true
		out = append(out, b)
	}
	var bases []any
	var muts []mutation
	for variant := 0; variant < maxVariants; variant++ {
		for _, minimal := range []bool{false, true} {
			g := &gen{root: root, variant: variant, minimal: minimal}
			v := g.value(root, nil, 0)
			bases = append(bases, v)
			add(v)
			for _, m := range g.muts {
				m.base = v
				muts = append(muts, m)
			}
		}
		if !hasUnion(root, 0) {
			break
		}
	}
	add([]any{})
	add("not an object")
	add(nil)
	n := 0
	for _, m := range muts {
		if n >= maxMutations {
			break
		}
		v, ok := m.apply()
		if !ok {
			continue
		}
		before := len(out)
		add(v)
		if len(out) > before {
			n++
		}
	}
	return out, nil
}

// hasUnion reports whether the schema holds an anyOf, oneOf or type list, so
// that more than one variant is worth building.
func hasUnion(s any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s := s.(type) {
	case map[string]any:
		if _, ok := s["anyOf"]; ok {
			return true
		}
		if _, ok := s["oneOf"]; ok {
			return true
		}
		if _, ok := s["type"].([]any); ok {
			return true
		}
		for _, v := range s {
			if hasUnion(v, depth+1) {
				return true
			}
		}
	case []any:
		for _, v := range s {
			if hasUnion(v, depth+1) {
				return true
			}
		}
	}
	return false
}

// A mutation replaces (or deletes) the value at path in a copy of base.
type mutation struct {
	base   any
	path   []any // string keys and int indexes
	value  any
	delete bool
}

// apply returns a deep copy of the base with the mutation made, and false
// when the path no longer exists.
func (m mutation) apply() (any, bool) {
	if len(m.path) == 0 {
		if m.delete {
			return nil, false
		}
		return m.value, true
	}
	root := deepCopy(m.base)
	cur := root
	for i, step := range m.path {
		last := i == len(m.path)-1
		switch step := step.(type) {
		case string:
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if last {
				if m.delete {
					if _, ok := obj[step]; !ok {
						return nil, false
					}
					delete(obj, step)
				} else {
					obj[step] = m.value
				}
				return root, true
			}
			if cur, ok = obj[step]; !ok {
				return nil, false
			}
		case int:
			arr, ok := cur.([]any)
			if !ok || step >= len(arr) {
				return nil, false
			}
			if last {
				if m.delete {
					return nil, false
				}
				arr[step] = m.value
				return root, true
			}
			cur = arr[step]
		}
	}
	return nil, false
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// gen builds one instance of a schema and records the mutations that
// should break it.
type gen struct {
	root    any
	variant int
	minimal bool
	muts    []mutation
}

func (g *gen) mutate(path []any, value any) {
	g.muts = append(g.muts, mutation{path: append([]any(nil), path...), value: value})
}

func (g *gen) remove(path []any) {
	g.muts = append(g.muts, mutation{path: append([]any(nil), path...), delete: true})
}

// resolve follows a local $ref; it returns nil for anything else.
func (g *gen) resolve(ref string) any {
	if ref == "#" {
		return g.root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := g.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// merged folds $ref and allOf into one schema map, shallowly: properties
// and required are united, other keywords of later parts win.
func (g *gen) merged(s map[string]any, depth int) map[string]any {
	_, hasRef := s["$ref"].(string)
	_, hasAll := s["allOf"].([]any)
	if (!hasRef && !hasAll) || depth > maxDepth {
		return s
	}
	out := map[string]any{}
	fold := func(part map[string]any) {
		for k, v := range part {
			switch k {
			case "properties":
				props, _ := out[k].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				if pm, ok := v.(map[string]any); ok {
					for name, ps := range pm {
						props[name] = ps
					}
				}
				out[k] = props
			case "required":
				req, _ := out[k].([]any)
				if rl, ok := v.([]any); ok {
					req = append(req, rl...)
				}
				out[k] = req
			case "$ref", "allOf":
			default:
				out[k] = v
			}
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		if target, ok := g.resolve(ref).(map[string]any); ok {
			fold(g.merged(target, depth+1))
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, part := range all {
			if pm, ok := part.(map[string]any); ok {
				fold(g.merged(pm, depth+1))
			}
		}
	}
	fold(s)
	return out
}

// value builds an instance of s located at path, recording mutations.
func (g *gen) value(schema any, path []any, depth int) any {
	if depth > maxDepth {
		return nil
	}
	s, ok := schema.(map[string]any)
	if !ok {
		// true (anything goes) or false (nothing does): a string either way.
		return "x"
	}
	s = g.merged(s, depth)
	if c, ok := s["const"]; ok {
		g.mutate(path, wrongValue(c))
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		v := enum[g.variant%len(enum)]
		g.mutate(path, outsideEnum(enum))
		return v
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if branches, ok := s[key].([]any); ok && len(branches) > 0 {
			b := branches[g.variant%len(branches)]
			if bm, ok := b.(map[string]any); ok {
				// Sibling keywords apply to every branch: fold them in.
				folded := map[string]any{}
				for k, v := range s {
					if k != key && k != "description" {
						folded[k] = v
					}
				}
				for k, v := range g.merged(bm, depth+1) {
					folded[k] = v
				}
				return g.value(folded, path, depth+1)
			}
			return g.value(b, path, depth+1)
		}
	}
	typ := g.pickType(s)
	switch typ {
	case "null":
		g.mutate(path, "x")
		return nil
	case "boolean":
		g.mutate(path, "true")
		return true
	case "integer", "number":
		return g.number(s, typ, path)
	case "string":
		return g.str(s, path)
	case "array":
		return g.array(s, path, depth)
	case "object":
		return g.object(s, path, depth)
	}
	return "x"
}

// pickType chooses the JSON type to build: the variant's entry of a type
// list (null last), or one implied by the keywords present.
func (g *gen) pickType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		null := false
		for _, x := range t {
			if x == "null" {
				null = true
			} else if xs, ok := x.(string); ok {
				types = append(types, xs)
			}
		}
		if null {
			types = append(types, "null")
		}
		if len(types) == 0 {
			return ""
		}
		return types[g.variant%len(types)]
	}
	switch {
	case s["properties"] != nil || s["additionalProperties"] != nil || s["required"] != nil:
		return "object"
	case s["items"] != nil || s["prefixItems"] != nil:
		return "array"
	case s["minimum"] != nil || s["maximum"] != nil:
		return "number"
	case s["pattern"] != nil || s["format"] != nil || s["minLength"] != nil || s["maxLength"] != nil:
		return "string"
	}
	return ""
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

func (g *gen) number(s map[string]any, typ string, path []any) any {
	g.mutate(path, "1")
	lo, hi := math.Inf(-1), math.Inf(1)
	if m, ok := num(s["minimum"]); ok {
		lo = m
		if s["exclusiveMinimum"] == true {
			lo = nextUp(m, typ)
		}
	}
	if m, ok := num(s["exclusiveMinimum"]); ok {
		lo = math.Max(lo, nextUp(m, typ))
	}
	if m, ok := num(s["maximum"]); ok {
		hi = m
		if s["exclusiveMaximum"] == true {
			hi = nextDown(m, typ)
		}
	}
	if m, ok := num(s["exclusiveMaximum"]); ok {
		hi = math.Min(hi, nextDown(m, typ))
	}
	v := 1.0
	switch {
	case !math.IsInf(lo, 0):
		v = lo
	case !math.IsInf(hi, 0):
		v = hi
	}
	if typ == "integer" {
		v = math.Ceil(v)
		g.mutate(path, v+0.5)
	}
	if m, ok := num(s["multipleOf"]); ok && m > 0 {
		v = math.Ceil(v/m) * m
		if m >= 1 || typ == "integer" {
			g.mutate(path, v+m/2)
		}
	}
	if !math.IsInf(lo, 0) {
		g.mutate(path, lo-1)
	}
	if !math.IsInf(hi, 0) {
		g.mutate(path, hi+1)
	}
	return v
}

func nextUp(m float64, typ string) float64 {
	if typ == "integer" {
		return math.Floor(m) + 1
	}
	return m + 0.5
}

func nextDown(m float64, typ string) float64 {
	if typ == "integer" {
		return math.Ceil(m) - 1
	}
	return m - 0.5
}

// formats are sample values of the string formats the corpus uses.
var formats = map[string]string{
	"date-time": "2024-01-02T03:04:05Z",
	"date":      "2024-01-02",
	"time":      "03:04:05Z",
	"email":     "someone@example.com",
	"uri":       "https://example.com/a",
	"url":       "https://example.com/a",
	"uuid":      "123e4567-e89b-12d3-a456-426614174000",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"hostname":  "example.com",
	"duration":  "P1D",
	"regex":     "^a+$",
}

func (g *gen) str(s map[string]any, path []any) any {
	g.mutate(path, 1)
	minLen, hasMin := num(s["minLength"])
	maxLen, hasMax := num(s["maxLength"])
	v := "x"
	if f, ok := s["format"].(string); ok {
		if sample, ok := formats[f]; ok {
			v = sample
		}
		if _, known := formats[f]; known && f != "regex" {
			g.mutate(path, "not a "+f+" value %%")
		}
	}
	if p, ok := s["pattern"].(string); ok {
		if m, ok := matching(p, int(minLen)); ok {
			v = m
		}
		if re, err := regexp.Compile(p); err == nil && !re.MatchString("\x00~") {
			g.mutate(path, "\x00~")
		}
	}
	for hasMin && float64(len([]rune(v))) < minLen {
		v += "x"
	}
	if hasMax && float64(len([]rune(v))) > maxLen {
		v = string([]rune(v)[:int(maxLen)])
	}
	if hasMin && minLen >= 1 {
		g.mutate(path, strings.Repeat("x", int(minLen)-1))
	}
	if hasMax && maxLen < 1e6 {
		g.mutate(path, strings.Repeat("x", int(maxLen)+1))
	}
	return v
}

// matching returns a short string the pattern matches, at least minLen runes
// long when it can. Patterns Go's regexp cannot read give false.
func matching(pattern string, minLen int) (string, bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	tree = tree.Simplify()
	for extra := 0; extra <= minLen+1 && extra < 64; extra++ {
		var b strings.Builder
		build(&b, tree, extra)
		if s := b.String(); re.MatchString(s) && len([]rune(s)) >= minLen {
			return s, true
		}
	}
	var b strings.Builder
	build(&b, tree, 0)
	if re.MatchString(b.String()) {
		return b.String(), true
	}
	return "", false
}

// build writes a string matched by re, repeating starred parts extra more
// times than their minimum.
func build(b *strings.Builder, re *syntax.Regexp, extra int) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			r := re.Rune[0]
			// Prefer a letter or digit inside the class for readability.
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for _, c := range "a0A" {
					if c >= re.Rune[i] && c <= re.Rune[i+1] {
						r = c
						goto found
					}
				}
			}
		found:
			b.WriteRune(r)
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('a')
	case syntax.OpCapture:
		for _, sub := range re.Sub {
			build(b, sub, extra)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			build(b, sub, extra)
		}
	case syntax.OpAlternate:
		build(b, re.Sub[0], extra)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		n := 0
		switch re.Op {
		case syntax.OpPlus:
			n = 1
		case syntax.OpRepeat:
			n = re.Min
		}
		n += extra
		if re.Op == syntax.OpQuest && n > 1 {
			n = 1
		}
		if re.Op == syntax.OpRepeat && re.Max >= 0 && n > re.Max {
			n = re.Max
		}
		for i := 0; i < n; i++ {
			build(b, re.Sub[0], extra)
		}
	}
}

func (g *gen) array(s map[string]any, path []any, depth int) any {
	g.mutate(path, map[string]any{"not": "an array"})
	var out []any
	if prefix, ok := s["prefixItems"].([]any); ok {
		for i, p := range prefix {
			out = append(out, g.value(p, append(path, i), depth+1))
		}
	} else if tuple, ok := s["items"].([]any); ok {
		for i, p := range tuple {
			out = append(out, g.value(p, append(path, i), depth+1))
		}
	}
	minItems, hasMin := num(s["minItems"])
	maxItems, hasMax := num(s["maxItems"])
	want := 1
	if g.minimal {
		want = 0
	}
	if hasMin && int(minItems) > want {
		want = int(minItems)
	}
	if hasMax && int(maxItems) < want {
		want = int(maxItems)
	}
	items, hasItems := s["items"]
	if _, tuple := items.([]any); tuple {
		hasItems = false
	}
	for len(out) < want && len(out) < 64 {
		if hasItems {
			out = append(out, g.value(items, append(path, len(out)), depth+1))
		} else {
			out = append(out, "x")
		}
	}
	if out == nil {
		out = []any{}
	}
	if hasMin && minItems >= 1 && len(out) > 0 {
		g.mutate(path, out[:int(minItems)-1])
	}
	if hasMax && maxItems < 64 && len(out) > 0 {
		longer := make([]any, 0, int(maxItems)+1)
		for len(longer) <= int(maxItems) {
			longer = append(longer, out[0])
		}
		g.mutate(path, longer)
	}
	return out
}

func (g *gen) object(s map[string]any, path []any, depth int) any {
	g.mutate(path, "not an object")
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	// Deep down only required properties are built, so that recursive
	// schemas end.
	minimal := g.minimal || depth > maxDepth/2
	for _, name := range names {
		if minimal && !required[name] {
			continue
		}
		out[name] = g.value(props[name], append(path, name), depth+1)
	}
	extra, hasExtra := s["additionalProperties"]
	reqNames := make([]string, 0, len(required))
	for name := range required {
		reqNames = append(reqNames, name)
	}
	sort.Strings(reqNames)
	for _, name := range reqNames {
		if _, ok := out[name]; !ok {
			if hasExtra && extra != false {
				out[name] = g.value(extra, append(path, name), depth+1)
			} else {
				out[name] = "x"
			}
		}
		g.remove(append(path, name))
	}
	if hasExtra && extra != false && extra != true && len(props) == 0 && !minimal {
		if _, ok := extra.(map[string]any); ok {
			out["key"] = g.value(extra, append(path, "key"), depth+1)
		}
	}
	if minP, ok := num(s["minProperties"]); ok && extra != false {
		for i := 0; len(out) < int(minP) && i < 64; i++ {
			out[fmt.Sprintf("extra%d", i)] = "x"
		}
	}
	if extra == false {
		g.mutate(append(path, "unknown_property_x"), "x")
	}
	return out
}

// wrongValue returns a value of another JSON kind than v.
func wrongValue(v any) any {
	if _, ok := v.(string); ok {
		return 12345
	}
	return "wrong-value"
}

// outsideEnum returns a value not in enum, of the kind of its first value
// where it can.
func outsideEnum(enum []any) any {
	in := func(x any) bool {
		for _, e := range enum {
			if fmt.Sprint(e) == fmt.Sprint(x) {
				return true
			}
		}
		return false
	}
	switch enum[0].(type) {
	case float64:
		for i := 1.0; ; i++ {
			if !in(-i * 7919) {
				return -i * 7919
			}
		}
	case bool:
		if !in(true) {
			return true
		}
		if !in(false) {
			return false
		}
		return "neither"
	}
	for i := 0; ; i++ {
		s := "not-in-enum-" + strconv.Itoa(i)
		if !in(s) {
			return s
		}
	}
}
