package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// templatesFile renders templates.go: for each resource template of the
// server, the struct of its variables with the URI method that expands
// the template (mcpimpl.ExpandURI, over the std-uritemplate library) and its
// Validate method, and the Client method that reads the resource, one call
// of mcpimpl.ReadTemplate.
func (g *gen) templatesFile() *jen.File {
	f := g.newFile()
	for _, t := range g.pkg.Templates {
		g.templateParams(f, t)
		g.templateMethod(f, t)
	}
	return f
}

// templateParams declares the parameter struct of t and its methods.
func (g *gen) templateParams(f *jen.File, t *ir.Template) {
	var fields []jen.Code
	for i, v := range t.Vars {
		kind := "optional: left out of the URI when empty"
		if v.Required {
			kind = "required"
		}
		paras := []string{fmt.Sprintf("%s is the variable %s, %s.", v.GoName, quote(v.Name), kind)}
		if v.List {
			paras = append(paras, "The template explodes it: each item is expanded on its own.")
		}
		tag := v.Name + ",omitempty"
		if v.Required {
			tag = v.Name
		}
		if i > 0 {
			fields = append(fields, jen.Line())
		}
		typ := jen.String()
		if v.List {
			typ = jen.Index().String()
		}
		fields = append(fields, jen.Add(comment(paras...)).Id(v.GoName).Add(typ).Tag(map[string]string{"json": tag}))
	}
	paras := []string{fmt.Sprintf("%s are the variables of the resource template %s, %s.", t.ParamsName, quote(t.Name), quote(t.URITemplate))}
	if t.Title != "" {
		paras = append(paras, t.Title)
	}
	if t.Description != "" {
		paras = append(paras, t.Description)
	}
	f.Add(comment(paras...)).Type().Id(t.ParamsName).Struct(doNotCompareFirst(fields)...)

	recv := func() *jen.Statement { return jen.Params(jen.Id("p").Op("*").Id(t.ParamsName)) }
	f.Add(comment("URI expands the template with p by the rules of RFC 6570, each value escaped as its expression asks. An empty required variable is a *runtime.ValidationError.")).
		Func().Add(recv()).Id("URI").Params().Params(jen.String(), jen.Error()).Block(
		jen.Return(jen.Qual(implPkg, "ExpandURI").Call(jen.Lit(t.Name), jen.Lit(t.URITemplate), jen.Id("p").Dot("vars").Call())),
	)
	f.Add(comment("Validate reports the first required variable that is empty, as a *runtime.ValidationError.")).
		Func().Add(recv()).Id("Validate").Params().Error().Block(
		jen.Return(jen.Qual(implPkg, "CheckURIVars").Call(jen.Lit(t.Name), jen.Id("p").Dot("vars").Call())),
	)
	var list []jen.Code
	for _, v := range t.Vars {
		kv := []jen.Code{jen.Id("Name").Op(":").Lit(v.Name)}
		if v.List {
			kv = append(kv, jen.Id("List").Op(":").Id("p").Dot(v.GoName), jen.Id("IsList").Op(":").True())
		} else {
			kv = append(kv, jen.Id("Value").Op(":").Id("p").Dot(v.GoName))
		}
		if v.Required {
			kv = append(kv, jen.Id("Required").Op(":").True())
		}
		if v.Reserved {
			kv = append(kv, jen.Id("Reserved").Op(":").True())
		}
		list = append(list, jen.Values(kv...))
	}
	vars := jen.Nil()
	if len(list) > 0 {
		vars = jen.Index().Qual(implPkg, "URIVar").Values(list...)
	}
	f.Add(comment("vars lists the variables of p with what the template makes of each.")).Func().Add(recv()).Id("vars").Params().Index().Qual(implPkg, "URIVar").Block(jen.Return(vars))
}

// templateMethod declares the Client method that reads a resource of t.
func (g *gen) templateMethod(f *jen.File, t *ir.Template) {
	paras := []string{fmt.Sprintf("%s reads the resource of the template %s that params name, with resources/read.", t.Method, quote(t.Name))}
	if t.MIMEType != "" {
		paras = append(paras, fmt.Sprintf("The server lists its MIME type as %s.", quote(t.MIMEType)))
	}
	paras = append(paras, "The Client's caller must read resources, as a *runtime.Session does.")
	f.Add(comment(paras...)).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.Method).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Id(t.ParamsName)).
		Params(jen.Op("*").Qual(runtimePkg, "ReadResourceResult"), jen.Error()).Block(
		jen.Return(jen.Qual(implPkg, "ReadTemplate").Call(jen.Id("ctx"), jen.Id("c").Dot("caller"), jen.Lit(t.Name), jen.Op("&").Id("params"))),
	)
}
