// Package outputs is generated from testdata/golden/outputs/snapshot.json:
// tools with output schemas (a plain object, $defs with a property named
// "(default)", a oneOf at the top) and an input schema with if/then. Its
// tests drive the generated Client through a fake caller and through the
// generated fake server. Everything but
// this file and the tests is generated.
package outputs

//go:generate go run ../../../cmd/mcpgen generate --snapshot ../../../testdata/golden/outputs/snapshot.json --package outputs --emit types,client,gemini,fake --out .
