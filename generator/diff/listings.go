package diff

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// Rules of prompts and resource templates.
const (
	PromptRemoved                Rule = "prompt-removed"
	PromptAdded                  Rule = "prompt-added"
	PromptTextChanged            Rule = "prompt-text-changed"
	PromptArgumentAddedRequired  Rule = "prompt-required-argument-added"
	PromptArgumentAdded          Rule = "prompt-argument-added"
	PromptArgumentRemoved        Rule = "prompt-argument-removed"
	PromptArgumentBecameRequired Rule = "prompt-argument-became-required"
	PromptArgumentBecameOptional Rule = "prompt-argument-became-optional"
	TemplateRemoved              Rule = "resource-template-removed"
	TemplateAdded                Rule = "resource-template-added"
	TemplateTextChanged          Rule = "resource-template-text-changed"
	TemplateMIMETypeChanged      Rule = "resource-template-mime-type-changed"
	TemplateURIChanged           Rule = "resource-template-uri-changed"
	TemplateVariableAdded        Rule = "resource-template-variable-added"
	TemplateVariableRemoved      Rule = "resource-template-variable-removed"
	TemplateVariableChanged      Rule = "resource-template-variable-changed"
)

// Prompts compares an old and a new prompt list, by prompt name, with the
// rules of tool arguments: a removed prompt, a new required argument and an
// argument that became required break callers; a new prompt or optional
// argument does not. Changes come in prompt name order.
func Prompts(oldPrompts, newPrompts []runtime.Prompt) []Change {
	olds, news := byName(oldPrompts, func(p runtime.Prompt) string { return p.Name }), byName(newPrompts, func(p runtime.Prompt) string { return p.Name })
	var out []Change
	for _, name := range unionNames(olds, news) {
		o, n := olds[name], news[name]
		add := func(c Change) {
			c.Prompt = name
			out = append(out, c)
		}
		switch {
		case n == nil:
			add(Change{Severity: Err, GoAPI: true, Rule: PromptRemoved, Summary: fmt.Sprintf("prompt %s removed", name), Old: name,
				Why: fmt.Sprintf("Getting %s fails: the server no longer has the prompt. Its generated method and arguments type disappear, so code that uses them no longer compiles.", name)})
			continue
		case o == nil:
			add(Change{Severity: Info, Rule: PromptAdded, Summary: fmt.Sprintf("prompt %s added", name), New: name,
				Why: "A new prompt is available; regenerate to get it."})
			continue
		}
		for _, f := range []struct{ key, old, new string }{{"title", o.Title, n.Title}, {"description", o.Description, n.Description}} {
			if f.old != f.new {
				add(Change{Pointer: "/" + f.key, Severity: Info, Rule: PromptTextChanged, Summary: f.key + " changed", Old: f.old, New: f.new,
					Why: "The prompt's " + f.key + " is shown to users and models."})
			}
		}
		oa := byName(o.Arguments, func(a runtime.PromptArgument) string { return a.Name })
		na := byName(n.Arguments, func(a runtime.PromptArgument) string { return a.Name })
		for _, arg := range unionNames(oa, na) {
			ptr := "/arguments/" + jsontree.EscapeToken(arg)
			a, b := oa[arg], na[arg]
			switch {
			case b == nil:
				add(Change{Pointer: ptr, Severity: Warn, GoAPI: true, Rule: PromptArgumentRemoved, Summary: fmt.Sprintf("argument `%s` removed", arg), Old: arg,
					Why: fmt.Sprintf("The server no longer declares %s: values callers send for it are ignored or rejected. Its generated field disappears, so code that sets it no longer compiles.", arg)})
			case a == nil && b.Required:
				add(Change{Pointer: ptr, Severity: Err, Rule: PromptArgumentAddedRequired, Summary: fmt.Sprintf("required argument `%s` added", arg), New: arg,
					Why: fmt.Sprintf("Every existing call leaves %s out, and the server now rejects such calls.", arg)})
			case a == nil:
				add(Change{Pointer: ptr, Severity: Info, Rule: PromptArgumentAdded, Summary: fmt.Sprintf("argument `%s` added", arg), New: arg,
					Why: fmt.Sprintf("Callers may now send %s; existing calls stay valid.", arg)})
			default:
				if !a.Required && b.Required {
					add(Change{Pointer: ptr + "/required", Severity: Err, Rule: PromptArgumentBecameRequired, Summary: fmt.Sprintf("argument `%s` became required", arg), Old: "false", New: "true",
						Why: fmt.Sprintf("Calls that leave %s out are now rejected.", arg)})
				} else if a.Required && !b.Required {
					add(Change{Pointer: ptr + "/required", Severity: Info, Rule: PromptArgumentBecameOptional, Summary: fmt.Sprintf("argument `%s` became optional", arg), Old: "true", New: "false",
						Why: fmt.Sprintf("Callers may now leave %s out.", arg)})
				}
				for _, f := range []struct{ key, old, new string }{{"title", a.Title, b.Title}, {"description", a.Description, b.Description}} {
					if f.old != f.new {
						add(Change{Pointer: ptr + "/" + f.key, Severity: Info, Rule: PromptTextChanged, Summary: fmt.Sprintf("%s of argument `%s` changed", f.key, arg), Old: f.old, New: f.new,
							Why: "The argument's " + f.key + " tells users and models what to fill in."})
					}
				}
			}
		}
	}
	return out
}

// ResourceTemplates compares an old and a new list of resource templates,
// by template name: a removed template, a new required variable and a
// changed URI template break callers, whose generated code builds URIs the
// server may no longer serve; a new template does not. Changes come in
// template name order. A URI template that does not parse is an error
// naming it.
func ResourceTemplates(oldTemplates, newTemplates []runtime.ResourceTemplate) ([]Change, error) {
	key := func(t runtime.ResourceTemplate) string { return t.Name }
	olds, news := byName(oldTemplates, key), byName(newTemplates, key)
	var out []Change
	for _, name := range unionNames(olds, news) {
		o, n := olds[name], news[name]
		add := func(c Change) {
			c.Template = name
			out = append(out, c)
		}
		switch {
		case n == nil:
			add(Change{Severity: Err, GoAPI: true, Rule: TemplateRemoved, Summary: fmt.Sprintf("resource template %s removed", name), Old: o.URITemplate,
				Why: fmt.Sprintf("Reads of %s may fail: the server no longer lists the template. Its generated method and parameters type disappear, so code that uses them no longer compiles.", name)})
			continue
		case o == nil:
			add(Change{Severity: Info, Rule: TemplateAdded, Summary: fmt.Sprintf("resource template %s added", name), New: n.URITemplate,
				Why: "A new resource template is available; regenerate to read it."})
			continue
		}
		for _, f := range []struct{ key, old, new string }{{"title", o.Title, n.Title}, {"description", o.Description, n.Description}} {
			if f.old != f.new {
				add(Change{Pointer: "/" + f.key, Severity: Info, Rule: TemplateTextChanged, Summary: f.key + " changed", Old: f.old, New: f.new,
					Why: "The template's " + f.key + " is shown to users and models."})
			}
		}
		if o.MIMEType != n.MIMEType {
			add(Change{Pointer: "/mimeType", Severity: Warn, Rule: TemplateMIMETypeChanged, Summary: "MIME type changed", Old: o.MIMEType, New: n.MIMEType,
				Why: "Code that decodes the resources as the old type may misread them."})
		}
		if o.URITemplate == n.URITemplate {
			continue
		}
		ov, err := ir.TemplateVars(o.URITemplate)
		if err != nil {
			return nil, fmt.Errorf("resource template %s in the old list: uriTemplate %q: %w", name, o.URITemplate, err)
		}
		nv, err := ir.TemplateVars(n.URITemplate)
		if err != nil {
			return nil, fmt.Errorf("resource template %s in the new list: uriTemplate %q: %w", name, n.URITemplate, err)
		}
		varChanged := false
		ovs := byName(derefVars(ov), func(v ir.TemplateVar) string { return v.Name })
		nvs := byName(derefVars(nv), func(v ir.TemplateVar) string { return v.Name })
		for _, v := range unionNames(ovs, nvs) {
			a, b := ovs[v], nvs[v]
			ptr := "/uriTemplate/" + jsontree.EscapeToken(v)
			switch {
			case b == nil:
				varChanged = true
				add(Change{Pointer: ptr, Severity: Err, GoAPI: true, Rule: TemplateVariableRemoved, Summary: fmt.Sprintf("variable `%s` removed", v), Old: o.URITemplate, New: n.URITemplate,
					Why: fmt.Sprintf("URIs built with %s are no longer the server's. Its generated field disappears, so code that sets it no longer compiles.", v)})
			case a == nil:
				varChanged = true
				sev, why := Info, fmt.Sprintf("URIs may now carry %s; existing reads stay valid.", v)
				if b.Required {
					sev, why = Err, fmt.Sprintf("Every existing read leaves %s out, so it builds a URI the server no longer serves.", v)
				}
				add(Change{Pointer: ptr, Severity: sev, Rule: TemplateVariableAdded, Summary: fmt.Sprintf("variable `%s` added", v), Old: o.URITemplate, New: n.URITemplate, Why: why})
			case a.List != b.List || a.Required != b.Required:
				varChanged = true
				add(Change{Pointer: ptr, Severity: Err, GoAPI: a.List != b.List, Rule: TemplateVariableChanged, Summary: fmt.Sprintf("variable `%s` changed", v), Old: o.URITemplate, New: n.URITemplate,
					Why: fmt.Sprintf("The template expands %s differently (a list or not, required or not), so existing reads build URIs the server may not serve.", v)})
			}
		}
		if !varChanged {
			add(Change{Pointer: "/uriTemplate", Severity: Err, Rule: TemplateURIChanged, Summary: "URI template changed", Old: o.URITemplate, New: n.URITemplate,
				Why: "Code generated from the old template builds URIs the server may no longer serve; regenerate."})
		}
	}
	return out, nil
}

// Listings returns the changes to the prompts and resource templates of two
// snapshots, prompts first. A nil list is one the snapshot did not record
// (it was taken before mcpgen captured them): that kind is then not
// compared, and a warning says so when the other side lists some. An empty
// list is compared: a server that no longer offers prompts removed them.
func Listings(oldPrompts, newPrompts []runtime.Prompt, oldTemplates, newTemplates []runtime.ResourceTemplate) (changes []Change, warnings []string, err error) {
	unrecorded := func(kind string, oldNil, newNil bool, n int) {
		if oldNil == newNil || n == 0 {
			return
		}
		side := "old"
		if newNil {
			side = "new"
		}
		warnings = append(warnings, fmt.Sprintf("the %s snapshot records no %s (it was taken before mcpgen captured them), so the %d %s of the other are not compared; capture it again to compare them", side, kind, n, kind))
	}
	unrecorded("prompts", oldPrompts == nil, newPrompts == nil, len(oldPrompts)+len(newPrompts))
	unrecorded("resource templates", oldTemplates == nil, newTemplates == nil, len(oldTemplates)+len(newTemplates))
	if oldPrompts != nil && newPrompts != nil {
		changes = Prompts(oldPrompts, newPrompts)
	}
	if oldTemplates != nil && newTemplates != nil {
		ts, err := ResourceTemplates(oldTemplates, newTemplates)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, ts...)
	}
	return changes, warnings, nil
}

func derefVars(vs []*ir.TemplateVar) []ir.TemplateVar {
	out := make([]ir.TemplateVar, len(vs))
	for i, v := range vs {
		out[i] = *v
	}
	return out
}

// byName indexes items by their names; a later item of the same name
// replaces an earlier one (snapshots refuse such lists).
func byName[T any](items []T, name func(T) string) map[string]*T {
	out := make(map[string]*T, len(items))
	for i := range items {
		out[name(items[i])] = &items[i]
	}
	return out
}

// unionNames returns the keys of both maps, sorted.
func unionNames[T any](a, b map[string]*T) []string {
	var names []string
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if a[k] == nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// subject names what a change is about: a tool, "prompt NAME" or
// "resource template NAME".
func (c *Change) subject() string {
	switch {
	case c.Prompt != "":
		return "prompt " + c.Prompt
	case c.Template != "":
		return "resource template " + c.Template
	}
	return c.Tool
}

// listingWhere is Where for a change to a prompt or a resource template.
func (c *Change) listingWhere() string {
	kind := "prompt"
	if c.Template != "" {
		kind = "resourceTemplate"
	}
	return kind + strings.TrimSuffix(c.Pointer, "/")
}

// ListingsOptions is Listings with the GO_API markers checked against the
// packages generate writes with opts from each side's tools, prompts and
// resource templates. The Go names of prompts, templates, their arguments
// and variables are given after the tools', so a tool, prompt, argument or
// variable added can take over an identifier: code that uses it still
// compiles but gets another prompt or sends another argument, or no longer
// compiles. Such a change is marked where it happens, or becomes a change
// of its own when nothing else explains it. When either side cannot be
// built, the markers of the rules stand.
func ListingsOptions(ctx context.Context, oldTools, newTools []runtime.Tool, oldPrompts, newPrompts []runtime.Prompt, oldTemplates, newTemplates []runtime.ResourceTemplate, opts Options) ([]Change, []string, error) {
	changes, warnings, err := Listings(oldPrompts, newPrompts, oldTemplates, newTemplates)
	if err != nil {
		return nil, nil, err
	}
	// A side that does not record a kind compares none of it.
	if oldPrompts == nil || newPrompts == nil {
		oldPrompts, newPrompts = nil, nil
	}
	if oldTemplates == nil || newTemplates == nil {
		oldTemplates, newTemplates = nil, nil
	}
	if len(oldPrompts)+len(oldTemplates) == 0 || len(newPrompts)+len(newTemplates) == 0 {
		return changes, warnings, nil
	}
	build := opts.Generate
	build.Context, build.KeepUnusedOverrides = ctx, true
	oldAPI, ok, err := listingSurface(build, selected(oldTools, opts.Tools), oldPrompts, oldTemplates)
	if err != nil || !ok {
		return changes, warnings, err
	}
	newAPI, ok, err := listingSurface(build, selected(newTools, opts.Tools), newPrompts, newTemplates)
	if err != nil || !ok {
		return changes, warnings, err
	}
	for _, id := range sortedListingIDs(oldAPI) {
		o := oldAPI[id]
		n, found := newAPI[id]
		if found && n.sig == o.sig {
			continue
		}
		why := fmt.Sprintf("The generated identifier %s disappears or is renamed, so code that uses it no longer compiles.", id)
		if found {
			why = fmt.Sprintf("The generated identifier %s now stands for another %s (%s instead of %s), so code that uses it still compiles but gets or sends something else.", id, o.kind, n.sig, o.sig)
		}
		i := listingExplains(changes, o.loc)
		if i < 0 && found {
			i = listingExplains(changes, n.loc)
		}
		if i >= 0 {
			c := &changes[i]
			if !c.GoAPI {
				c.GoAPI = true
				c.Why += " " + why
			}
			continue
		}
		c := o.loc
		c.Severity, c.GoAPI, c.Rule = Info, true, GoTypeChanged
		c.Summary = "generated Go API changes: " + id
		c.Old = id + " " + o.sig
		if found {
			c.New = id + " " + n.sig
		}
		c.Why = "The wire format is unchanged, but the generated Go code is not. " + why
		changes = append(changes, c)
	}
	// Changes come prompts first, each prompt's and template's together,
	// in name order.
	slices.SortStableFunc(changes, func(a, b Change) int {
		if (a.Prompt == "") != (b.Prompt == "") {
			if a.Prompt != "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Prompt+a.Template, b.Prompt+b.Template)
	})
	return changes, warnings, nil
}

// listingItem is one identifier that a prompt or a resource template
// declares in the generated package: what it stands for, and where, as a
// change to it would be located.
type listingItem struct {
	sig  string
	kind string // "prompt", "argument", "resource template" or "variable"
	loc  Change // Prompt or Template, and Pointer
}

// listingSurface builds the package of tools, prompts and templates with
// the options generate uses, and lists the identifiers of its prompts and
// templates; ok is false when the generator cannot build it.
func listingSurface(build ir.Options, tools []runtime.Tool, prompts []runtime.Prompt, templates []runtime.ResourceTemplate) (map[string]listingItem, bool, error) {
	pkg, ok, err := buildPackage(build, tools)
	if err != nil || !ok {
		return nil, false, err
	}
	sp := make([]snapshot.Prompt, len(prompts))
	for i, p := range prompts {
		sp[i] = snapshot.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments}
	}
	st := make([]snapshot.ResourceTemplate, len(templates))
	for i, t := range templates {
		st[i] = snapshot.ResourceTemplate{Name: t.Name, Title: t.Title, Description: t.Description, URITemplate: t.URITemplate, MIMEType: t.MIMEType}
	}
	if err := pkg.AddListings(sp, st); err != nil {
		return nil, false, nil
	}
	s := map[string]listingItem{}
	for _, p := range pkg.Prompts {
		s["method "+p.Method] = listingItem{sig: p.ArgsName + " getting prompt " + strconv.Quote(p.Name), kind: "prompt", loc: Change{Prompt: p.Name}}
		for _, a := range p.Args {
			s["field "+p.ArgsName+"."+a.GoName] = listingItem{sig: "string for argument " + strconv.Quote(a.Name), kind: "argument",
				loc: Change{Prompt: p.Name, Pointer: "/arguments/" + jsontree.EscapeToken(a.Name)}}
		}
	}
	for _, t := range pkg.Templates {
		s["method "+t.Method] = listingItem{sig: t.ParamsName + " reading resource template " + strconv.Quote(t.Name), kind: "resource template", loc: Change{Template: t.Name}}
		for _, v := range t.Vars {
			typ := "string"
			if v.List {
				typ = "[]string"
			}
			s["field "+t.ParamsName+"."+v.GoName] = listingItem{sig: typ + " for variable " + strconv.Quote(v.Name), kind: "variable",
				loc: Change{Template: t.Name, Pointer: "/uriTemplate/" + jsontree.EscapeToken(v.Name)}}
		}
	}
	return s, true, nil
}

func sortedListingIDs(s map[string]listingItem) []string {
	ids := make([]string, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// listingExplains returns the index of the change of the prompt or
// template at loc that best accounts for an identifier there: one at loc
// itself, then one at a parent of loc (a removed prompt, say); -1 when
// none does.
func listingExplains(changes []Change, loc Change) int {
	best := -1
	for i, c := range changes {
		if c.Prompt != loc.Prompt || c.Template != loc.Template {
			continue
		}
		switch {
		case c.Pointer == loc.Pointer:
			return i
		case best < 0 && strings.HasPrefix(loc.Pointer, c.Pointer+"/"), best < 0 && c.Pointer == "" && (c.Rule == PromptRemoved || c.Rule == TemplateRemoved):
			best = i
		}
	}
	return best
}
