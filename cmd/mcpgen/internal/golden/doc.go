// Package golden holds only tests: the driver of the golden cases in
// testdata/golden at the top of the repository.
//
// Each folder there is one case: its input (a tools/list snapshot, by default
// snapshot.json), an optional case.yaml saying what else the case runs, and
// every expected output of that input. The driver runs mcpgen generate on
// the snapshot and compares each generated file with <file>.golden in the
// folder (or, when case.yaml names a checked-in package, with that
// package's file), and the warnings it prints, if any, with warnings.txt; it
// compares the declarations runtime/anthropic and
// runtime/openai build from the tools with anthropic.json, openai.json and
// openai-strict.json, and mcpgen diff against a second snapshot with
// diff.txt, diff.json and diff.md. With -update it rewrites them all:
//
//	go test ./cmd/mcpgen/internal/golden -update
//
// case.yaml has these keys, all optional:
//
//	snapshot: snapshot.json      # the input, relative to the folder
//	flags: --emit types,openai   # more flags of mcpgen generate; the package is the folder's name unless --package says otherwise
//	package: ../../../generated/x # the checked-in package holding the generated files, instead of <file>.golden here
//	providers: [anthropic, openai, openai-strict] # which provider declarations to pin
//	diff: new.json               # the snapshot to diff the input against
package golden
