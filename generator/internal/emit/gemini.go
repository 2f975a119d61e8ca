package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/ir"
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
// formatted.
func (g *gen) startGemini() {
	tools := g.sortedRuntimeTools()
	g.gemini = make(chan geminiDecls, 1)
	go func() {
		var out geminiDecls
		decls, names, err := gemini.Declarations(tools, &gemini.DeclarationOptions{JSONSchema: g.opts.Gemini == ir.GeminiJSON})
		if err != nil {
			out.err = err
			g.gemini <- out
			return
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
		g.gemini <- out
	}()
}

// inParallel calls f for 0 ≤ i < n on GOMAXPROCS goroutines. Each call
// must touch only its own index's data.
func inParallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
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
