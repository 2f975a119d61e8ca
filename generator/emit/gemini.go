package emit

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"

	"github.com/dave/jennifer/jen"
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime/gemini"
)

func (g *gen) geminiFile() (*jen.File, error) {
	tools := g.sortedRuntimeTools()
	decls, names, err := gemini.Declarations(tools, &gemini.DeclarationOptions{JSONSchema: g.opts.Gemini == GeminiJSON})
	if err != nil {
		return nil, err
	}
	f := g.newFile()
	r := newGeminiRenderer(decls)
	// Each declaration is built by a function of its own: small literals
	// keep the file readable and keep go/format fast on thousands of tools,
	// where one literal holding every declaration costs it superlinear time.
	var items []jen.Code
	var builders []jen.Code
	for i, d := range decls {
		lit, err := r.structBody(reflect.ValueOf(*d))
		if err != nil {
			return nil, fmt.Errorf("rendering the Gemini declaration of %s: %w", names[d.Name], err)
		}
		fn := "gemini" + g.pkg.Tools[i].GoName
		items = append(items, jen.Id(fn).Call())
		builders = append(builders, jen.Line().Add(comment(fmt.Sprintf("%s declares the tool %q.", fn, g.pkg.Tools[i].Name))).
			Func().Id(fn).Params().Op("*").Qual(genaiPkg, "FunctionDeclaration").Block(
			jen.Return(jen.Op("&").Qual(genaiPkg, "FunctionDeclaration").Add(lit)),
		))
	}
	form := "the typed Parameters form"
	if g.opts.Gemini == GeminiJSON {
		form = "the JSON Schema form (ParametersJsonSchema holds the server's own schema)"
	}
	f.Add(comment(fmt.Sprintf("FunctionDeclarations returns the Gemini function declarations of the tools, in name order, in %s. Each call returns new values. DeclaredNames maps the declared names back to the MCP tool names.", form))).Func().Id("FunctionDeclarations").Params().Index().Op("*").Qual(genaiPkg, "FunctionDeclaration").Block(
		jen.Return(jen.Index().Op("*").Qual(genaiPkg, "FunctionDeclaration").Values(multiline(items)...)),
	)
	f.Add(comment("Tools returns one Gemini tool that holds every function declaration.")).Func().Id("Tools").Params().Index().Op("*").Qual(genaiPkg, "Tool").Block(
		jen.Return(jen.Index().Op("*").Qual(genaiPkg, "Tool").Values(
			jen.Values(jen.Dict{jen.Id("FunctionDeclarations"): jen.Id("FunctionDeclarations").Call()}))),
	)
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var pairs []jen.Code
	for _, k := range keys {
		pairs = append(pairs, jen.Lit(k).Op(":").Lit(names[k]))
	}
	f.Add(comment("DeclaredNames maps each declared function name to the name of its MCP tool.")).Var().Id("DeclaredNames").Op("=").Map(jen.String()).String().Values(multiline(pairs)...)
	for _, b := range builders {
		f.Add(b)
	}
	for _, b := range r.builders {
		f.Add(b)
	}
	return f, nil
}

// geminiRenderer renders genai values as Go expressions. A schema that
// occurs more than once among the declarations and is large enough to pay
// for a function of its own is built by one, which every occurrence calls:
// the declarations of a server often repeat the same object (a mail
// folder, a recipient) in many tools and properties.
type geminiRenderer struct {
	counts   map[string]int    // schema JSON → occurrences
	names    map[string]string // schema JSON → its builder function
	builders []jen.Code
}

// minSharedSchema is the size in bytes of JSON from which a schema that
// occurs more than once gets a builder function: smaller ones take fewer
// lines written out.
const minSharedSchema = 200

func newGeminiRenderer(decls []*genai.FunctionDeclaration) *geminiRenderer {
	r := &geminiRenderer{counts: map[string]int{}, names: map[string]string{}}
	var walk func(s *genai.Schema)
	walk = func(s *genai.Schema) {
		if s == nil {
			return
		}
		if key, ok := schemaKey(s); ok {
			r.counts[key]++
		}
		walk(s.Items)
		for _, p := range s.Properties {
			walk(p)
		}
		for _, a := range s.AnyOf {
			walk(a)
		}
	}
	for _, d := range decls {
		walk(d.Parameters)
		walk(d.Response)
	}
	return r
}

// schemaKey returns the JSON of s when it is large enough to share.
func schemaKey(s *genai.Schema) (string, bool) {
	data, err := json.Marshal(s)
	if err != nil || len(data) < minSharedSchema {
		return "", false
	}
	return string(data), true
}

// shared returns a call of the builder function of the schema v points
// to, writing the function the first time, when the schema is shared.
func (r *geminiRenderer) shared(v reflect.Value) (jen.Code, bool, error) {
	s, ok := v.Interface().(*genai.Schema)
	if !ok {
		return nil, false, nil
	}
	key, ok := schemaKey(s)
	if !ok || r.counts[key] < 2 {
		return nil, false, nil
	}
	name, ok := r.names[key]
	if !ok {
		name = "sharedGeminiSchema" + strconv.Itoa(len(r.names)+1)
		r.names[key] = name
		body, err := r.structBody(v.Elem())
		if err != nil {
			return nil, false, err
		}
		r.builders = append(r.builders, jen.Line().Add(comment(fmt.Sprintf("%s builds a schema that occurs %d times in the declarations.", name, r.counts[key]))).
			Func().Id(name).Params().Op("*").Qual(genaiPkg, "Schema").Block(
			jen.Return(jen.Op("&").Qual(genaiPkg, "Schema").Add(body)),
		))
	}
	return jen.Id(name).Call(), true, nil
}

var genaiTypeNames = map[genai.Type]string{
	genai.TypeString: "TypeString", genai.TypeNumber: "TypeNumber", genai.TypeInteger: "TypeInteger",
	genai.TypeBoolean: "TypeBoolean", genai.TypeArray: "TypeArray", genai.TypeObject: "TypeObject",
	genai.TypeNULL: "TypeNULL", genai.TypeUnspecified: "TypeUnspecified",
}

// renderValue renders a value of a genai type as a Go expression: structs
// with the fields that are set, in declaration order; maps in key order.
func (r *geminiRenderer) renderValue(v reflect.Value) (jen.Code, error) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return jen.Nil(), nil
		}
		if call, ok, err := r.shared(v); ok || err != nil {
			return call, err
		}
		e := v.Elem()
		if e.Kind() == reflect.Struct {
			inner, err := r.renderValue(e)
			if err != nil {
				return nil, err
			}
			return jen.Op("&").Add(inner), nil
		}
		inner, err := r.renderValue(e)
		if err != nil {
			return nil, err
		}
		return jen.Qual(genaiPkg, "Ptr").Types(typeOf(e.Type())).Call(inner), nil
	case reflect.Struct:
		body, err := r.structBody(v)
		if err != nil {
			return nil, err
		}
		return typeOf(v.Type()).Add(body), nil
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) || v.Type().Elem().Kind() == reflect.Uint8 {
			return jen.Qual(jsonPkg, "RawMessage").Call(jen.Lit(string(v.Bytes()))), nil
		}
		var items []jen.Code
		for i := 0; i < v.Len(); i++ {
			lit, err := r.renderElem(v.Index(i))
			if err != nil {
				return nil, err
			}
			items = append(items, lit)
		}
		return typeOf(v.Type()).Values(items...), nil
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var items []jen.Code
		for _, k := range keys {
			lit, err := r.renderElem(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			items = append(items, jen.Line().Lit(k.String()).Op(":").Add(lit))
		}
		if len(items) > 0 {
			items = append(items, jen.Line())
		}
		return typeOf(v.Type()).Values(items...), nil
	case reflect.Interface:
		if v.IsNil() {
			return jen.Nil(), nil
		}
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, err
		}
		return jen.Qual(jsonPkg, "RawMessage").Call(jen.Lit(compact(data))), nil
	case reflect.String:
		if t, ok := v.Interface().(genai.Type); ok {
			if name, ok := genaiTypeNames[t]; ok {
				return jen.Qual(genaiPkg, name), nil
			}
		}
		if v.Type().PkgPath() != "" {
			return typeOf(v.Type()).Call(jen.Lit(v.String())), nil
		}
		return jen.Lit(v.String()), nil
	case reflect.Bool:
		return jen.Lit(v.Bool()), nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return jen.Id(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("cannot render %v", f)
		}
		return jen.Id(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return nil, fmt.Errorf("cannot render a %s", v.Type())
}

// structBody renders the braces of a struct literal with the fields that
// are set, in declaration order.
func (r *geminiRenderer) structBody(v reflect.Value) (*jen.Statement, error) {
	var order []jen.Code
	for i := 0; i < v.NumField(); i++ {
		fv, ft := v.Field(i), v.Type().Field(i)
		if !ft.IsExported() || fv.IsZero() {
			continue
		}
		lit, err := r.renderValue(fv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ft.Name, err)
		}
		order = append(order, jen.Line().Id(ft.Name).Op(":").Add(lit))
	}
	if len(order) > 0 {
		order = append(order, jen.Line())
	}
	return jen.Values(order...), nil
}

// renderElem renders an element of a composite literal, leaving out the
// type of a pointer to a struct (&T{...} becomes {...}), as gofmt -s would.
func (r *geminiRenderer) renderElem(v reflect.Value) (jen.Code, error) {
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if call, ok, err := r.shared(v); ok || err != nil {
			return call, err
		}
		return r.structBody(v.Elem())
	}
	return r.renderValue(v)
}

// typeOf renders a Go type of the genai package or a builtin.
func typeOf(t reflect.Type) *jen.Statement {
	switch t.Kind() {
	case reflect.Pointer:
		return jen.Op("*").Add(typeOf(t.Elem()))
	case reflect.Slice:
		return jen.Index().Add(typeOf(t.Elem()))
	case reflect.Map:
		return jen.Map(typeOf(t.Key())).Add(typeOf(t.Elem()))
	}
	if t.PkgPath() != "" {
		return jen.Qual(t.PkgPath(), t.Name())
	}
	return jen.Id(t.Name())
}
