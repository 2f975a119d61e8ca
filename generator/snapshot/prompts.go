package snapshot

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// Prompt is one prompt of a snapshot, as prompts/list gives it.
type Prompt struct {
	Name        string
	Title       string
	Description string
	// Arguments are the prompt's arguments in the order the server listed
	// them.
	Arguments []runtime.PromptArgument
	// Raw is the whole prompt object, unknown keys included.
	Raw json.RawMessage
	// Pointer is the JSON pointer of the prompt within its file, such as
	// "/prompts/2".
	Pointer string
}

// ResourceTemplate is one resource template of a snapshot, as
// resources/templates/list gives it.
type ResourceTemplate struct {
	Name        string
	Title       string
	Description string
	// URITemplate is the RFC 6570 URI template; a snapshot's templates all
	// parse.
	URITemplate string
	MIMEType    string
	// Raw is the whole template object, unknown keys included.
	Raw json.RawMessage
	// Pointer is the JSON pointer of the template within its file, such as
	// "/resourceTemplates/0".
	Pointer string
}

// readListings reads the prompts and resourceTemplates members of the
// result object of a snapshot, when it has them. A snapshot without them,
// as every snapshot written before they were captured, has none.
func readListings(result *jsontree.Node, resultPtr string, rawResult []byte, s *Snapshot) *readErr {
	var members struct {
		Prompts   []json.RawMessage `json:"prompts"`
		Templates []json.RawMessage `json:"resourceTemplates"`
	}
	if result.Get("prompts") == nil && result.Get("resourceTemplates") == nil {
		return nil
	}
	for _, m := range []string{"prompts", "resourceTemplates"} {
		if v := result.Get(m); v != nil && v.Kind != jsontree.Array {
			return errAt(resultPtr+"/"+m, "%s is a JSON %s, want an array", m, v.Kind)
		}
	}
	if err := json.Unmarshal(rawResult, &members); err != nil {
		return errAt(resultPtr, "%v", err)
	}
	if list := result.Get("prompts"); list != nil {
		s.Prompts = []Prompt{}
		seen := map[string]string{}
		for i, item := range list.Items {
			ptr := resultPtr + "/prompts/" + strconv.Itoa(i)
			p, err := readPrompt(item, members.Prompts[i], ptr)
			if err != nil {
				return err
			}
			if first, dup := seen[p.Name]; dup {
				return errAt(ptr+"/name", "duplicate prompt name %q (first at %s)", p.Name, first)
			}
			seen[p.Name] = ptr
			s.Prompts = append(s.Prompts, *p)
		}
	}
	if list := result.Get("resourceTemplates"); list != nil {
		s.ResourceTemplates = []ResourceTemplate{}
		seen := map[string]string{}
		for i, item := range list.Items {
			ptr := resultPtr + "/resourceTemplates/" + strconv.Itoa(i)
			t, err := readTemplate(item, members.Templates[i], ptr)
			if err != nil {
				return err
			}
			if first, dup := seen[t.Name]; dup {
				return errAt(ptr+"/name", "duplicate resource template name %q (first at %s)", t.Name, first)
			}
			seen[t.Name] = ptr
			s.ResourceTemplates = append(s.ResourceTemplates, *t)
		}
	}
	return nil
}

// checkStrings reports the first member of obj named in keys that is
// neither a string nor null. what names obj in the message.
func checkStrings(obj *jsontree.Node, ptr, what string, keys ...string) *readErr {
	for _, k := range keys {
		if v := obj.Get(k); v != nil && v.Kind != jsontree.String && v.Kind != jsontree.Null {
			return errAt(ptr+"/"+k, "%s of %s is a JSON %s, want a string", k, what, v.Kind)
		}
	}
	return nil
}

// checkName reports a missing, non-string, empty or undecodable name.
func checkName(obj *jsontree.Node, ptr, what string) (string, *readErr) {
	name := obj.Get("name")
	switch {
	case name == nil:
		return "", errAt(ptr, "%s has no name", what)
	case name.Kind != jsontree.String:
		return "", errAt(ptr+"/name", "%s name is a JSON %s, want a string", what, name.Kind)
	case strings.TrimSpace(name.Str) == "":
		return "", errAt(ptr+"/name", "%s name is empty", what)
	}
	t := Tool{Name: name.Str}
	if err := t.CheckName(); err != nil {
		return "", errAt(ptr+"/name", "%s", strings.Replace(err.Error(), "tool name", what+" name", 1))
	}
	return name.Str, nil
}

func readPrompt(item *jsontree.Node, raw json.RawMessage, ptr string) (*Prompt, *readErr) {
	if item.Kind != jsontree.Object {
		return nil, errAt(ptr, "prompt is a JSON %s, want an object", item.Kind)
	}
	name, e := checkName(item, ptr, "prompt")
	if e != nil {
		return nil, e
	}
	what := "prompt " + strconv.Quote(name)
	if e := checkStrings(item, ptr, what, "title", "description"); e != nil {
		return nil, e
	}
	if args := item.Get("arguments"); args != nil && args.Kind != jsontree.Null {
		if args.Kind != jsontree.Array {
			return nil, errAt(ptr+"/arguments", "arguments of %s is a JSON %s, want an array", what, args.Kind)
		}
		seen := map[string]string{}
		for i, a := range args.Items {
			aptr := ptr + "/arguments/" + strconv.Itoa(i)
			if a.Kind != jsontree.Object {
				return nil, errAt(aptr, "argument of %s is a JSON %s, want an object", what, a.Kind)
			}
			aname, e := checkName(a, aptr, "argument")
			if e != nil {
				return nil, e
			}
			if e := checkStrings(a, aptr, "argument "+strconv.Quote(aname)+" of "+what, "title", "description"); e != nil {
				return nil, e
			}
			if r := a.Get("required"); r != nil && r.Kind != jsontree.Bool && r.Kind != jsontree.Null {
				return nil, errAt(aptr+"/required", "required of argument %q of %s is a JSON %s, want a boolean", aname, what, r.Kind)
			}
			if first, dup := seen[aname]; dup {
				return nil, errAt(aptr+"/name", "duplicate argument %q of %s (first at %s)", aname, what, first)
			}
			seen[aname] = aptr
		}
	}
	rp, err := runtime.ParsePrompt(bytes.TrimSpace(raw))
	if err != nil {
		return nil, errAt(ptr, "%s: %v", what, err)
	}
	return &Prompt{Name: rp.Name, Title: rp.Title, Description: rp.Description, Arguments: rp.Arguments, Raw: rp.Raw, Pointer: ptr}, nil
}

func readTemplate(item *jsontree.Node, raw json.RawMessage, ptr string) (*ResourceTemplate, *readErr) {
	if item.Kind != jsontree.Object {
		return nil, errAt(ptr, "resource template is a JSON %s, want an object", item.Kind)
	}
	name, e := checkName(item, ptr, "resource template")
	if e != nil {
		return nil, e
	}
	what := "resource template " + strconv.Quote(name)
	if e := checkStrings(item, ptr, what, "title", "description", "mimeType", "uriTemplate"); e != nil {
		return nil, e
	}
	u := item.Get("uriTemplate")
	if u == nil || u.Kind != jsontree.String || u.Str == "" {
		return nil, errAt(ptr, "%s has no uriTemplate", what)
	}
	if _, err := stduritemplate.Expand(u.Str, nil); err != nil {
		return nil, errAt(ptr+"/uriTemplate", "uriTemplate %q of %s is not an RFC 6570 URI template: %v", u.Str, what, err)
	}
	rt, err := runtime.ParseResourceTemplate(bytes.TrimSpace(raw))
	if err != nil {
		return nil, errAt(ptr, "%s: %v", what, err)
	}
	return &ResourceTemplate{Name: rt.Name, Title: rt.Title, Description: rt.Description, URITemplate: rt.URITemplate,
		MIMEType: rt.MIMEType, Raw: rt.Raw, Pointer: ptr}, nil
}

// Runtime returns the prompt as the runtime package describes it.
func (p *Prompt) Runtime() runtime.Prompt {
	return runtime.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments, Raw: p.Raw}
}

// Runtime returns the template as the runtime package describes it.
func (t *ResourceTemplate) Runtime() runtime.ResourceTemplate {
	return runtime.ResourceTemplate{Name: t.Name, Title: t.Title, Description: t.Description, URITemplate: t.URITemplate, MIMEType: t.MIMEType, Raw: t.Raw}
}

// RuntimePrompts returns every prompt of s as the runtime package describes
// it, in file order; nil when s holds no prompt list.
func (s *Snapshot) RuntimePrompts() []runtime.Prompt {
	if s.Prompts == nil {
		return nil
	}
	out := make([]runtime.Prompt, len(s.Prompts))
	for i := range s.Prompts {
		out[i] = s.Prompts[i].Runtime()
	}
	return out
}

// RuntimeTemplates returns every resource template of s as the runtime
// package describes it, in file order; nil when s holds no template list.
func (s *Snapshot) RuntimeTemplates() []runtime.ResourceTemplate {
	if s.ResourceTemplates == nil {
		return nil
	}
	out := make([]runtime.ResourceTemplate, len(s.ResourceTemplates))
	for i := range s.ResourceTemplates {
		out[i] = s.ResourceTemplates[i].Runtime()
	}
	return out
}
