// Package corpus checks mcpgen against the tool lists of real MCP servers.
//
// The corpus is testdata/servers at the module root: one canonical snapshot
// per third-party server, captured with mcpgen snapshot by
// testdata/servers/capture.sh from pinned npm and Go module versions. The
// test of this package generates a Go package from every snapshot and
// checks that all of them compile and pass go vet, that every Gemini
// declaration they carry obeys the Gemini rules, and that each generated
// Validate agrees with the tool's own JSON Schema on instances built from
// that schema by Instances: valid ones, and ones mutated to be invalid.
package corpus
