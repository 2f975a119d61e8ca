package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

func (g *gen) clientFile() *jen.File {
	f := g.newFile()
	f.Add(comment("Client calls the tools of the server with typed arguments. Each method validates its arguments before sending anything, and reports a result whose isError flag is set as a *runtime.ToolError.")).Type().Id("Client").Struct(jen.Id("caller").Qual(runtimePkg, "Caller"))
	f.Add(comment("NewClient returns a Client that sends calls through c, such as a runtime session.")).Func().Id("NewClient").Params(jen.Id("c").Qual(runtimePkg, "Caller")).Op("*").Id("Client").Block(
		jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{jen.Id("caller"): jen.Id("c")})),
	)
	for _, t := range g.pkg.Tools {
		name := jen.Lit(t.Name)
		call := []jen.Code{
			jen.If(jen.Err().Op(":=").Id("args").Dot("Validate").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot("caller").Dot("CallTool").Call(jen.Id("ctx"), name, jen.Op("&").Id("args")),
		}
		paras := []string{fmt.Sprintf("%s calls the tool %s.", t.GoName, quote(t.Name))}
		if t.Description != "" {
			paras = append(paras, t.Description)
		}
		if t.Result == nil {
			call = append(call,
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("res"), jen.Err())),
				jen.If(jen.Err().Op(":=").Qual(runtimePkg, "ResultError").Call(name, jen.Id("res")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("res"), jen.Err())),
				jen.Return(jen.Id("res"), jen.Nil()),
			)
			f.Add(comment(paras...)).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.GoName).
				Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(t.Args.Name)).
				Params(jen.Op("*").Qual(runtimePkg, "Result"), jen.Error()).Block(call...)
			continue
		}
		paras = append(paras, fmt.Sprintf("It returns the structured result decoded as %s; a result without one is an error.", t.Result.Name))
		call = append(call,
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Err().Op(":=").Qual(runtimePkg, "ResultError").Call(name, jen.Id("res")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id("res").Op("==").Nil().Op("||").Len(jen.Id("res").Dot("StructuredContent")).Op("==").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("tool %s returned no structured content"), name))),
			jen.Var().Id("out").Id(t.Result.Name),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("res").Dot("StructuredContent"), jen.Op("&").Id("out")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("decoding the structured result of tool %s: %w"), name, jen.Err()))),
			jen.Return(jen.Op("&").Id("out"), jen.Nil()),
		)
		f.Add(comment(paras...)).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.GoName).
			Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(t.Args.Name)).
			Params(jen.Op("*").Id(t.Result.Name), jen.Error()).Block(call...)
	}
	return f
}
