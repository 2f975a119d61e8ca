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
	// Each declaration is built by a function of its own: small literals
	// keep the file readable and keep go/format fast on thousands of tools,
	// where one literal holding every declaration costs it superlinear time.
	var items []jen.Code
	var builders []jen.Code
	for i, d := range decls {
		lit, err := structBody(reflect.ValueOf(*d))
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
	return f, nil
}

var genaiTypeNames = map[genai.Type]string{
	genai.TypeString: "TypeString", genai.TypeNumber: "TypeNumber", genai.TypeInteger: "TypeInteger",
	genai.TypeBoolean: "TypeBoolean", genai.TypeArray: "TypeArray", genai.TypeObject: "TypeObject",
	genai.TypeNULL: "TypeNULL", genai.TypeUnspecified: "TypeUnspecified",
}

// renderValue renders a value of a genai type as a Go expression: structs
// with the fields that are set, in declaration order; maps in key order.
func renderValue(v reflect.Value) (jen.Code, error) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return jen.Nil(), nil
		}
		e := v.Elem()
		if e.Kind() == reflect.Struct {
			inner, err := renderValue(e)
			if err != nil {
				return nil, err
			}
			return jen.Op("&").Add(inner), nil
		}
		inner, err := renderValue(e)
		if err != nil {
			return nil, err
		}
		return jen.Qual(genaiPkg, "Ptr").Types(typeOf(e.Type())).Call(inner), nil
	case reflect.Struct:
		body, err := structBody(v)
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
			lit, err := renderElem(v.Index(i))
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
			lit, err := renderElem(v.MapIndex(k))
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
func structBody(v reflect.Value) (*jen.Statement, error) {
	var order []jen.Code
	for i := 0; i < v.NumField(); i++ {
		fv, ft := v.Field(i), v.Type().Field(i)
		if !ft.IsExported() || fv.IsZero() {
			continue
		}
		lit, err := renderValue(fv)
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
func renderElem(v reflect.Value) (jen.Code, error) {
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		return structBody(v.Elem())
	}
	return renderValue(v)
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
