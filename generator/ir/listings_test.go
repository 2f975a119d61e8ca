package ir

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

func TestTemplateVars(t *testing.T) {
	for tmpl, want := range map[string]string{
		"demo://resource/{id}":            "id!",
		"file:///{+path}{?q,page}":        "path! q page",
		"x://{a}/{a*}{#frag}":             "a!* frag",
		"x://h{/segs*}{.ext}{;p,o:3}{&m}": "segs!* ext! p o m",
		"x://static":                      "",
	} {
		vars, err := TemplateVars(tmpl)
		if err != nil {
			t.Fatalf("%s: %v", tmpl, err)
		}
		var got []string
		for _, v := range vars {
			s := v.Name
			if v.Required {
				s += "!"
			}
			if v.List {
				s += "*"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("TemplateVars(%q) = %q, want %q", tmpl, got, want)
		}
	}
	if _, err := TemplateVars("x://{a"); err == nil {
		t.Error("TemplateVars accepted an unclosed expression")
	}
}

// TestListingNamesKeepToolNames checks that prompts and templates take
// names after the tools and their types: a prompt whose method or struct
// name a tool already has gets a suffix, and the tool keeps its names.
func TestListingNamesKeepToolNames(t *testing.T) {
	tool := func(name string) snapshot.Tool {
		raw := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name)
		rt, _ := runtime.ParseTool([]byte(raw))
		return snapshot.Tool{Name: name, Raw: json.RawMessage(raw), InputSchema: rt.InputSchema}
	}
	pkg, err := BuildOptions([]snapshot.Tool{tool("greet_prompt"), tool("read_page")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = pkg.AddListings(
		[]snapshot.Prompt{{Name: "greet", Arguments: []runtime.PromptArgument{{Name: "validate", Required: true}, {Name: "to"}}}},
		[]snapshot.ResourceTemplate{{Name: "page", URITemplate: "x://{uri}/{validate}"}})
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Tools[0].GoName != "GreetPrompt" || pkg.Tools[1].GoName != "ReadPage" {
		t.Errorf("tools renamed: %s, %s", pkg.Tools[0].GoName, pkg.Tools[1].GoName)
	}
	p, tp := pkg.Prompts[0], pkg.Templates[0]
	if !strings.HasPrefix(p.Method, "GreetPrompt_") || p.ArgsName != p.Method+"Args" {
		t.Errorf("prompt method %s, args %s", p.Method, p.ArgsName)
	}
	if !strings.HasPrefix(tp.Method, "ReadPage_") || tp.ParamsName != strings.TrimPrefix(tp.Method, "Read")+"Params" {
		t.Errorf("template method %s, params %s", tp.Method, tp.ParamsName)
	}
	if f := p.Args[0].GoName; !strings.HasPrefix(f, "Validate_") {
		t.Errorf("prompt field for \"validate\" = %s, want a suffix", f)
	}
	if f := tp.Vars[0].GoName; !strings.HasPrefix(f, "URI_") {
		t.Errorf("template field for \"uri\" = %s, want a suffix", f)
	}
}
