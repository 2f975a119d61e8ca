// Package schematable is generated from the schema table in
// testdata/schematable/tools.json: one tool per JSON Schema construct, each
// with valid and invalid instances (the x-valid and x-invalid keys). Its
// test checks that the generated Go shape is the expected one and that the
// generated Validate methods and the tools' own schemas agree on every
// instance. Everything but this file and the tests is generated.
package schematable

//go:generate go run ../../../cmd/mcpgen generate --snapshot ../../../testdata/schematable/tools.json --package schematable --out . --emit types
