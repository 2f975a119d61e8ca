package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestPromptChangeClasses(t *testing.T) {
	arg := func(name string, required bool) runtime.PromptArgument {
		return runtime.PromptArgument{Name: name, Required: required}
	}
	base := []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", true), arg("b", false)}}}
	for _, tc := range []struct {
		name string
		new  []runtime.Prompt
		want string
	}{
		{"removed", nil, "prompt-removed ERR GO_API"},
		{"added", append(base, runtime.Prompt{Name: "q"}), "prompt-added INFO"},
		{"required argument added", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", true), arg("b", false), arg("c", true)}}}, "prompt-required-argument-added ERR /arguments/c"},
		{"optional argument added", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", true), arg("b", false), arg("c", false)}}}, "prompt-argument-added INFO /arguments/c"},
		{"argument removed", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", true)}}}, "prompt-argument-removed WARN GO_API /arguments/b"},
		{"became required", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", true), arg("b", true)}}}, "prompt-argument-became-required ERR /arguments/b/required"},
		{"became optional", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("a", false), arg("b", false)}}}, "prompt-argument-became-optional INFO /arguments/a/required"},
		{"description", []runtime.Prompt{{Name: "p", Description: "d", Arguments: base[0].Arguments}}, "prompt-text-changed INFO /description"},
		{"argument order only", []runtime.Prompt{{Name: "p", Arguments: []runtime.PromptArgument{arg("b", false), arg("a", true)}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describe(Prompts(base, tc.new)); got != tc.want {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTemplateChangeClasses(t *testing.T) {
	tmpl := func(uri string) []runtime.ResourceTemplate {
		return []runtime.ResourceTemplate{{Name: "t", URITemplate: uri, MIMEType: "text/plain"}}
	}
	base := tmpl("x://{id}{?q}")
	for _, tc := range []struct {
		name string
		new  []runtime.ResourceTemplate
		want string
	}{
		{"removed", nil, "resource-template-removed ERR GO_API"},
		{"added", append(tmpl("x://{id}{?q}"), runtime.ResourceTemplate{Name: "u", URITemplate: "u://{id}"}), "resource-template-added INFO"},
		{"required variable added", tmpl("x://{id}/{part}{?q}"), "resource-template-variable-added ERR /uriTemplate/part"},
		{"optional variable added", tmpl("x://{id}{?q,page}"), "resource-template-variable-added INFO /uriTemplate/page"},
		{"variable removed", tmpl("x://{id}"), "resource-template-variable-removed ERR GO_API /uriTemplate/q"},
		{"variable became a list", tmpl("x://{id}{?q*}"), "resource-template-variable-changed ERR GO_API /uriTemplate/q"},
		{"variable became required", tmpl("x://{id}/{q}"), "resource-template-variable-changed ERR /uriTemplate/q"},
		{"literal changed", tmpl("y://{id}{?q}"), "resource-template-uri-changed ERR /uriTemplate"},
		{"MIME type", []runtime.ResourceTemplate{{Name: "t", URITemplate: "x://{id}{?q}", MIMEType: "text/html"}}, "resource-template-mime-type-changed WARN /mimeType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := ResourceTemplates(base, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(cs); got != tc.want {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
	_, err := ResourceTemplates(base, tmpl("x://{id"))
	if err == nil || !strings.Contains(err.Error(), `resource template t in the new list: uriTemplate "x://{id"`) {
		t.Errorf("malformed template: err = %v", err)
	}
}

// describe renders changes as "rule SEVERITY [GO_API] [pointer]", joined
// by "; ".
func describe(cs []Change) string {
	var out []string
	for _, c := range cs {
		s := fmt.Sprintf("%s %s", c.Rule, c.Severity)
		if c.GoAPI {
			s += " GO_API"
		}
		if c.Pointer != "" {
			s += " " + c.Pointer
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// TestListingsUnrecorded checks that a snapshot taken before prompts and
// templates were captured (nil lists) compares none of them, with a
// warning, while an empty list is compared.
func TestListingsUnrecorded(t *testing.T) {
	prompts := []runtime.Prompt{{Name: "p"}}
	cs, warnings, err := Listings(nil, prompts, nil, nil)
	if err != nil || len(cs) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "the old snapshot records no prompts") {
		t.Errorf("old without prompts: changes %q, warnings %q, err %v", describe(cs), warnings, err)
	}
	cs, warnings, err = Listings([]runtime.Prompt{}, prompts, nil, nil)
	if err != nil || describe(cs) != "prompt-added INFO" || len(warnings) != 0 {
		t.Errorf("old with no prompts: changes %q, warnings %q, err %v", describe(cs), warnings, err)
	}
	cs, warnings, err = Listings(prompts, []runtime.Prompt{}, []runtime.ResourceTemplate{{Name: "t", URITemplate: "x://{a}"}}, nil)
	if err != nil || describe(cs) != "prompt-removed ERR GO_API" || len(warnings) != 1 || !strings.Contains(warnings[0], "the new snapshot records no resource templates") {
		t.Errorf("new without templates: changes %q, warnings %q, err %v", describe(cs), warnings, err)
	}
}

// TestListingsOptionsMarksOnlyRenames checks that checking the listings'
// Go API against the generator marks an identifier taken over by an
// addition, and leaves the markers of the rules alone otherwise.
func TestListingsOptionsMarksOnlyRenames(t *testing.T) {
	ctx := context.Background()
	tools := []runtime.Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`)}}
	arg := func(name string, required bool) runtime.PromptArgument {
		return runtime.PromptArgument{Name: name, Required: required}
	}
	prompt := func(args ...runtime.PromptArgument) []runtime.Prompt {
		return []runtime.Prompt{{Name: "p", Arguments: args}}
	}
	tmpl := func(uri string) []runtime.ResourceTemplate {
		return []runtime.ResourceTemplate{{Name: "t", URITemplate: uri}}
	}
	for _, tc := range []struct {
		name       string
		oldP, newP []runtime.Prompt
		oldT, newT []runtime.ResourceTemplate
		want       string
	}{
		{"optional argument added", prompt(arg("a", true)), prompt(arg("a", true), arg("b", false)), nil, nil,
			"prompt-argument-added INFO /arguments/b"},
		{"argument removed", prompt(arg("a", true), arg("b", false)), prompt(arg("a", true)), nil, nil,
			"prompt-argument-removed WARN GO_API /arguments/b"},
		{"argument taken over", prompt(arg("a", true)), prompt(arg("a", true), arg("A", false)), nil, nil,
			"prompt-argument-added INFO GO_API /arguments/A"},
		{"prompt taken over", []runtime.Prompt{{Name: "get-x"}}, []runtime.Prompt{{Name: "get-x"}, {Name: "GetX"}}, nil, nil,
			"prompt-added INFO GO_API"},
		{"optional variable added", nil, nil, tmpl("x://{id}{?q}"), tmpl("x://{id}{?q,page}"),
			"resource-template-variable-added INFO /uriTemplate/page"},
		{"variable taken over", nil, nil, tmpl("x://{id}{?q}"), tmpl("x://{id}{?q,ID}"),
			"resource-template-variable-added INFO GO_API /uriTemplate/ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, _, err := ListingsOptions(ctx, tools, tools, tc.oldP, tc.newP, tc.oldT, tc.newT, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(cs); got != tc.want {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
	// A tool added takes the method of a prompt that did not change.
	cs, _, err := ListingsOptions(ctx, tools, append(tools, runtime.Tool{Name: "XPrompt", InputSchema: []byte(`{"type":"object"}`)}),
		[]runtime.Prompt{{Name: "x"}}, []runtime.Prompt{{Name: "x"}}, nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(cs); got != "go-type-changed INFO GO_API" || !strings.Contains(cs[0].Summary, "method XPrompt") || cs[0].Prompt != "x" {
		t.Errorf("changes = %q, want one go-type-changed of prompt x naming method XPrompt", got)
	}
}
