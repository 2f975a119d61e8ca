// Package otelmcp reports what a runtime.Session does to OpenTelemetry:
// a span and a duration measurement for each MCP request, a span for each
// request of the server the Session's handlers answer, an execute_tool
// span for each tool call a provider's model asks for, and the trace
// context of the active span carried to the server in params._meta.
// Only programs that import this package depend on OpenTelemetry.
//
// Install a Client's Middleware and ToolRunHook in runtime.Options (Install
// does both):
//
//	tel, err := otelmcp.New(nil) // the global providers and propagator
//	if err != nil { ... }
//	opts := &runtime.Options{}
//	tel.Install(opts)
//	s, err := runtime.Connect(ctx, transport, opts)
//
// # Conventions
//
// Names follow the OpenTelemetry semantic conventions for MCP as published
// in semantic conventions v1.41.0 (the last release that carried them
// before they moved to the GenAI conventions repository, whose text has the
// same names) and the GenAI conventions for execute_tool spans:
//
//   - A request's span is named "{mcp.method.name} {target}", the target
//     being the tool of a tools/call ("tools/call get_weather") or the
//     prompt of a prompts/get ("prompts/get greet"), and just
//     "{mcp.method.name}" otherwise. It is of kind CLIENT; the span of a
//     server's request (sampling/createMessage, elicitation/create,
//     roots/list) is of kind SERVER, a child of the call it came with.
//   - Attributes: mcp.method.name, mcp.protocol.version, mcp.session.id
//     (Streamable HTTP sessions only), jsonrpc.request.id (a server's id
//     as a string, without JSON quotes), gen_ai.tool.name
//     and gen_ai.operation.name=execute_tool on tools/call,
//     gen_ai.prompt.name on prompts/get,
//     mcp.resource.uri on resources/read, resources/subscribe and
//     resources/unsubscribe, network.transport ("pipe" for stdio, "tcp" for
//     HTTP), server.address and server.port, and on failure error.type:
//     "tool_error" for a tool call result whose isError is set (that of a
//     tools/call, a tasks/result, or inlined by a tasks/get), the code of
//     an error response when it is a JSON-RPC or MCP code (or the SDKs'
//     -32000 and -32001), the status of an HTTP response that carried no
//     JSON-RPC message when it is 400 to 599 ("401", "503"), "timeout",
//     "cancelled", or "_OTHER" (a panic below the Middleware among them),
//     so that its values stay few whatever a server sends. The span's
//     rpc.response.status_code is the code of an error response; the
//     metric's is that code when error.type is, and absent otherwise.
//   - What the server chose is scrubbed of the connection's credentials
//     and cut to 512 bytes, ending with "…" and a hash of the whole:
//     tool and prompt names (in span names too), ids and URIs. A resource
//     URI is shown as the traffic log shows a server's URL: its password,
//     a user name standing for a token and its query values replaced by
//     "[REDACTED]".
//   - Task requests (tasks/get, tasks/result, tasks/cancel, tasks/update)
//     are children of the tools/call span that created the task.
//   - Metrics: mcp.client.operation.duration for each request (with the
//     span's attributes but jsonrpc.request.id, mcp.session.id and
//     mcp.resource.uri, of high cardinality; past the first 1,000 tool and
//     prompt names a Client measures, the others are "_OTHER") and
//     mcp.client.session.duration for each Session, recorded when it is
//     closed or its connection ends, with mcp.protocol.version and, for a
//     connection that ended otherwise than by Close, error.type;
//     histograms in seconds with the conventions' bucket boundaries.
//   - An execute_tool span ("execute_tool {gen_ai.tool.name}", kind
//     INTERNAL) covers each tool call of a model run by runtime/gemini,
//     runtime/anthropic or runtime/openai; the tools/call span nests under it.
//
// Arguments and results are recorded (gen_ai.tool.call.arguments and
// gen_ai.tool.call.result) only when Options.RecordContent is set, and then
// redacted as the traffic log redacts them: the values of secret-looking
// members are replaced and the connection's credentials removed.
package otelmcp
