package emit

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/parallel"
	"github.com/mcpgen/mcpgen/runtime"
)

// geminiFile renders gemini.go: the declarations geminidecl makes from
// the tools' schemas, kept as one JSON text per tool that
// FunctionDeclarations decodes on each call. The texts are what a reviewer
// reads in a diff, and what the compiler skims: the same declarations
// written as Go composite literals cost it about a second per thousand
// tools.
func (g *gen) geminiFile() (*jen.File, error) {
	d := <-g.gemini
	if d.err != nil {
		return nil, d.err
	}
	texts, names := d.texts, d.names
	f := g.newFile()
	form := "the typed Parameters form"
	if g.opts.Gemini == ir.GeminiJSON {
		form = "the JSON Schema form (ParametersJsonSchema holds the server's own schema)"
	}
	decl := jen.Index().Op("*").Qual(genaiPkg, "FunctionDeclaration")
	f.Add(comment(fmt.Sprintf("FunctionDeclarations returns the Gemini function declarations of the tools, in name order, in %s. Each call returns new values. DeclaredNames maps the declared names back to the MCP tool names.", form))).Func().Id("FunctionDeclarations").Params().Add(decl).Block(
		jen.List(jen.Id("decls"), jen.Id("_")).Op(":=").Qual(implPkg, "DecodeLiterals").Index(jen.Qual(genaiPkg, "FunctionDeclaration")).Call(jen.Qual(implPkg, "Lines").Call(jen.Id("geminiJSONL"))),
		jen.Return(jen.Id("decls")),
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
	g.embedData(f, "geminiJSONL", dataFile{name: "gemini.jsonl", lines: texts}, "each function declaration as JSON, in name order")
	return f, nil
}

// geminiDecls are the Gemini declarations of a package, as geminiFile
// writes them.
type geminiDecls struct {
	texts []string          // JSON, in tool order
	names map[string]string // declared name → MCP name
	err   error
}

// startGemini makes the Gemini declarations in a goroutine of its own, so
// that they are ready when geminiFile, the last file built, needs them: the
// work fills the gaps the other files leave while they are built and
// formatted. Declarations begun by StartGemini are taken instead when they
// are of the same tools.
func (g *gen) startGemini() {
	tools := g.sortedRuntimeTools()
	jsonForm := g.opts.Gemini == ir.GeminiJSON
	if e := g.early; e != nil && e.of(g.pkg.Tools, jsonForm) {
		g.gemini = e.out
		return
	}
	g.gemini = make(chan geminiDecls, 1)
	go func() { g.gemini <- makeGeminiDecls(tools, nil, jsonForm) }()
}

// Gemini is a start on the Gemini declarations of a package, made by
// StartGemini while the IR is built.
type Gemini struct {
	tools    []runtime.Tool
	inputs   []*jsontree.Node
	jsonForm bool
	out      chan geminiDecls
}

// StartGemini begins the Gemini declarations of tools, in a goroutine, when
// opts ask for the gemini part, and returns nil otherwise. tools are those
// the IR is built from, in any order; they are declared in the IR's order,
// by name. inputs, when not nil, holds each tool's input schema as the
// snapshot parsed it, which the declarations then read instead of parsing
// it again (see geminidecl.Declare). RenderWith takes the result when the package holds the same
// tools (none was left out), and makes the declarations again otherwise,
// since a tool left out can change the names of the others. Run beside the
// IR's build, the work fills the time the build leaves a processor idle.
func StartGemini(tools []runtime.Tool, inputs []*jsontree.Node, opts ir.Options) *Gemini {
	parts := opts.Parts
	if parts == nil {
		parts = ir.DefaultParts
	}
	if !slices.Contains(parts, ir.PartGemini) {
		return nil
	}
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(tools[a].Name, tools[b].Name) })
	e := &Gemini{tools: make([]runtime.Tool, len(tools)), jsonForm: opts.Gemini == ir.GeminiJSON, out: make(chan geminiDecls, 1)}
	if len(inputs) == len(tools) {
		e.inputs = make([]*jsontree.Node, len(tools))
	}
	for i, j := range order {
		e.tools[i] = tools[j]
		if e.inputs != nil {
			e.inputs[i] = inputs[j]
		}
	}
	go func() { e.out <- makeGeminiDecls(e.tools, e.inputs, e.jsonForm) }()
	return e
}

// of reports whether e's declarations are those of the package's tools in
// the given form: the same tools in the same order, with the same names,
// titles, descriptions and input schemas, the only parts of a tool a
// declaration is made from.
func (e *Gemini) of(tools []*ir.Tool, jsonForm bool) bool {
	if e.jsonForm != jsonForm || len(e.tools) != len(tools) {
		return false
	}
	for i, t := range tools {
		s, u := &t.Source, &e.tools[i]
		if s.Name != u.Name || s.Title != u.Title || s.Description != u.Description || !bytes.Equal(s.InputSchema, u.InputSchema) {
			return false
		}
	}
	return true
}

// makeGeminiDecls makes the declarations of tools and their texts; inputs
// may be nil (see StartGemini).
func makeGeminiDecls(tools []runtime.Tool, inputs []*jsontree.Node, jsonForm bool) geminiDecls {
	var out geminiDecls
	decls, names, err := geminidecl.Declare(tools, inputs, jsonForm)
	if err != nil {
		out.err = err
		return out
	}
	out.texts, out.names = make([]string, len(decls)), names
	parallel.For(len(decls), func(i int) {
		size := len(tools[i].InputSchema) + len(decls[i].Description) + len(decls[i].Name) + 64
		out.texts[i] = string(decls[i].AppendJSON(make([]byte, 0, size)))
	})
	return out
}
