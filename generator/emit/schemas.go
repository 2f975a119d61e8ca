package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/runtime"
)

// compact returns raw JSON without insignificant whitespace.
func compact(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// sortedRuntimeTools returns the tools of the package in the order of the IR
// (by name), as runtime tools with compact bytes.
func (g *gen) sortedRuntimeTools() []runtime.Tool {
	out := make([]runtime.Tool, 0, len(g.pkg.Tools))
	for _, t := range g.pkg.Tools {
		rt := t.Source
		rt.Raw = json.RawMessage(compact(rt.Raw))
		rt.InputSchema = json.RawMessage(compact(rt.InputSchema))
		if rt.OutputSchema != nil {
			rt.OutputSchema = json.RawMessage(compact(rt.OutputSchema))
		}
		if rt.Annotations != nil {
			rt.Annotations = json.RawMessage(compact(rt.Annotations))
		}
		out = append(out, rt)
	}
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

	var vars, inputs, outputs []jen.Code
	for i, t := range g.pkg.Tools {
		rt := tools[i]
		vars = append(vars, jen.Id("inputSchema"+t.GoName).Op("=").Qual(runtimePkg, "NewSchema").Call(jen.Lit(t.Name), jen.Index().Byte().Call(jen.Lit(string(rt.InputSchema)))))
		inputs = append(inputs, jen.Lit(t.Name).Op(":").Id("inputSchema"+t.GoName))
		if t.Result != nil {
			vars = append(vars, jen.Id("outputSchema"+t.GoName).Op("=").Qual(runtimePkg, "NewSchema").Call(jen.Lit(t.Name), jen.Index().Byte().Call(jen.Lit(string(rt.OutputSchema)))))
			outputs = append(outputs, jen.Lit(t.Name).Op(":").Id("outputSchema"+t.GoName))
		}
	}
	f.Add(comment("The tools' own schemas, compiled on first use.")).Var().Defs(vars...)
	f.Var().Id("inputSchemas").Op("=").Map(jen.String()).Op("*").Qual(runtimePkg, "Schema").Values(multiline(inputs)...)
	f.Var().Id("outputSchemas").Op("=").Map(jen.String()).Op("*").Qual(runtimePkg, "Schema").Values(multiline(outputs)...)

	f.Add(comment("ValidateArguments checks raw JSON arguments, such as a model produced them, against the tool's own input schema. A violation is a *runtime.ValidationError with the JSON pointer of the offending value.")).Func().Id("ValidateArguments").Params(jen.Id("tool").String(), jen.Id("args").Index().Byte()).Error().Block(
		jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id("inputSchemas").Index(jen.Id("tool")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown tool %q"), jen.Id("tool")))),
		jen.Return(jen.Id("s").Dot("Validate").Call(jen.Id("args"))),
	)
	f.Add(comment("ValidateResult checks a tool's raw structured result against its output schema. Tools without an output schema accept any result.")).Func().Id("ValidateResult").Params(jen.Id("tool").String(), jen.Id("structured").Index().Byte()).Error().Block(
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("inputSchemas").Index(jen.Id("tool")), jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown tool %q"), jen.Id("tool")))),
		jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id("outputSchemas").Index(jen.Id("tool")), jen.Id("ok")).Block(
			jen.Return(jen.Id("s").Dot("Validate").Call(jen.Id("structured")))),
		jen.Return(jen.Nil()),
	)

	texts := make([]jen.Code, len(tools))
	for i, rt := range tools {
		texts[i] = textLit(string(rt.Raw))
	}
	f.Add(comment("toolsJSON holds each tool as the server sent it, compacted, in name order.")).Var().Id("toolsJSON").Op("=").Index(jen.Op("...")).String().Values(multiline(texts)...)
	what := fmt.Sprintf("the %d tools this package was generated from", len(tools))
	if g.opts.SnapshotHash != "" {
		what = fmt.Sprintf("the %d tools this package was generated for, selected from the %d of its snapshot", len(tools), g.opts.SnapshotTools)
	}
	f.Add(comment(fmt.Sprintf("MCPTools returns %s, in name order, with the schemas as the server sent them. Each call returns a new slice.", what))).Func().Id("MCPTools").Params().Index().Qual(runtimePkg, "Tool").Block(
		jen.Return(jen.Qual(implPkg, "Tools").Call(jen.Id("toolsJSON").Index(jen.Op(":")))),
	)
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

// textLit renders a JSON text as a raw string literal, which a reader sees
// as the JSON itself, or as an interpreted one when the text holds what a
// raw literal cannot: a backquote, a carriage return (which the compiler
// drops from raw literals), a NUL or byte order mark, or invalid UTF-8.
func textLit(s string) jen.Code {
	if !utf8.ValidString(s) || strings.ContainsAny(s, "`\r\x00\ufeff") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}
