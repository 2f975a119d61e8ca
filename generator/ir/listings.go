package ir

import (
	"fmt"
	"slices"
	"strings"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// Prompt is one prompt of the server: a Client method that gets it and a
// struct of its arguments.
type Prompt struct {
	Name        string
	Title       string
	Description string
	// Method is the Client method, the prompt's Go name and "Prompt"
	// ("ArgsPromptPrompt" for "args-prompt"); ArgsName is its arguments
	// struct, Method and "Args".
	Method   string
	ArgsName string
	Args     []*PromptArg
}

// PromptArg is one argument of a prompt, a string field of its struct.
type PromptArg struct {
	Name        string
	Title       string
	Description string
	// Required arguments have no omitempty and must not be empty.
	Required bool
	GoName   string
	// Tagged reports whether encoding/json accepts Name in a struct tag;
	// the field of an argument whose name it does not is left out of the
	// struct's JSON (the method sends every argument by its name all the
	// same).
	Tagged bool
}

// Template is one resource template of the server: a struct of its
// variables, whose URI method expands the template, and a Client method
// that reads the resource.
type Template struct {
	Name        string
	Title       string
	Description string
	URITemplate string
	MIMEType    string
	// Method is the Client method, "Read" and the template's Go name;
	// ParamsName is the struct of its variables, the Go name and
	// "Params".
	Method     string
	ParamsName string
	Vars       []*TemplateVar
}

// TemplateVar is one variable of a URI template, a field of its struct.
type TemplateVar struct {
	Name   string
	GoName string
	// List is set for a variable the template explodes ({ids*}): a
	// []string field, each item expanded on its own.
	List bool
	// Required is set for a variable of a path or a label ({id}, {+path},
	// {/seg}, {.ext}), which must not be empty; a variable of the query or
	// fragment ({?q}, {&q}, {;p}, {#f}) is left out of the URI when empty.
	Required bool
	// Reserved is set for a variable of a + or # expression, whose
	// reserved characters the expansion writes as they are.
	Reserved bool
}

// AddListings adds the prompts and resource templates of a snapshot to a
// package built by BuildOptions, naming them after the tools and their
// types, so that adding a prompt never renames a tool's type: a name
// already taken gets the suffix of the scope's rules.
func (pkg *Package) AddListings(prompts []snapshot.Prompt, templates []snapshot.ResourceTemplate) error {
	if pkg.names == nil {
		pkg.names, pkg.methods = newScope(), newScope()
	}
	prompts = slices.Clone(prompts)
	slices.SortStableFunc(prompts, func(a, b snapshot.Prompt) int { return strings.Compare(a.Name, b.Name) })
	templates = slices.Clone(templates)
	slices.SortStableFunc(templates, func(a, b snapshot.ResourceTemplate) int { return strings.Compare(a.Name, b.Name) })
	for i := range prompts {
		sp := &prompts[i]
		p := &Prompt{Name: sp.Name, Title: sp.Title, Description: sp.Description}
		base := Exported(sp.Name, "Prompt") + "Prompt"
		pkg.methods.claim(base, "prompt:"+sp.Name, spellingRank(sp.Name, base), func(n string) { p.Method = n })
		fields := newScope("Validate")
		for _, a := range sp.Arguments {
			arg := &PromptArg{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required, Tagged: validTagName(a.Name)}
			fb := Exported(a.Name, "Arg")
			fields.claim(fb, a.Name, spellingRank(a.Name, fb), func(n string) { arg.GoName = n })
			p.Args = append(p.Args, arg)
		}
		fields.resolve()
		pkg.Prompts = append(pkg.Prompts, p)
	}
	for i := range templates {
		st := &templates[i]
		vars, err := TemplateVars(st.URITemplate)
		if err != nil {
			return fmt.Errorf("resource template %q: %s: %w", st.Name, st.Pointer+"/uriTemplate", err)
		}
		t := &Template{Name: st.Name, Title: st.Title, Description: st.Description, URITemplate: st.URITemplate, MIMEType: st.MIMEType, Vars: vars}
		base := "Read" + Exported(st.Name, "Resource")
		pkg.methods.claim(base, "template:"+st.Name, 2, func(n string) { t.Method = n })
		fields := newScope("Validate", "URI")
		for _, v := range vars {
			fb := Exported(v.Name, "Var")
			fields.claim(fb, v.Name, spellingRank(v.Name, fb), func(n string) { v.GoName = n })
		}
		fields.resolve()
		pkg.Templates = append(pkg.Templates, t)
	}
	pkg.methods.resolve()
	for _, p := range pkg.Prompts {
		pkg.names.claim(p.Method+"Args", "prompt:"+p.Name, 0, func(n string) { p.ArgsName = n })
	}
	for _, t := range pkg.Templates {
		pkg.names.claim(strings.TrimPrefix(t.Method, "Read")+"Params", "template:"+t.Name, 0, func(n string) { t.ParamsName = n })
	}
	pkg.names.resolve()
	return nil
}

// TemplateVars returns the variables of the RFC 6570 URI template tmpl in
// the order they first appear, each with what its expressions make of it.
// The template is checked by the library that expands it
// (std-uritemplate); its expressions are then read only for their
// operators and modifiers.
func TemplateVars(tmpl string) ([]*TemplateVar, error) {
	if _, err := stduritemplate.Expand(tmpl, nil); err != nil {
		return nil, err
	}
	var vars []*TemplateVar
	index := map[string]*TemplateVar{}
	rest := tmpl
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed expression in %q", tmpl)
		}
		expr := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		op := byte(0)
		if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
			op, expr = expr[0], expr[1:]
		}
		for _, spec := range strings.Split(expr, ",") {
			name, explode := strings.CutSuffix(spec, "*")
			if i := strings.IndexByte(name, ':'); i >= 0 {
				name = name[:i]
			}
			v := index[name]
			if v == nil {
				v = &TemplateVar{Name: name}
				index[name] = v
				vars = append(vars, v)
			}
			v.List = v.List || explode
			switch op {
			case 0, '+', '.', '/':
				v.Required = true
			}
			if op == '+' || op == '#' {
				v.Reserved = true
			}
		}
	}
	return vars, nil
}
