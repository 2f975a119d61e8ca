// Package auth signs an MCP client in to servers that require authorization.
//
// Its types implement runtime.Authorizer, which HTTPOptions.Authorizer takes:
//
//   - OAuth follows the MCP authorization specification: protected resource
//     metadata (RFC 9728), authorization server metadata (RFC 8414, OpenID
//     discovery), client ID metadata documents, pre-registered clients or
//     dynamic registration (RFC 7591), the authorization code flow with PKCE
//     and resource indicators (RFC 8707), issuer checks (RFC 9207), scope
//     step-up and refresh tokens.
//   - Loopback receives the authorization response on 127.0.0.1 for a
//     native application (RFC 8252).
//   - Store keeps registrations and grants; MemoryStore and FileStore
//     implement it.
//
// Token exchange and refresh go through golang.org/x/oauth2. No access or
// refresh token, code, verifier or client secret appears in an error or a
// log record of this package.
package auth
