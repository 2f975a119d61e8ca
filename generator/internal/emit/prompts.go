package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// promptsFile renders prompts.go: for each prompt of the server, the struct
// of its arguments, its Validate method, and the Client method that gets
// the prompt, one call of mcpimpl.GetPrompt.
func (g *gen) promptsFile() *jen.File {
	f := g.newFile()
	for _, p := range g.pkg.Prompts {
		g.promptArgs(f, p)
		g.promptMethod(f, p)
	}
	return f
}

// promptArgs declares the arguments struct of p and its Validate method.
func (g *gen) promptArgs(f *jen.File, p *ir.Prompt) {
	var fields []jen.Code
	for i, a := range p.Args {
		paras := []string{fmt.Sprintf("%s is the argument %s%s.", a.GoName, quote(a.Name), map[bool]string{true: ", required"}[a.Required])}
		if a.Title != "" {
			paras = append(paras, a.Title)
		}
		if a.Description != "" {
			paras = append(paras, a.Description)
		}
		tag := a.Name + ",omitempty"
		switch {
		case !a.Tagged:
			tag = "-"
		case a.Required:
			tag = a.Name
		}
		if i > 0 {
			fields = append(fields, jen.Line())
		}
		fields = append(fields, jen.Add(comment(paras...)).Id(a.GoName).String().Tag(map[string]string{"json": tag}))
	}
	paras := []string{fmt.Sprintf("%s are the arguments of the prompt %s. Required arguments are always sent and must not be empty; the others are left out when empty.", p.ArgsName, quote(p.Name))}
	f.Add(comment(paras...)).Type().Id(p.ArgsName).Struct(doNotCompareFirst(fields)...)

	var checks []jen.Code
	for _, a := range p.Args {
		if !a.Required {
			continue
		}
		checks = append(checks, jen.If(jen.Err().Op(":=").Qual(implPkg, "RequiredArg").Call(jen.Lit(p.Name), jen.Lit(a.Name), jen.Id("a").Dot(a.GoName)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	}
	checks = append(checks, jen.Return(jen.Nil()))
	f.Add(comment("Validate reports the first required argument that is empty, as a *runtime.ValidationError.")).
		Func().Params(jen.Id("a").Op("*").Id(p.ArgsName)).Id("Validate").Params().Error().Block(checks...)
}

// promptMethod declares the Client method that gets p.
func (g *gen) promptMethod(f *jen.File, p *ir.Prompt) {
	paras := []string{fmt.Sprintf("%s gets the prompt %s with prompts/get, after checking its arguments.", p.Method, quote(p.Name))}
	if p.Title != "" {
		paras = append(paras, p.Title)
	}
	if p.Description != "" {
		paras = append(paras, p.Description)
	}
	paras = append(paras, "The Client's caller must get prompts, as a *runtime.Session does.")
	var list []jen.Code
	for _, a := range p.Args {
		kv := []jen.Code{jen.Id("Name").Op(":").Lit(a.Name), jen.Id("Value").Op(":").Id("args").Dot(a.GoName)}
		if a.Required {
			kv = append(kv, jen.Id("Required").Op(":").True())
		}
		list = append(list, jen.Values(kv...))
	}
	argList := jen.Nil()
	if len(list) > 0 {
		argList = jen.Index().Qual(implPkg, "PromptArg").Values(list...)
	}
	f.Add(comment(paras...)).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(p.Method).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(p.ArgsName)).
		Params(jen.Op("*").Qual(runtimePkg, "GetPromptResult"), jen.Error()).Block(
		jen.Return(jen.Qual(implPkg, "GetPrompt").Call(jen.Id("ctx"), jen.Id("c").Dot("caller"), jen.Lit(p.Name), jen.Op("&").Id("args"), argList)),
	)
}
