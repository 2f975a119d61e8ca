// Package server is the server side of MCP for a table of tools: enough of
// a server to stand in for a real one in tests, and to put Go functions
// behind the interface a generated package declares.
//
// A Server answers the initialize handshake of the legacy era (2025-11-25
// and older) and the server/discover probe and per-request metadata of the
// 2026-07-28 era, lists its tools, checks each call's arguments against the
// tool's input schema as a real server does, and runs the tool's handler.
// A call of a tool it does not have, and a handler that returns
// UnknownToolError, get the JSON-RPC error a real server sends for an
// unknown tool; a handler's other errors, and its panics, become results
// whose isError flag is set.
//
// The same Server can be reached in three ways: in memory by a
// runtime.Session (Connect), over stdio (Serve), and over Streamable HTTP
// (it is an http.Handler). Packages generated with the fake part build a
// Server from a typed handler interface (see NewServer and NewFake in such
// a package).
//
// Besides tools, a Server offers prompts (prompts/list, prompts/get) and
// resource templates (resources/templates/list, and resources/read of the
// URIs they match), each with a handler. A handler can ask the client for
// input (Elicit, Sample, ListRoots): in the legacy era with a request to
// the client, and in the 2026-07-28 era with an input_required result and
// a run of the handler again once the client answers. It keeps no state
// between HTTP requests, and offers no static resources or subscriptions.
// For a production server with the whole protocol, use the MCP go-sdk.
package server
