package emit

import (
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/toolname"
)

// Packages the optional provider files refer to. Only those files import
// them, so a package generated without them does not depend on either SDK,
// and the generator itself imports neither: it takes the declared names
// from provschema.Declare, which runtime/anthropic and runtime/openai build
// their declarations on.
const (
	anthropicSDKPkg     = "github.com/anthropics/anthropic-sdk-go"
	anthropicRuntimePkg = "github.com/mcpgen/mcpgen/runtime/anthropic"
	openaiSharedPkg     = "github.com/openai/openai-go/v3/shared"
	openaiRuntimePkg    = "github.com/mcpgen/mcpgen/runtime/openai"
)

// anthropicFile renders anthropic.go: the tools declared for Claude by
// runtime/anthropic from the schemas MCPTools holds, a Toolset constructor,
// and the map from declared names back to MCP names. The declarations are
// made at generation time too (without the SDK), so that a tool the
// converter rejects fails generation, and so that the name map is checked in.
func (g *gen) anthropicFile() (*jen.File, error) {
	_, names, err := provschema.Declare("Anthropic", g.sortedRuntimeTools(), toolname.Anthropic)
	if err != nil {
		return nil, err
	}
	f := g.newFile()
	f.ImportName(anthropicSDKPkg, "anthropic")
	f.ImportAlias(anthropicRuntimePkg, "mcpanthropic")
	f.Add(comment("AnthropicToolParams returns the tools declared for Anthropic's Messages API, in name order, made by runtime/anthropic from the tools' own schemas (see MCPTools). AnthropicDeclaredNames maps the declared names back to the MCP tool names. Each call returns new values; the error is nil unless runtime/anthropic has changed since this file was generated.")).
		Func().Id("AnthropicToolParams").Params().Params(jen.Index().Qual(anthropicSDKPkg, "ToolParam"), jen.Error()).Block(
		jen.List(jen.Id("params"), jen.Id("_"), jen.Err()).Op(":=").Qual(anthropicRuntimePkg, "ToolParams").Call(jen.Id("MCPTools").Call()),
		jen.Return(jen.Id("params"), jen.Err()),
	)
	doc := "NewAnthropicToolset returns a Toolset that offers the tools to a Claude model and runs the model's tool_use blocks through c, each checked against its tool's input schema first."
	opts := jen.Nil()
	if len(g.opts.Pinned) > 0 {
		doc += " The Toolset is in deferred mode (see ToolSearch): it declares the pinned tools and lets the model search for the others."
		opts = jen.Op("&").Qual(anthropicRuntimePkg, "Options").Values(jen.Dict{jen.Id("Search"): jen.Id("ToolSearch").Call()})
	}
	f.Add(comment(doc)).
		Func().Id("NewAnthropicToolset").Params(jen.Id("c").Qual(runtimePkg, "Caller")).Params(jen.Op("*").Qual(anthropicRuntimePkg, "Toolset"), jen.Error()).Block(
		jen.Return(jen.Qual(anthropicRuntimePkg, "NewToolset").Call(jen.Id("c"), jen.Id("MCPTools").Call(), opts)),
	)
	f.Add(comment("AnthropicDeclaredNames maps each declared tool name to the name of its MCP tool.")).
		Var().Id("AnthropicDeclaredNames").Op("=").Map(jen.String()).String().Values(namePairs(names)...)
	return f, nil
}

// openaiFile renders openai.go: the function definitions made by
// runtime/openai (in strict mode with Options.OpenAIStrict), a Toolset
// constructor with the same options, and the map from declared names back
// to MCP names, made at generation time as for anthropicFile.
func (g *gen) openaiFile() (*jen.File, error) {
	_, names, err := provschema.Declare("OpenAI", g.sortedRuntimeTools(), toolname.OpenAI)
	if err != nil {
		return nil, err
	}
	f := g.newFile()
	f.ImportName(openaiSharedPkg, "shared")
	f.ImportAlias(openaiRuntimePkg, "mcpopenai")
	optsVar := f.Add(comment("openAIOptions are the options the definitions were generated with.")).Var().Id("openAIOptions")
	mode := ""
	fields := jen.Dict{}
	if g.opts.OpenAIStrict {
		fields[jen.Id("Strict")] = jen.True()
		mode = ", in strict mode where a tool's schema allows it"
	}
	toolsetDoc := "NewOpenAIToolset returns a Toolset that offers the tools to an OpenAI model, declared as OpenAIFunctionDefinitions declares them, and runs the model's tool calls through c, each checked against its tool's input schema first."
	if len(g.opts.Pinned) > 0 {
		fields[jen.Id("Search")] = jen.Id("ToolSearch").Call()
		toolsetDoc += " The Toolset is in deferred mode (see ToolSearch): it declares the pinned tools and lets the model search for the others."
	}
	if len(fields) > 0 {
		optsVar.Op("=").Op("&").Qual(openaiRuntimePkg, "Options").Values(fields)
	} else {
		optsVar.Op("*").Qual(openaiRuntimePkg, "Options")
	}
	f.Add(comment(fmt.Sprintf("OpenAIFunctionDefinitions returns the tools declared as OpenAI function definitions%s, in name order, made by runtime/openai from the tools' own schemas (see MCPTools). OpenAIDeclaredNames maps the declared names back to the MCP tool names. Each call returns new values; the error is nil unless runtime/openai has changed since this file was generated.", mode))).
		Func().Id("OpenAIFunctionDefinitions").Params().Params(jen.Index().Qual(openaiSharedPkg, "FunctionDefinitionParam"), jen.Error()).Block(
		jen.List(jen.Id("defs"), jen.Id("_"), jen.Err()).Op(":=").Qual(openaiRuntimePkg, "FunctionDefinitions").Call(jen.Id("MCPTools").Call(), jen.Id("openAIOptions")),
		jen.Return(jen.Id("defs"), jen.Err()),
	)
	f.Add(comment(toolsetDoc)).
		Func().Id("NewOpenAIToolset").Params(jen.Id("c").Qual(runtimePkg, "Caller")).Params(jen.Op("*").Qual(openaiRuntimePkg, "Toolset"), jen.Error()).Block(
		jen.Return(jen.Qual(openaiRuntimePkg, "NewToolset").Call(jen.Id("c"), jen.Id("MCPTools").Call(), jen.Id("openAIOptions"))),
	)
	f.Add(comment("OpenAIDeclaredNames maps each declared function name to the name of its MCP tool.")).
		Var().Id("OpenAIDeclaredNames").Op("=").Map(jen.String()).String().Values(namePairs(names)...)
	return f, nil
}

// namePairs renders the entries of a name map, one per line, in key order.
func namePairs(names map[string]string) []jen.Code {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]jen.Code, len(keys))
	for i, k := range keys {
		pairs[i] = jen.Lit(k).Op(":").Lit(names[k])
	}
	return multiline(pairs)
}
