package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// clientFile renders client.go: the typed Client, one method a tool. Each
// method is one call of mcpimpl.Call or mcpimpl.CallInto, which validate
// the arguments, send them and check the result.
func (g *gen) clientFile() *jen.File {
	f := g.newFile()
	f.Add(comment("Client calls the tools of the server with typed arguments. Each method validates its arguments before sending anything, and reports a result whose isError flag is set as a *runtime.ToolError.")).Type().Id("Client").Struct(jen.Id("caller").Qual(runtimePkg, "Caller"))
	f.Add(comment("NewClient returns a Client that sends calls through c, such as a runtime session.")).Func().Id("NewClient").Params(jen.Id("c").Qual(runtimePkg, "Caller")).Op("*").Id("Client").Block(
		jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{jen.Id("caller"): jen.Id("c")})),
	)
	for _, t := range g.pkg.Tools {
		args := []jen.Code{jen.Id("ctx"), jen.Id("c").Dot("caller"), jen.Lit(t.Name), jen.Op("&").Id("args")}
		paras := []string{fmt.Sprintf("%s calls the tool %s.", t.GoName, quote(t.Name))}
		if t.Description != "" {
			paras = append(paras, t.Description)
		}
		if t.Result != nil {
			paras = append(paras, fmt.Sprintf("It returns the structured result decoded as %s; a result without one is an error.", t.Result.Name))
		}
		method := f.Add(comment(paras...)).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.GoName).
			Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(t.Args.Name))
		if t.Result == nil {
			method.Params(jen.Op("*").Qual(runtimePkg, "Result"), jen.Error()).Block(
				jen.Return(jen.Qual(implPkg, "Call").Call(args...)),
			)
			continue
		}
		method.Params(jen.Op("*").Id(t.Result.Name), jen.Error()).Block(
			jen.Var().Id("out").Id(t.Result.Name),
			jen.If(jen.Err().Op(":=").Qual(implPkg, "CallInto").Call(append(args, jen.Op("&").Id("out"))...), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Op("&").Id("out"), jen.Nil()),
		)
	}
	return f
}
