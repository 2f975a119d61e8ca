// Package integration tests mcpgen end to end against real MCP servers:
// @modelcontextprotocol/server-everything over stdio, Streamable HTTP and the
// legacy HTTP+SSE transport, and the official go-sdk server in
// internal/testing/sdkserver over stdio and stateless Streamable HTTP, in the
// 2026-07-28 era and pinned to 2025-11-25, and the TypeScript SDK's OAuth
// example server (mcpgen login, logout and the stored tokens, outside the
// typed clients). Every other call goes through the typed
// clients generated from the snapshots this package keeps current
// (generated/everything and generated/sdkserver).
//
// The package holds only tests. Run "go test ./internal/testing/integration -update"
// to capture the servers' tool lists again into testdata/, then
// "go generate ./generated/..." to regenerate the clients.
package integration
