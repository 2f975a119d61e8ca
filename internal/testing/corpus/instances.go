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

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
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
func Instances(doc []byte) ([]json.RawMessage, error) {
	root, err := jsontree.ParseUnique(doc)
	if err != nil {
		return nil, fmt.Errorf("reading schema: %w", err)
	}
	root = schema.StaticRefs(root)
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
	var muts []mutation
	for variant := 0; variant < maxVariants; variant++ {
		for _, minimal := range []bool{false, true} {
			g := newGen(root, variant, minimal)
			v := g.value(root, nil, 0)
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
func hasUnion(s *jsontree.Node, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.Kind {
	case jsontree.Object:
		if s.Has("anyOf") || s.Has("oneOf") {
			return true
		}
		if t := s.Get("type"); t != nil && t.Kind == jsontree.Array {
			return true
		}
		for _, m := range s.Members {
			if hasUnion(m.Value, depth+1) {
				return true
			}
		}
	case jsontree.Array:
		for _, v := range s.Items {
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
	flat    *schema.Flattener
	variant int
	minimal bool
	muts    []mutation
}

func newGen(root *jsontree.Node, variant int, minimal bool) *gen {
	return &gen{variant: variant, minimal: minimal, flat: &schema.Flattener{
		Root: root, MaxDepth: maxDepth, Lenient: true, Merge: fold,
		Leaf: func(*jsontree.Node, string) (*jsontree.Node, error) {
			return &jsontree.Node{Kind: jsontree.Object}, nil
		},
	}}
}

func (g *gen) mutate(path []any, value any) {
	g.muts = append(g.muts, mutation{path: append([]any(nil), path...), value: value})
}

func (g *gen) remove(path []any) {
	g.muts = append(g.muts, mutation{path: append([]any(nil), path...), delete: true})
}

// fold adds the keywords of src to dst as allOf does (see
// schema.MergeKeyword); where the parts cannot be merged, the first wins.
func fold(dst, src *jsontree.Node, _ string) error {
	for _, m := range src.Members {
		old := dst.Get(m.Key)
		if old == nil {
			dst.Set(m.Key, m.Value)
			continue
		}
		if merged, ok, err := schema.MergeKeyword(m.Key, old, m.Value); ok && err == nil {
			dst.Set(m.Key, merged)
		}
	}
	return nil
}

// merged folds $ref and allOf into one schema (see schema.Flattener).
func (g *gen) merged(s *jsontree.Node) *jsontree.Node {
	out, _, err := g.flat.Flatten(s, "")
	if err != nil {
		return s
	}
	return out
}

// value builds an instance of s located at path, recording mutations.
func (g *gen) value(s *jsontree.Node, path []any, depth int) any {
	if depth > maxDepth {
		return nil
	}
	if s.Kind != jsontree.Object {
		// true (anything goes) or false (nothing does): a string either way.
		return "x"
	}
	s = g.merged(s)
	if c := s.Get("const"); c != nil {
		v := data(c)
		g.mutate(path, wrongValue(v))
		return v
	}
	if enum := s.Get("enum"); enum != nil && enum.Kind == jsontree.Array && len(enum.Items) > 0 {
		values := data(enum).([]any)
		g.mutate(path, outsideEnum(values))
		return values[g.variant%len(values)]
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if branches := s.Get(key); branches != nil && branches.Kind == jsontree.Array && len(branches.Items) > 0 {
			b := branches.Items[g.variant%len(branches.Items)]
			if b.Kind == jsontree.Object {
				// Sibling keywords apply to every branch: fold them in.
				folded := s.Without(key, "description")
				for _, m := range g.merged(b).Members {
					folded.Set(m.Key, m.Value)
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

// data returns the JSON value n as encoding/json decodes it.
func data(n *jsontree.Node) any {
	var v any
	_ = json.Unmarshal([]byte(n.String()), &v)
	return v
}

// pickType chooses the JSON type to build: the variant's entry of a type
// list (null last), or one implied by the keywords present.
func (g *gen) pickType(s *jsontree.Node) string {
	if t := s.Get("type"); t != nil && t.Kind == jsontree.String {
		return t.Str
	} else if t != nil && t.Kind == jsontree.Array {
		types, null := schema.SplitNull(schema.Types(t))
		if null {
			types = append(types, "null")
		}
		if len(types) == 0 {
			return ""
		}
		return types[g.variant%len(types)]
	}
	switch {
	case s.Has("properties") || s.Has("additionalProperties") || s.Has("required"):
		return "object"
	case s.Has("items") || s.Has("prefixItems"):
		return "array"
	case s.Has("minimum") || s.Has("maximum"):
		return "number"
	case s.Has("pattern") || s.Has("format") || s.Has("minLength") || s.Has("maxLength"):
		return "string"
	}
	return ""
}

// num returns the number n holds.
func num(n *jsontree.Node) (float64, bool) {
	if n == nil || n.Kind != jsontree.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	return f, err == nil
}

// isBool reports whether n is the boolean b.
func isBool(n *jsontree.Node, b bool) bool {
	return n != nil && n.Kind == jsontree.Bool && n.Bool == b
}

func (g *gen) number(s *jsontree.Node, typ string, path []any) any {
	g.mutate(path, "1")
	lo, hi := math.Inf(-1), math.Inf(1)
	if m, ok := num(s.Get("minimum")); ok {
		lo = m
		if isBool(s.Get("exclusiveMinimum"), true) {
			lo = nextUp(m, typ)
		}
	}
	if m, ok := num(s.Get("exclusiveMinimum")); ok {
		lo = math.Max(lo, nextUp(m, typ))
	}
	if m, ok := num(s.Get("maximum")); ok {
		hi = m
		if isBool(s.Get("exclusiveMaximum"), true) {
			hi = nextDown(m, typ)
		}
	}
	if m, ok := num(s.Get("exclusiveMaximum")); ok {
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
	if m, ok := num(s.Get("multipleOf")); ok && m > 0 {
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

func (g *gen) str(s *jsontree.Node, path []any) any {
	g.mutate(path, 1)
	minLen, hasMin := num(s.Get("minLength"))
	maxLen, hasMax := num(s.Get("maxLength"))
	v := "x"
	if f, ok := s.Get("format").StringValue(); ok {
		if sample, ok := formats[f]; ok {
			v = sample
		}
		if _, known := formats[f]; known && f != "regex" {
			g.mutate(path, "not a "+f+" value %%")
		}
	}
	if p, ok := s.Get("pattern").StringValue(); ok {
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

func (g *gen) array(s *jsontree.Node, path []any, depth int) any {
	g.mutate(path, map[string]any{"not": "an array"})
	var out []any
	items := s.Get("items")
	if prefix := s.Get("prefixItems"); prefix != nil && prefix.Kind == jsontree.Array {
		for i, p := range prefix.Items {
			out = append(out, g.value(p, append(path, i), depth+1))
		}
	} else if items != nil && items.Kind == jsontree.Array {
		for i, p := range items.Items {
			out = append(out, g.value(p, append(path, i), depth+1))
		}
	}
	minItems, hasMin := num(s.Get("minItems"))
	maxItems, hasMax := num(s.Get("maxItems"))
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
	hasItems := items != nil && items.Kind != jsontree.Array
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

func (g *gen) object(s *jsontree.Node, path []any, depth int) any {
	g.mutate(path, "not an object")
	out := map[string]any{}
	props := s.Get("properties")
	if props == nil || props.Kind != jsontree.Object {
		props = &jsontree.Node{Kind: jsontree.Object}
	}
	required := map[string]bool{}
	if req := s.Get("required"); req != nil {
		for _, r := range req.Items {
			if name, ok := r.StringValue(); ok {
				required[name] = true
			}
		}
	}
	names := props.Keys()
	sort.Strings(names)
	// Deep down only required properties are built, so that recursive
	// schemas end.
	minimal := g.minimal || depth > maxDepth/2
	for _, name := range names {
		if minimal && !required[name] {
			continue
		}
		out[name] = g.value(props.Get(name), append(path, name), depth+1)
	}
	extra := s.Get("additionalProperties")
	hasExtra, closed := extra != nil, isBool(extra, false)
	reqNames := make([]string, 0, len(required))
	for name := range required {
		reqNames = append(reqNames, name)
	}
	sort.Strings(reqNames)
	for _, name := range reqNames {
		if _, ok := out[name]; !ok {
			if hasExtra && !closed {
				out[name] = g.value(extra, append(path, name), depth+1)
			} else {
				out[name] = "x"
			}
		}
		g.remove(append(path, name))
	}
	if hasExtra && len(props.Members) == 0 && !minimal {
		if extra.Kind == jsontree.Object {
			out["key"] = g.value(extra, append(path, "key"), depth+1)
		}
	}
	if minP, ok := num(s.Get("minProperties")); ok && !closed {
		for i := 0; len(out) < int(minP) && i < 64; i++ {
			out[fmt.Sprintf("extra%d", i)] = "x"
		}
	}
	if closed {
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
