package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// serverPkg is the server side of MCP that the fake part builds on.
const serverPkg = "github.com/mcpgen/mcpgen/runtime/server"

// fakeFile renders fake.go: the Handler interface, one method a tool; the
// UnimplementedHandler to embed in one; NewServer, a runtime/server Server
// whose calls a Handler answers; and NewFake, a Session connected to that
// server in memory. Each function is one call of a runtime/mcpimpl or
// runtime/server helper.
func (g *gen) fakeFile() *jen.File {
	f := g.newFile()
	f.ImportName(serverPkg, "server")
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
			jen.Return(jen.Nil(), jen.Qual(implPkg, "Unimplemented").Call(jen.Lit(t.Name))),
		))
		servers = append(servers, jen.Qual(implPkg, serve).Call(jen.Lit(t.Name), jen.Id("Handler").Dot(t.GoName)))
	}
	f.Add(comment(
		"Handler answers the tools' calls for NewServer and NewFake, one method a tool. Each method gets the arguments already checked against the tool's input schema. An error it returns is sent as a result whose isError flag is set, as is a panic, except a *runtime.RPCError, which is sent as the call's JSON-RPC error.",
		"Embed UnimplementedHandler in a Handler to implement only the tools a test needs, and to keep it compiling when the package is generated again with more tools.",
	)).Type().Id("Handler").Interface(methods...)
	f.Add(comment("UnimplementedHandler answers every tool as a server that does not have it does: with the JSON-RPC invalid-params error \"Unknown tool\".")).
		Type().Id("UnimplementedHandler").Struct()
	for _, u := range unimplemented {
		f.Add(u)
	}
	f.Add(comment("NewServer returns an MCP server of the tools, listed as MCPTools lists them, whose calls h answers. It speaks both protocol eras and can be served in memory (Connect), over stdio (Serve) or over Streamable HTTP (it is an http.Handler); opts may be nil.")).
		Func().Id("NewServer").Params(jen.Id("h").Id("Handler"), jen.Id("opts").Op("*").Qual(serverPkg, "Options")).Params(jen.Op("*").Qual(serverPkg, "Server"), jen.Error()).Block(
		jen.Return(jen.Qual(implPkg, "NewServer").Call(append([]jen.Code{jen.Id("h"), jen.Id("MCPTools").Call(), jen.Id("opts")}, multiline(servers)...)...)),
	)
	f.Add(comment("NewFake returns a Session connected in memory to NewServer(h, nil), for tests: everything the runtime does with a real server (the handshake, validation, results, the provider toolsets) runs unchanged. opts.ProtocolVersion pins the protocol era; opts may be nil. Close the Session when done.")).
		Func().Id("NewFake").Params(jen.Id("h").Id("Handler"), jen.Id("opts").Op("*").Qual(runtimePkg, "Options")).Params(jen.Op("*").Qual(runtimePkg, "Session"), jen.Error()).Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("NewServer").Call(jen.Id("h"), jen.Nil()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("s").Dot("Connect").Call(jen.Qual("context", "Background").Call(), jen.Id("opts"))),
	)
	return f
}
