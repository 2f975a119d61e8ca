package emit

import (
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/parallel"
	"github.com/mcpgen/mcpgen/runtime"
)

// compact returns raw, valid JSON of a parsed snapshot, without
// insignificant whitespace.
func compact(raw []byte) json.RawMessage {
	return jsontree.AppendCompact(make([]byte, 0, len(raw)), raw)
}

// sortedRuntimeTools returns the tools of the package in the order of the IR
// (by name), as runtime tools with compact bytes. The files are built one at
// a time, so the first call makes them for the others; callers must not
// modify them.
func (g *gen) sortedRuntimeTools() []runtime.Tool {
	if g.runtimeTools == nil {
		g.runtimeTools = g.compactTools()
	}
	return g.runtimeTools
}

// compactTools compacts the tools' texts, on every processor.
func (g *gen) compactTools() []runtime.Tool {
	out := make([]runtime.Tool, len(g.pkg.Tools))
	parallel.For(len(out), func(i int) {
		rt := g.pkg.Tools[i].Source
		rt.Raw = compact(rt.Raw)
		rt.InputSchema = compact(rt.InputSchema)
		if rt.OutputSchema != nil {
			rt.OutputSchema = compact(rt.OutputSchema)
		}
		if rt.Annotations != nil {
			rt.Annotations = compact(rt.Annotations)
		}
		out[i] = rt
	})
	return out
}

func (g *gen) schemasFile() *jen.File {
	f := g.newFile()
	tools := g.sortedRuntimeTools()
	if g.opts.SnapshotHash != "" {
		f.Add(comment(fmt.Sprintf("SnapshotHash is runtime.ToolsHash of the whole tool list this package was generated from: all %d tools of the snapshot, the ones the package leaves out included. A session can compare it with the live list to detect drift.", g.opts.SnapshotTools))).Const().Id("SnapshotHash").Op("=").Lit(g.opts.SnapshotHash)
	} else {
		f.Add(comment("SnapshotHash is runtime.ToolsHash of the tool list this package was generated from. A session can compare it with the live list to detect drift.")).Const().Id("SnapshotHash").Op("=").Lit(runtime.ToolsHash(tools))
	}

	f.Add(comment("ValidateArguments checks raw JSON arguments, such as a model produced them, against the tool's own input schema. A violation is a *runtime.ValidationError with the JSON pointer of the offending value.")).Func().Id("ValidateArguments").Params(jen.Id("tool").String(), jen.Id("args").Index().Byte()).Error().Block(
		jen.Return(jen.Id("schemas").Dot("ValidateArguments").Call(jen.Id("tool"), jen.Id("args"))),
	)
	f.Add(comment("ValidateResult checks a tool's raw structured result against its output schema. Tools without an output schema accept any result.")).Func().Id("ValidateResult").Params(jen.Id("tool").String(), jen.Id("structured").Index().Byte()).Error().Block(
		jen.Return(jen.Id("schemas").Dot("ValidateResult").Call(jen.Id("tool"), jen.Id("structured"))),
	)
	texts := make([]string, len(tools))
	for i, rt := range tools {
		texts[i] = string(rt.Raw)
	}
	what := "the " + count(int64(len(tools)), "tool", "tools") + " this package was generated from"
	if g.opts.SnapshotHash != "" {
		what = fmt.Sprintf("the %s this package was generated for, selected from the %d of its snapshot", count(int64(len(tools)), "tool", "tools"), g.opts.SnapshotTools)
	}
	f.Add(comment(fmt.Sprintf("MCPTools returns %s, in name order, with the schemas as the server sent them. Each call returns a new slice.", what))).Func().Id("MCPTools").Params().Index().Qual(runtimePkg, "Tool").Block(
		jen.Return(jen.Qual(implPkg, "Tools").Call(jen.Id("toolsJSONL"))),
	)
	f.Add(comment("schemas reads the tools' own schemas from toolsJSONL, each when first used, and compiles them.")).Var().Id("schemas").Op("=").Qual(implPkg, "NewSchemas").Call(jen.Id("toolsJSONL"))
	if len(g.opts.Pinned) > 0 {
		globs := make([]jen.Code, len(g.opts.Pinned))
		for i, p := range g.opts.Pinned {
			globs[i] = jen.Lit(p)
		}
		f.Add(comment("ToolSearch returns the deferred mode this package was generated for: the tools whose MCP names match one of Pinned are declared on every request, and the model finds the others with a search, after which they stay declared. Pass it as the Search option of every provider toolset (anthropic.Options, openai.Options, gemini.DeclarationOptions), and use one toolset per conversation, since a toolset remembers the tools found. Each call returns a new value, which may be changed, for instance to set Native.")).
			Func().Id("ToolSearch").Params().Op("*").Qual(runtimePkg, "ToolSearch").Block(
			jen.Return(jen.Op("&").Qual(runtimePkg, "ToolSearch").Values(jen.Dict{jen.Id("Pinned"): jen.Index().String().Values(globs...)})),
		)
	}
	g.embedData(f, "toolsJSONL", dataFile{name: "tools.jsonl", lines: texts}, "each tool as the server sent it, compacted, in name order")
	return f
}

// multiline puts each element of a composite literal on its own line.
func multiline(items []jen.Code) []jen.Code {
	if len(items) == 0 {
		return nil
	}
	out := make([]jen.Code, 0, len(items)+1)
	for _, it := range items {
		out = append(out, jen.Line().Add(it))
	}
	return append(out, jen.Line())
}
