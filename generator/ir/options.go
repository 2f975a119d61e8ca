package ir

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// Gemini forms.
const (
	GeminiTyped = "typed"
	GeminiJSON  = "json"
)

// Parts of a generated package, as --emit names them.
const (
	PartTypes  = "types"
	PartClient = "client"
	PartGemini = "gemini"
	// PartAnthropic and PartOpenAI are written only when asked for: they
	// make the package import the providers' SDKs.
	PartAnthropic = "anthropic"
	PartOpenAI    = "openai"
	// PartFake is the handler interface of the tools and the fake server
	// built on it, for tests and for Go servers; written only when asked
	// for.
	PartFake = "fake"
)

// Parts lists every part in the order files are written.
var Parts = []string{PartTypes, PartClient, PartGemini, PartAnthropic, PartOpenAI, PartFake}

// DefaultParts are the parts written when none are named.
var DefaultParts = []string{PartTypes, PartClient, PartGemini}

// FileNames are the files each part writes; prompts.go and templates.go
// only when the server lists prompts or resource templates. The .jsonl
// files are data that the Go files beside them embed.
var FileNames = map[string][]string{
	PartTypes:     {"types.go", "validate.go", "schemas.go", "tools.jsonl"},
	PartClient:    {"client.go", "prompts.go", "templates.go"},
	PartGemini:    {"gemini.go", "gemini.jsonl"},
	PartAnthropic: {"anthropic.go"},
	PartOpenAI:    {"openai.go"},
	PartFake:      {"fake.go"},
}

// Declared are the package-level exported identifiers each part declares
// besides the types, constants and methods derived from the tools. The IR
// keeps the types it names off all of them, whichever parts are written, so
// that writing another part never renames a type. A part that declares a
// new identifier must list it here: rendering refuses output that declares
// a name twice.
var Declared = map[string][]string{
	PartTypes:     {"SnapshotHash", "ValidateArguments", "ValidateResult", "MCPTools", "ToolSearch"},
	PartClient:    {"Client", "NewClient"},
	PartGemini:    {"FunctionDeclarations", "Tools", "DeclaredNames"},
	PartAnthropic: {"AnthropicToolParams", "NewAnthropicToolset", "AnthropicDeclaredNames"},
	PartOpenAI:    {"OpenAIFunctionDefinitions", "NewOpenAIToolset", "OpenAIDeclaredNames"},
	PartFake:      {"Handler", "UnimplementedHandler", "NewServer", "NewFake"},
}

// reservedIdentifiers lists the identifiers of every part, in the order of
// Parts, and then extra.
func reservedIdentifiers(extra []string) []string {
	var out []string
	for _, p := range Parts {
		out = append(out, Declared[p]...)
	}
	return append(out, extra...)
}

// Options are the settings of one generation, from the IR build to the
// rendered files. The pipeline takes them once: the IR is built with them
// (BuildOptions), the files are rendered with them, and diff builds the IR
// it compares with them, so that all of them name the same identifiers.
type Options struct {
	// Package is the Go package name.
	Package string
	// Parts are the parts to write; nil means DefaultParts.
	Parts []string
	// Gemini is GeminiTyped (the default) or GeminiJSON.
	Gemini string
	// OpenAIStrict declares the tools of the openai part in strict mode.
	OpenAIStrict bool
	// Limits bound the tool count and the schema depth; zero fields take
	// the defaults (DefaultMaxTools, DefaultMaxSchemaDepth).
	Limits Limits
	// Overrides change the Go name or type of properties, keyed by
	// OverrideKey.
	Overrides map[string]Override
	// Sharing says which types several tools share; the zero value shares
	// every type it can.
	Sharing Sharing
	// KeepUnusedOverrides accepts overrides whose property is not in the
	// tools, and entries of Sharing.Except that match no type, as when one
	// configuration builds two versions of a server.
	KeepUnusedOverrides bool
	// Reserved are package-level identifiers the generated code declares
	// besides those of Declared, which are always reserved; the types
	// derived from tools never take them.
	Reserved []string
	// SnapshotHash, when set, is the SnapshotHash to record instead of the
	// hash of the tools generated: the hash of the whole snapshot when
	// only some of its tools are generated. SnapshotTools is then the
	// number of tools in the whole snapshot.
	SnapshotHash  string
	SnapshotTools int
	// Context, when set, stops generation once it is done: the IR build
	// with a *StoppedError naming the tool and the schema being converted,
	// the files with an error naming the file.
	Context context.Context
	// Strict refuses a tool no call of which can succeed (see
	// Error.Uncallable) instead of leaving it out of the package, with
	// the reason in Package.Skipped.
	Strict bool
	// Pinned, when set, puts the package's toolsets in deferred mode: the
	// types part declares ToolSearch, a runtime.ToolSearch with these
	// globs (runtime.ToolFilter's syntax) pinning the tools declared on
	// every request; the other tools are found by search. Each glob must
	// match a tool of the package.
	Pinned []string
}

// An OptionError says which option Check refused: "package", "parts" or
// "gemini".
type OptionError struct {
	Option string
	Reason string
}

func (e *OptionError) Error() string { return e.Reason }

// CheckPackageName refuses, as an *OptionError, a package name that is not a
// Go identifier, and main: a generated package is a library, with no func
// main to run, and a program's package cannot be imported, so code generated
// as package main vets but never links.
func CheckPackageName(name string) error {
	if !token.IsIdentifier(name) || token.IsKeyword(name) || name == "_" {
		return &OptionError{"package", fmt.Sprintf("package name %q is not a Go identifier", name)}
	}
	if name == "main" {
		return &OptionError{"package", `package name "main" makes a program, which no other package can import, and a generated package has no func main: pick another name`}
	}
	return nil
}

// Check reports the first option rendering cannot honour: as an
// *OptionError, the package name (see CheckPackageName), then the parts and the
// Gemini form (see CheckParts); then, as a *PinnedError, a malformed
// pinned glob (see CheckPinned).
// The command line and mcpgen.yaml are checked with these functions too,
// so each rule is written once.
func (o Options) Check() error {
	if err := CheckPackageName(o.Package); err != nil {
		return err
	}
	if err := o.CheckParts(); err != nil {
		return err
	}
	return CheckPinned(o.Pinned)
}

// A PinnedError reports a pinned glob (see Options.Pinned) that is
// malformed or matches no tool of the package.
type PinnedError struct {
	Pattern string
	Reason  string
}

func (e *PinnedError) Error() string {
	return fmt.Sprintf("pinned pattern %q %s", e.Pattern, e.Reason)
}

// CheckPinned refuses, as a *PinnedError, a malformed pinned glob: one
// runtime.ToolFilter would refuse as a pattern. Whether each glob matches
// a tool is checked once the tools are known (see PinnedUnmatched).
func CheckPinned(globs []string) error {
	for _, g := range globs {
		if err := (runtime.ToolFilter{Include: []string{g}}).Check(); err != nil {
			var pe *runtime.ToolPatternError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &PinnedError{Pattern: g, Reason: "is malformed: " + err.Error()}
		}
	}
	return nil
}

// PinnedUnmatched returns the pinned globs that match none of the tools,
// in the order given. Such a glob pins nothing, which is almost always a
// typo, and a toolset in deferred mode refuses it.
func PinnedUnmatched(globs []string, tools []*Tool) []string {
	var out []string
	for _, g := range globs {
		f := runtime.ToolFilter{Include: []string{g}}
		found := false
		for _, t := range tools {
			if f.Keep(t.Name) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, g)
		}
	}
	return out
}

// CheckParts refuses no part or an unknown one, a part that needs the types
// part without it (pinned tools included), and an unknown Gemini form. Nil Parts means DefaultParts,
// and an empty Gemini GeminiTyped.
func (o Options) CheckParts() error {
	if o.Parts != nil && len(o.Parts) == 0 {
		return &OptionError{"parts", "no part to generate"}
	}
	for _, p := range o.Parts {
		if _, ok := FileNames[p]; !ok {
			return &OptionError{"parts", fmt.Sprintf("unknown part %q (want %s)", p, strings.Join(Parts, ", "))}
		}
	}
	for _, p := range []string{PartClient, PartAnthropic, PartOpenAI, PartFake} {
		if slices.Contains(o.Parts, p) && !slices.Contains(o.Parts, PartTypes) {
			return &OptionError{"parts", fmt.Sprintf("the %s part needs the types part", p)}
		}
	}
	if len(o.Pinned) > 0 && o.Parts != nil && !slices.Contains(o.Parts, PartTypes) {
		return &OptionError{"parts", "pinned tools need the types part, which declares ToolSearch"}
	}
	if o.Gemini != "" && o.Gemini != GeminiTyped && o.Gemini != GeminiJSON {
		return &OptionError{"gemini", fmt.Sprintf("unknown Gemini form %q (want typed or json)", o.Gemini)}
	}
	return nil
}
