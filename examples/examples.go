// Package examples holds modules that use mcpgen the way another repository
// would; each is a module of its own. go generate in this directory
// refreshes their generated code with the mcpgen of this checkout, so that
// "make generate" keeps them in step with the generator.
package examples

//go:generate go run ../cmd/mcpgen generate --snapshot consumer/tools/everything.json --package everything --out consumer/everything
