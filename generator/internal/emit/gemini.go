package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// geminiFile renders gemini.go: the declarations runtime/gemini makes from
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
		jen.List(jen.Id("decls"), jen.Id("_")).Op(":=").Qual(implPkg, "DecodeLiterals").Index(jen.Qual(genaiPkg, "FunctionDeclaration")).Call(jen.Id("geminiDeclarations").Index(jen.Op(":"))),
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
	g.addArray("gemini.go", stringArray{doc: "geminiDeclarations holds each function declaration as JSON, in name order.", name: "geminiDeclarations", elems: texts})
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
	go func() { g.gemini <- makeGeminiDecls(tools, jsonForm) }()
}

// Gemini is a start on the Gemini declarations of a package, made by
// StartGemini while the IR is built.
type Gemini struct {
	tools    []runtime.Tool
	jsonForm bool
	out      chan geminiDecls
}

// StartGemini begins the Gemini declarations of tools, in a goroutine, when
// opts ask for the gemini part, and returns nil otherwise. tools are those
// the IR is built from, in any order; they are declared in the IR's order,
// by name. RenderWith takes the result when the package holds the same
// tools (none was left out), and makes the declarations again otherwise,
// since a tool left out can change the names of the others. Run beside the
// IR's build, the work fills the time the build leaves a processor idle.
func StartGemini(tools []runtime.Tool, opts ir.Options) *Gemini {
	parts := opts.Parts
	if parts == nil {
		parts = ir.DefaultParts
	}
	if !slices.Contains(parts, ir.PartGemini) {
		return nil
	}
	sorted := slices.Clone(tools)
	slices.SortStableFunc(sorted, func(a, b runtime.Tool) int { return strings.Compare(a.Name, b.Name) })
	e := &Gemini{tools: sorted, jsonForm: opts.Gemini == ir.GeminiJSON, out: make(chan geminiDecls, 1)}
	go func() { e.out <- makeGeminiDecls(e.tools, e.jsonForm) }()
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

// makeGeminiDecls makes the declarations of tools and their texts.
func makeGeminiDecls(tools []runtime.Tool, jsonForm bool) geminiDecls {
	var out geminiDecls
	decls, names, err := gemini.Declarations(tools, &gemini.DeclarationOptions{JSONSchema: jsonForm})
	if err != nil {
		out.err = err
		return out
	}
	out.texts, out.names = make([]string, len(decls)), names
	errs := make([]error, len(decls))
	inParallel(len(decls), func(i int) { out.texts[i], errs[i] = declarationText(decls[i]) })
	for i, err := range errs {
		if err != nil {
			out.err = fmt.Errorf("encoding the Gemini declaration of %s: %w", names[decls[i].Name], err)
			break
		}
	}
	return out
}

// inParallel calls f for 0 ≤ i < n on GOMAXPROCS goroutines. Each call
// must touch only its own index's data.
func inParallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(goruntime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// declarationText encodes d compactly, leaving <, > and & as they are, as
// the JSON text FunctionDeclarations decodes with mcpimpl.DecodeLiterals.
// That every declaration reads back to itself through that decoder is
// checked by TestDeclarationTextsReadBack over the corpus, rather than
// once more for every declaration of every generation.
func declarationText(d *genai.FunctionDeclaration) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
