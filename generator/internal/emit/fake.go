package emit

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// serverPkg is the server side of MCP that the fake part builds on, and
// fakeImplPkg the helpers its functions call.
const (
	serverPkg   = "github.com/mcpgen/mcpgen/runtime/server"
	fakeImplPkg = "github.com/mcpgen/mcpgen/runtime/mcpimpl/fakeimpl"
)

// fakeFile renders fake.go: the Handler interface, one method a tool and,
// when the client part declares their types, one a prompt and one a
// resource template; the UnimplementedHandler to embed in one; NewServer,
// a runtime/server Server whose calls a Handler answers; and NewFake, a
// Session connected to that server in memory. Each function is one call of
// a runtime/mcpimpl/fakeimpl or runtime/server helper.
func (g *gen) fakeFile() *jen.File {
	f := g.newFile()
	f.ImportName(serverPkg, "server")
	f.ImportName(fakeImplPkg, "fakeimpl")
	var methods, unimplemented, servers []jen.Code
	for _, t := range g.pkg.Tools {
		result := jen.Op("*").Qual(runtimePkg, "Result")
		serve := "ServeTool"
		if t.Result != nil {
			result = jen.Op("*").Id(t.Result.Name)
			serve = "ServeToolInto"
		}
		paras := []string{fmt.Sprintf("%s answers the tool %s.", t.GoName, quote(t.Name))}
		if t.Result != nil {
			paras = append(paras, "The result is sent as the structured content, which must satisfy the tool's output schema, and as its JSON text.")
		}
		method := jen.Add(comment(paras...))
		if len(methods) > 0 {
			method = jen.Line().Add(comment(paras...))
		}
		methods = append(methods, method.Id(t.GoName).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(t.Args.Name)).Params(result.Clone(), jen.Error()))
		unimplemented = append(unimplemented, jen.Add(comment(fmt.Sprintf("%s answers as a server without the tool %s does.", t.GoName, quote(t.Name)))).
			Func().Params(jen.Id("UnimplementedHandler")).Id(t.GoName).Params(jen.Qual("context", "Context"), jen.Id(t.Args.Name)).Params(result.Clone(), jen.Error()).Block(
			jen.Return(jen.Nil(), jen.Qual(fakeImplPkg, "Unimplemented").Call(jen.Lit(t.Name))),
		))
		servers = append(servers, jen.Qual(fakeImplPkg, serve).Call(jen.Lit(t.Name), jen.Id("Handler").Dot(t.GoName)))
	}
	add := func(name, doc, param, args, result, serve, listing string, unimpl jen.Code, udoc string) {
		method := jen.Line().Add(comment(doc))
		if len(methods) == 0 {
			method = jen.Add(comment(doc))
		}
		methods = append(methods, method.Id(name).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id(param).Id(args)).Params(jen.Op("*").Qual(runtimePkg, result), jen.Error()))
		unimplemented = append(unimplemented, jen.Add(comment(udoc)).
			Func().Params(jen.Id("UnimplementedHandler")).Id(name).Params(jen.Qual("context", "Context"), jen.Id(args)).Params(jen.Op("*").Qual(runtimePkg, result), jen.Error()).Block(
			jen.Return(jen.Nil(), unimpl),
		))
		servers = append(servers, jen.Qual(fakeImplPkg, serve).Call(jen.Lit(listing), jen.Id("Handler").Dot(name)))
	}
	if slices.Contains(g.opts.Parts, ir.PartClient) {
		for _, p := range g.pkg.Prompts {
			add(p.Method, fmt.Sprintf("%s answers prompts/get of the prompt %s. Required arguments are always present.", p.Method, quote(p.Name)),
				"args", p.ArgsName, "GetPromptResult", "ServePrompt", promptListing(p),
				jen.Qual(fakeImplPkg, "UnimplementedPrompt").Call(jen.Lit(p.Name)),
				fmt.Sprintf("%s answers as a server without the prompt %s does.", p.Method, quote(p.Name)))
		}
		for _, t := range g.pkg.Templates {
			add(t.Method, fmt.Sprintf("%s answers resources/read of a URI of the resource template %s, %s, with the variables the URI gave. Return runtime/server.ErrResourceNotFound for a resource that does not exist.", t.Method, quote(t.Name), quote(t.URITemplate)),
				"params", t.ParamsName, "ReadResourceResult", "ServeTemplate", templateListing(t),
				jen.Qual(fakeImplPkg, "UnimplementedTemplate").Call(),
				fmt.Sprintf("%s answers as a server without the resource does.", t.Method))
		}
	}
	f.Add(comment(
		"Handler answers the tools' calls for NewServer and NewFake, one method a tool, and the server's prompts and resource templates, one method each. Each tool method gets the arguments already checked against the tool's input schema. An error it returns is sent as a result whose isError flag is set, as is a panic, except a *runtime.RPCError, which is sent as the call's JSON-RPC error; a prompt or template method's error is a JSON-RPC error.",
		"Embed UnimplementedHandler in a Handler to implement only the tools a test needs, and to keep it compiling when the package is generated again with more tools.",
	)).Type().Id("Handler").Interface(methods...)
	f.Add(comment("UnimplementedHandler answers every tool as a server that does not have it does: with the JSON-RPC invalid-params error \"Unknown tool\".")).
		Type().Id("UnimplementedHandler").Struct()
	for _, u := range unimplemented {
		f.Add(u)
	}
	f.Add(comment("NewServer returns an MCP server of the tools, listed as MCPTools lists them, whose calls h answers. It speaks both protocol eras and can be served in memory (Connect), over stdio (Serve) or over Streamable HTTP (it is an http.Handler). opts may be nil; the prompts and resource templates it holds are offered beside those h answers.")).
		Func().Id("NewServer").Params(jen.Id("h").Id("Handler"), jen.Id("opts").Op("*").Qual(serverPkg, "Options")).Params(jen.Op("*").Qual(serverPkg, "Server"), jen.Error()).Block(
		jen.Return(jen.Qual(fakeImplPkg, "NewServer").Call(append([]jen.Code{jen.Id("h"), jen.Id("MCPTools").Call(), jen.Id("opts")}, multiline(servers)...)...)),
	)
	f.Add(comment("NewFake returns a Session connected in memory to NewServer(h, nil), for tests: everything the runtime does with a real server (the handshake, validation, results, the provider toolsets) runs unchanged. opts.ProtocolVersion pins the protocol era; opts may be nil. Close the Session when done.")).
		Func().Id("NewFake").Params(jen.Id("h").Id("Handler"), jen.Id("opts").Op("*").Qual(runtimePkg, "Options")).Params(jen.Op("*").Qual(runtimePkg, "Session"), jen.Error()).Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("NewServer").Call(jen.Id("h"), jen.Nil()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("s").Dot("Connect").Call(jen.Qual("context", "Background").Call(), jen.Id("opts"))),
	)
	return f
}

// promptListing is the JSON of a prompt as prompts/list lists it.
func promptListing(p *ir.Prompt) string {
	type arg struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
	}
	args := make([]arg, len(p.Args))
	for i, a := range p.Args {
		args[i] = arg{a.Name, a.Title, a.Description, a.Required}
	}
	b, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Arguments   []arg  `json:"arguments,omitempty"`
	}{p.Name, p.Title, p.Description, args})
	return string(b)
}

// templateListing is the JSON of a resource template as
// resources/templates/list lists it.
func templateListing(t *ir.Template) string {
	b, _ := json.Marshal(struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
	}{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType})
	return string(b)
}
