package mcpimpl

import (
	"context"
	"fmt"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpgen/mcpgen/runtime"
)

// ResourceReader is what a generated Client's template methods need of its
// runtime.Caller: a *runtime.Session has it.
type ResourceReader interface {
	ReadResource(ctx context.Context, uri string) (*runtime.ReadResourceResult, error)
}

// URIParams is what the template methods of a generated Client send: a
// pointer to a template's parameter struct.
type URIParams interface {
	URI() (string, error)
}

// URIVar is one variable of a URI template: a string, or a list of them
// for a variable the template explodes.
type URIVar struct {
	Name   string
	Value  string
	List   []string
	IsList bool
	// Required variables must not be empty; others are left out of the
	// URI when they are.
	Required bool
}

// ExpandURI expands the RFC 6570 URI template tmpl of the resource template
// named template with vars. An empty required variable is a
// *runtime.ValidationError; an empty optional one is undefined, and its
// expression writes nothing. Values are escaped as the template's
// operators ask.
func ExpandURI(template, tmpl string, vars []URIVar) (string, error) {
	if err := CheckURIVars(template, vars); err != nil {
		return "", err
	}
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return "", fmt.Errorf("resource template %q: %w", template, err)
	}
	values := uritemplate.Values{}
	for _, v := range vars {
		switch {
		case v.IsList && len(v.List) > 0:
			values.Set(v.Name, uritemplate.List(v.List...))
		case !v.IsList && v.Value != "":
			values.Set(v.Name, uritemplate.String(v.Value))
		}
	}
	uri, err := t.Expand(values)
	if err != nil {
		return "", fmt.Errorf("resource template %q: %w", template, err)
	}
	return uri, nil
}

// CheckURIVars reports the first required variable of vars that is empty,
// as a *runtime.ValidationError naming the resource template.
func CheckURIVars(template string, vars []URIVar) error {
	for _, v := range vars {
		if !v.Required {
			continue
		}
		empty := v.Value == ""
		if v.IsList {
			empty = len(v.List) == 0
			for i, s := range v.List {
				if s == "" {
					return &runtime.ValidationError{Tool: "resource template " + template, Pointer: Pointer(v.Name, i), Reason: "the item must not be empty"}
				}
			}
		}
		if empty {
			return &runtime.ValidationError{Tool: "resource template " + template, Pointer: Pointer(v.Name), Reason: "the variable is required and must not be empty"}
		}
	}
	return nil
}

// ReadTemplate is the body of a generated template method: it expands
// params to a URI and reads it through c, which must be a ResourceReader.
func ReadTemplate(ctx context.Context, c runtime.Caller, template string, params URIParams) (*runtime.ReadResourceResult, error) {
	uri, err := params.URI()
	if err != nil {
		return nil, err
	}
	rr, ok := c.(ResourceReader)
	if !ok {
		return nil, fmt.Errorf("reading resource template %q: the client's caller (%T) does not read resources; use a *runtime.Session", template, c)
	}
	return rr.ReadResource(ctx, uri)
}
