// Package examples holds programs that use mcpgen. Most are commands of this
// module; consumer is a module of its own, laid out the way another
// repository that depends on mcpgen would be. go generate in this directory
// refreshes consumer's generated client with the mcpgen of this checkout, so
// that "make generate" keeps it in step with the generator.
package examples

//go:generate go run ../cmd/mcpgen generate --snapshot consumer/tools/everything.json --package everything --out consumer/everything
