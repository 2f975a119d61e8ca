// Package layers holds the test of mcpgen's dependency rules: which layer
// of the module may import which. It reads the import graph with go list
// and names, for each broken rule, the chain of imports that breaks it.
package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the main module's path.
const module = "github.com/mcpgen/mcpgen"

// Layers of the module, as folders. A package belongs to a layer when its
// import path is the folder or below it.
var (
	// core is the shared core that runtime and the generator both use,
	// below both.
	core = []string{"internal/jsontree", "internal/parallel", "internal/schema", "internal/redact", "internal/textcut", "internal/origin"}
	// providerRules are the providers' rules for names and schemas, which
	// the provider adapters of runtime and the generator both use: they
	// build on runtime's types, and stay below the generator.
	providerRules = []string{"internal/geminidecl", "internal/provschema", "internal/toolname"}
	// runtimeLayer is what programs and generated code link.
	runtimeLayer = []string{"runtime"}
	// generatorLayer is the generator's pipeline. Beside emit,
	// generator/internal holds the packages generated for the generator's
	// tests (generatorTestOutputs), which are the runtime's users rather
	// than part of the generator.
	generatorLayer       = []string{"generator"}
	generatorTestOutputs = []string{"generator/internal/outputs", "generator/internal/providers", "generator/internal/schematable"}
	// cli is the command and what only it uses, in cmd/mcpgen/internal.
	cli = []string{"cmd"}
	// testSupport is code that only tests import: internal/testing/...,
	// the one folder of test support, and the golden driver, which runs
	// the command in process and so sits beside it.
	testSupport = []string{"internal/testing", "cmd/mcpgen/internal/golden"}
	// providerSDKs are the SDKs of the model providers the generator must
	// not depend on, with the runtime adapters that wrap them. The Gemini
	// declarations come from internal/geminidecl, the converter behind
	// runtime/gemini too, so that both give the same declarations without
	// mcpgen's binary linking the Gemini SDK.
	providerSDKs = []string{"github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go", "google.golang.org/genai", module + "/runtime/anthropic", module + "/runtime/openai", module + "/runtime/gemini"}
)

// A rule forbids the packages From selects to reach, through the imports
// of their non-test files, a package Forbidden selects.
type rule struct {
	Name      string
	From      func(pkg string) bool
	Forbidden func(dep string) bool
}

// rules are mcpgen's dependency rules.
var rules = []rule{
	{"runtime never reaches the generator or the CLI", in(runtimeLayer...), in(append(slices.Clone(generatorLayer), cli...)...)},
	{"the shared core reaches neither runtime, the generator nor the CLI", in(core...), in(append(append(slices.Clone(runtimeLayer), generatorLayer...), cli...)...)},
	{"the providers' rules reach neither the generator nor the CLI", in(providerRules...), in(append(slices.Clone(generatorLayer), cli...)...)},
	{"the generator never reaches the CLI", and(in(generatorLayer...), not(in(generatorTestOutputs...))), in(cli...)},
	{"production code never imports test support", and(in(""), not(in(testSupport...))), in(testSupport...)},
	{"the generator never imports a provider SDK", and(in(generatorLayer...), not(in(generatorTestOutputs...))), prefixed(providerSDKs...)},
	// The Anthropic SDK imports OpenTelemetry itself, so its adapter is
	// left out.
	{"runtime reaches OpenTelemetry only through runtime/otelmcp", and(in("runtime"), not(in("runtime/otelmcp", "runtime/anthropic"))), prefixed("go.opentelemetry.io")},
}

// in selects the packages of the module in or below the folders dirs; ""
// is the whole module.
func in(dirs ...string) func(string) bool {
	var prefixes []string
	for _, d := range dirs {
		prefixes = append(prefixes, strings.TrimSuffix(module+"/"+d, "/"))
	}
	return prefixed(prefixes...)
}

// prefixed selects the import paths in or below the paths of prefixes.
func prefixed(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

func and(a, b func(string) bool) func(string) bool {
	return func(p string) bool { return a(p) && b(p) }
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

// A violation is a rule broken by a chain of imports, from a package the
// rule applies to to a package it forbids.
type violation struct {
	Rule  string
	Chain []string
}

func (v violation) String() string {
	return fmt.Sprintf("%s: %s", v.Rule, strings.Join(v.Chain, " → "))
}

// check returns, for each rule and each package of roots it applies to,
// the shortest chain of imports in graph (package → its imports) that
// reaches a package the rule forbids.
func check(graph map[string][]string, roots []string, rules []rule) []violation {
	var out []violation
	for _, r := range rules {
		for _, root := range roots {
			if !r.From(root) {
				continue
			}
			if chain := reach(graph, root, r.Forbidden); chain != nil {
				out = append(out, violation{Rule: r.Name, Chain: chain})
			}
		}
	}
	return out
}

// reach returns the shortest import chain from root to a package forbidden
// selects, or nil.
func reach(graph map[string][]string, root string, forbidden func(string) bool) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, dep := range graph[p] {
			if _, seen := prev[dep]; seen {
				continue
			}
			prev[dep] = p
			if forbidden(dep) {
				chain := []string{dep}
				for q := p; q != ""; q = prev[q] {
					chain = append(chain, q)
				}
				slices.Reverse(chain)
				return chain
			}
			queue = append(queue, dep)
		}
	}
	return nil
}

// importGraph lists the module's packages with go list and returns the
// import graph of their non-test files, with every package they reach, and
// the module's own packages.
func importGraph(t *testing.T) (graph map[string][]string, roots []string) {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	// With cmd/mcpgen/default.pgo, go list would also list each package
	// the command imports a second time, as the command's variant
	// ("p [github.com/mcpgen/mcpgen/cmd/mcpgen]"): -pgo=off lists each once.
	cmd := exec.Command("go", "list", "-e", "-deps", "-pgo=off", "-json=ImportPath,Imports,Module,Error", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, stderr.Bytes())
	}
	graph = map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Module     *struct{ Path string }
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		graph[p.ImportPath] = p.Imports
		if p.Module != nil && p.Module.Path == module {
			roots = append(roots, p.ImportPath)
		}
	}
	return graph, roots
}

// TestLayers checks the module's import graph against the rules, and that
// each layer of the rules exists, so that a moved folder cannot make a
// rule hold by selecting nothing.
func TestLayers(t *testing.T) {
	graph, roots := importGraph(t)
	for _, v := range check(graph, roots, rules) {
		t.Errorf("%s", v)
	}
	// Top-level internal/ holds the shared core, the providers' rules and
	// test support, nothing else.
	shared := in(append(append(slices.Clone(core), providerRules...), testSupport...)...)
	for _, p := range roots {
		if in("internal")(p) && !shared(p) {
			t.Errorf("%s is in internal/ but in none of its layers (core, providers' rules, test support)", p)
		}
	}
	for _, layer := range [][]string{core, providerRules, runtimeLayer, generatorLayer, cli} {
		for _, dir := range layer {
			if !slices.ContainsFunc(roots, in(dir)) {
				t.Errorf("no package of the module is in %s: update the layers of this test", dir)
			}
		}
	}
}

// TestCheckNamesTheOffendingImport runs the checker on made-up graphs: each
// breaks one rule, through a chain the violation must name, and the last
// breaks none.
func TestCheckNamesTheOffendingImport(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  []string // violations, as violation.String gives them
	}{
		{
			name: "runtime reaches the generator through the core",
			graph: map[string][]string{
				m("runtime"):         {"context", m("internal/schema")},
				m("internal/schema"): {m("generator/ir")},
				m("generator/ir"):    {},
			},
			want: []string{
				rules[0].Name + ": " + m("runtime") + " → " + m("internal/schema") + " → " + m("generator/ir"),
				rules[1].Name + ": " + m("internal/schema") + " → " + m("generator/ir"),
			},
		},
		{
			name: "production code imports test support",
			graph: map[string][]string{
				m("runtime/auth"):             {m("internal/testing/testenv")},
				m("internal/testing/testenv"): {},
			},
			want: []string{rules[4].Name + ": " + m("runtime/auth") + " → " + m("internal/testing/testenv")},
		},
		{
			name: "the generator imports a provider SDK",
			graph: map[string][]string{
				m("generator/internal/emit"):             {"github.com/openai/openai-go/v3/shared"},
				"github.com/openai/openai-go/v3/shared":  {},
				m("generator/internal/providers"):        {"github.com/anthropics/anthropic-sdk-go"},
				"github.com/anthropics/anthropic-sdk-go": {},
			},
			want: []string{rules[5].Name + ": " + m("generator/internal/emit") + " → github.com/openai/openai-go/v3/shared"},
		},
		{
			name: "the generator reaches the CLI",
			graph: map[string][]string{
				m("generator"):                  {m("cmd/mcpgen/internal/config")},
				m("cmd/mcpgen/internal/config"): {},
			},
			want: []string{rules[3].Name + ": " + m("generator") + " → " + m("cmd/mcpgen/internal/config")},
		},
		{
			name: "layers kept",
			graph: map[string][]string{
				m("cmd/mcpgen"):                 {m("cmd/mcpgen/internal/cli")},
				m("cmd/mcpgen/internal/cli"):    {m("generator"), m("runtime")},
				m("generator"):                  {m("internal/geminidecl")},
				m("internal/geminidecl"):        {m("runtime")},
				m("runtime/gemini"):             {m("internal/geminidecl"), m("runtime"), "google.golang.org/genai"},
				m("cmd/mcpgen/internal/golden"): {m("generator"), m("internal/testing/testenv")},
				m("internal/testing/testenv"):   {},
			},
		},
		{
			name: "the generator reaching the Gemini SDK",
			graph: map[string][]string{
				m("generator"):      {m("runtime/gemini")},
				m("runtime/gemini"): {"google.golang.org/genai"},
			},
			want: []string{rules[5].Name + ": " + m("generator") + " → " + m("runtime/gemini")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var roots []string
			for p := range tc.graph {
				if strings.HasPrefix(p, module+"/") {
					roots = append(roots, p)
				}
			}
			slices.Sort(roots)
			var got []string
			for _, v := range check(tc.graph, roots, rules) {
				got = append(got, v.String())
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
