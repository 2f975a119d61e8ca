// Package diff classifies the changes between two versions of an MCP
// server's tool list, so that a reviewer sees at once which ones break
// callers.
//
// It owns the breaking-change rules of mcpgen diff and mcpgen check: every
// change gets a severity (ERR, WARN or INFO, judged from the caller's side:
// stricter input schemas and looser output schemas break callers) and a
// GO_API marker when generated Go identifiers change or a field moves between
// T and *T. Schemas are compared by meaning: key order and whitespace never
// make a change, local $refs are followed, allOf is merged, and the
// spellings of null (a type list, a null branch, nullable) are one. The
// GO_API markers are checked against the identifiers the generator would
// emit for both lists (see refineGoAPI).
//
// Reports come in three formats: text, JSON and Markdown.
package diff

import (
	"github.com/mcpgen/mcpgen/internal/schema"

	"github.com/mcpgen/mcpgen/internal/jsontree"

	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
)

// Sections of a tool that a change can be in.
const (
	SectionTool   = ""
	SectionInput  = "inputSchema"
	SectionOutput = "outputSchema"
)

// Change is one classified difference between two tool lists.
type Change struct {
	// Tool is the tool's name in the old list (in the new list for an added
	// tool); empty for a change to a prompt or a resource template.
	Tool string `json:"tool,omitempty"`
	// Prompt and Template name the prompt or the resource template a change
	// is about, when it is about one; Pointer is then within the prompt or
	// template object ("/arguments/city", "/uriTemplate/id").
	Prompt   string `json:"prompt,omitempty"`
	Template string `json:"resourceTemplate,omitempty"`
	// Schema is SectionInput or SectionOutput for schema changes, and empty
	// for changes to the tool itself.
	Schema string `json:"schema,omitempty"`
	// Pointer is the JSON pointer of the change within the schema (within
	// the tool object for tool-level changes), such as
	// "/properties/volume_level"; empty for the whole schema or tool.
	Pointer  string   `json:"pointer"`
	Severity Severity `json:"severity"`
	// GoAPI is set when generated Go code changes in a way that breaks
	// compilation of callers: an identifier is renamed or removed, or a field
	// moves between T and *T.
	GoAPI bool `json:"goAPI"`
	Rule  Rule `json:"rule"`
	// Summary says what changed in a few words.
	Summary string `json:"summary"`
	// Old and New are the values before and after, as compact JSON or
	// text; empty when absent.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Why says why the change matters to callers.
	Why string `json:"why"`

	// UsedAt lists, for a change inside a definition that several places
	// use (a $defs entry, say), up to five of those places, such as
	// "inputSchema/properties/a"; MoreUses counts the others. The change
	// itself is reported once, at the definition.
	UsedAt   []string `json:"usedAt,omitempty"`
	MoreUses int      `json:"moreUses,omitempty"`

	// def is the shared definition the change is in, if any.
	def *defUse

	// baseWhy and goWhy are the two parts of Why for schema changes: why
	// the change matters on the wire, and why it matters to Go code (shown
	// only with the GO_API marker). baseWhy is empty for changes whose Why
	// is written whole.
	baseWhy, goWhy string
}

// composeWhy rebuilds Why from its parts.
func (c *Change) composeWhy() {
	if c.baseWhy == "" {
		return
	}
	c.Why = c.baseWhy
	if c.GoAPI && c.goWhy != "" {
		c.Why += " " + c.goWhy
	}
}

// Where returns the change's location for a report, such as
// "inputSchema/properties/volume_level". A name in it longer than 128
// bytes is cut and ends with "…" and a hash of the name.
func (c *Change) Where() string {
	if c.Prompt != "" || c.Template != "" {
		return cutPointer(c.listingWhere())
	}
	if c.Schema == SectionTool {
		if c.Pointer == "" {
			return "tool"
		}
		return cutPointer("tool" + c.Pointer)
	}
	return cutPointer(c.Schema + c.Pointer)
}

// Tools compares an old and a new tool list and returns every change,
// grouped by tool in name order, and within a tool in the order of the
// schemas. It fails on a schema that is not valid JSON and on two tools with
// the same name, naming the tool.
func Tools(oldTools, newTools []runtime.Tool) ([]Change, error) {
	return ToolsContext(context.Background(), oldTools, newTools)
}

// StoppedError reports a comparison stopped because its context is done,
// such as by a command's timeout. It matches the context's error with
// errors.Is.
type StoppedError struct {
	// Tool is the tool being compared; Phase says what was being done,
	// such as "comparing inputSchema at /properties/a".
	Tool, Phase string
	Err         error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("tool %s: %s stopped: %v", e.Tool, e.Phase, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// ToolsContext is Tools, stopped with a *StoppedError once ctx is done.
func ToolsContext(ctx context.Context, oldTools, newTools []runtime.Tool) ([]Change, error) {
	return ToolsOptions(ctx, oldTools, newTools, Options{})
}

// Options say how the packages whose Go API a comparison checks are
// generated.
type Options struct {
	// Generate are the options generate writes the package with. Their
	// overrides and limits apply to both versions; an override of a
	// property only one version has is not an error.
	Generate ir.Options
	// Tools selects the tools the package declares, as generate's tool
	// filter does; the zero value keeps every tool. The changes of every
	// tool are reported, but only the selected tools make up the Go API:
	// the others neither have identifiers of their own nor take part in
	// the naming and sharing of the selected tools' types.
	Tools runtime.ToolFilter
}

// ToolsOptions is ToolsContext for packages generated with opts.
func ToolsOptions(ctx context.Context, oldTools, newTools []runtime.Tool, opts Options) ([]Change, error) {
	olds, err := index(oldTools, "old")
	if err != nil {
		return nil, err
	}
	news, err := index(newTools, "new")
	if err != nil {
		return nil, err
	}

	var removed, added []string
	for name := range olds {
		if news[name] == nil {
			removed = append(removed, name)
		}
	}
	for name := range news {
		if olds[name] == nil {
			added = append(added, name)
		}
	}
	sort.Strings(removed)
	sort.Strings(added)
	renames := detectRenames(olds, news, removed, added)

	byTool := map[string][]Change{}
	var order []string
	emit := func(key string, cs ...Change) {
		if len(cs) == 0 {
			return
		}
		if _, ok := byTool[key]; !ok {
			order = append(order, key)
		}
		byTool[key] = append(byTool[key], cs...)
	}
	renamedTo := map[string]bool{}
	walkers := map[apiLoc]*walker{}
	var stopped error
	compare := func(o, n *parsedTool) []Change {
		if stopped != nil {
			return nil
		}
		cs, err := compareTools(ctx, o, n, walkers)
		stopped = err
		return cs
	}
	for _, name := range removed {
		if to, ok := renames[name]; ok {
			renamedTo[to] = true
			emit(name, Change{Tool: name, Severity: Err, GoAPI: true, Rule: ToolRenamed,
				Summary: fmt.Sprintf("tool %s renamed to %s", name, to),
				Old:     name, New: to,
				Why: fmt.Sprintf("Calls to %s fail: the server now calls the tool %s. The generated method and argument type are renamed, so code that uses them no longer compiles.", name, to)})
			emit(name, compare(olds[name], news[to])...)
			continue
		}
		emit(name, Change{Tool: name, Severity: Err, GoAPI: true, Rule: ToolRemoved,
			Summary: fmt.Sprintf("tool %s removed", name), Old: name,
			Why: fmt.Sprintf("Calls to %s fail: the server no longer has the tool. Its generated method and types disappear, so code that uses them no longer compiles.", name)})
	}
	for _, name := range added {
		if renamedTo[name] {
			continue
		}
		emit(name, Change{Tool: name, Severity: Info, Rule: ToolAdded,
			Summary: fmt.Sprintf("tool %s added", name), New: name,
			Why: "A new tool is available; regenerate to call it."})
	}
	for name, o := range olds {
		if n := news[name]; n != nil {
			emit(name, compare(o, n)...)
		}
	}
	sort.Strings(order)
	var out []Change
	for _, key := range order {
		out = append(out, byTool[key]...)
	}
	if stopped != nil {
		return nil, stopped
	}
	build := opts.Generate
	build.Context, build.KeepUnusedOverrides = ctx, true
	return refineGoAPI(build, selected(oldTools, opts.Tools), selected(newTools, opts.Tools), out, walkers)
}

// selected returns the tools f keeps.
func selected(tools []runtime.Tool, f runtime.ToolFilter) []runtime.Tool {
	if f.IsZero() {
		return tools
	}
	var out []runtime.Tool
	for _, t := range tools {
		if f.Keep(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// parsedTool is a tool with its schemas decoded.
type parsedTool struct {
	tool   *runtime.Tool
	input  *jsontree.Node // nil when absent
	output *jsontree.Node // nil when absent
	extra  *jsontree.Node // the tool object's other keys, from Raw
	// annotations are the tool's behaviour hints, or nil.
	annotations *jsontree.Node
}

func index(tools []runtime.Tool, side string) (map[string]*parsedTool, error) {
	out := make(map[string]*parsedTool, len(tools))
	for i := range tools {
		t := &tools[i]
		if out[t.Name] != nil {
			return nil, fmt.Errorf("%s tool list has two tools named %q", side, t.Name)
		}
		p := &parsedTool{tool: t}
		var err error
		if p.input, err = parseSchema(t.InputSchema); err != nil {
			return nil, fmt.Errorf("tool %s in the %s list: inputSchema: %w", t.Name, side, err)
		}
		if p.output, err = parseSchema(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %s in the %s list: outputSchema: %w", t.Name, side, err)
		}
		if p.annotations, err = parseOptional(t.Annotations); err != nil {
			return nil, fmt.Errorf("tool %s in the %s list: annotations: not valid JSON: %w", t.Name, side, err)
		}
		if len(bytes.TrimSpace(t.Raw)) > 0 {
			raw, err := jsontree.ParseUnique(t.Raw)
			if err != nil {
				return nil, fmt.Errorf("tool %s in the %s list: %w", t.Name, side, err)
			}
			if raw.Kind == jsontree.Object {
				p.extra = &jsontree.Node{Kind: jsontree.Object}
				for _, k := range raw.Keys() {
					if !knownToolKeys[k] {
						p.extra.Set(k, raw.Get(k))
					}
				}
			}
		}
		out[t.Name] = p
	}
	return out, nil
}

// knownToolKeys are the tool keys compared by their own rules.
var knownToolKeys = map[string]bool{
	"name": true, "title": true, "description": true,
	"inputSchema": true, "outputSchema": true, "annotations": true,
}

func parseSchema(raw []byte) (*jsontree.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	n, err := jsontree.ParseUnique(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if n.Kind != jsontree.Object && n.Kind != jsontree.Bool {
		return nil, fmt.Errorf("a schema must be an object or a boolean, not %s", n.String())
	}
	return schema.StaticRefs(n), nil
}

// detectRenames pairs a removed tool with an added one when their schemas
// are the same and neither has another candidate. Schemas that declare no
// property are no evidence, since every tool without arguments has the
// same one: such a pair must share a title or a description too.
func detectRenames(olds, news map[string]*parsedTool, removed, added []string) map[string]string {
	sig := func(p *parsedTool) string { return canonOrEmpty(p.input) + "\x00" + canonOrEmpty(p.output) }
	oldBySig, newBySig := map[string][]string{}, map[string][]string{}
	for _, name := range removed {
		s := sig(olds[name])
		oldBySig[s] = append(oldBySig[s], name)
	}
	for _, name := range added {
		s := sig(news[name])
		newBySig[s] = append(newBySig[s], name)
	}
	out := map[string]string{}
	for s, os := range oldBySig {
		if ns := newBySig[s]; len(os) == 1 && len(ns) == 1 && (declaresProperties(olds[os[0]]) || sameText(olds[os[0]], news[ns[0]])) {
			out[os[0]] = ns[0]
		}
	}
	return out
}

// declaresProperties reports whether the input or output schema of p
// declares a property.
func declaresProperties(p *parsedTool) bool {
	for _, n := range []*jsontree.Node{p.input, p.output} {
		if props := n.Get("properties"); props != nil && len(props.Keys()) > 0 {
			return true
		}
	}
	return false
}

// sameText reports whether o and n have the same title or the same
// description, one that is not empty.
func sameText(o, n *parsedTool) bool {
	return o.tool.Title != "" && o.tool.Title == n.tool.Title ||
		o.tool.Description != "" && o.tool.Description == n.tool.Description
}

func canonOrEmpty(n *jsontree.Node) string {
	if n == nil {
		return ""
	}
	return jsontree.Canonical(n)
}

// compareTools compares two versions of one tool, and records the walkers
// of its schemas in walkers.
func compareTools(ctx context.Context, o, n *parsedTool, walkers map[apiLoc]*walker) ([]Change, error) {
	name := o.tool.Name
	var out []Change
	add := func(c Change) {
		c.Tool = name
		out = append(out, c)
	}
	if o.tool.Title != n.tool.Title {
		add(Change{Pointer: "/title", Severity: Info, Rule: ToolTitleChanged,
			Summary: "title changed", Old: o.tool.Title, New: n.tool.Title,
			Why: "The title is shown to users and models."})
	}
	if o.tool.Description != n.tool.Description {
		add(Change{Pointer: "/description", Severity: Info, Rule: ToolDescriptionChanged,
			Summary: "description changed", Old: o.tool.Description, New: n.tool.Description,
			Why: "The description is prompt text: it decides when a model picks the tool."})
	}
	out = append(out, compareAnnotations(name, o, n)...)

	// Equal documents have equal references too: skip the walk.
	if canonOrEmpty(o.input) != canonOrEmpty(n.input) {
		in := newWalker(name, SectionInput, false, o.input, n.input)
		in.ctx = ctx
		walkers[apiLoc{tool: name, section: SectionInput}] = in
		in.compare("", "", orTrue(o.input), orTrue(n.input), position{})
		if in.err != nil {
			return nil, in.err
		}
		out = append(out, in.finish()...)
	}

	switch {
	case canonOrEmpty(o.output) == canonOrEmpty(n.output):
	case o.output == nil:
		add(Change{Schema: SectionOutput, Severity: Info, GoAPI: true, Rule: OutputSchemaAdded,
			Summary: "output schema added", New: n.output.String(),
			Why: "The tool now promises structured results. The generated method returns the typed result instead of *runtime.Result, so code that uses the result must change."})
	case n.output == nil:
		add(Change{Schema: SectionOutput, Severity: Err, GoAPI: true, Rule: OutputSchemaRemoved,
			Summary: "output schema removed", Old: o.output.String(),
			Why: "The tool no longer promises structured results, so code that reads them may get nothing. The generated result type disappears and the method returns *runtime.Result."})
	default:
		ow := newWalker(name, SectionOutput, true, o.output, n.output)
		ow.ctx = ctx
		walkers[apiLoc{tool: name, section: SectionOutput}] = ow
		ow.compare("", "", o.output, n.output, position{})
		if ow.err != nil {
			return nil, ow.err
		}
		out = append(out, ow.finish()...)
	}
	return out, nil
}

func orTrue(n *jsontree.Node) *jsontree.Node {
	if n == nil {
		return trueNode
	}
	return n
}

func newWalker(tool, section string, output bool, oldRoot, newRoot *jsontree.Node) *walker {
	shared := map[string]bool{}
	for _, root := range []*jsontree.Node{oldRoot, newRoot} {
		for ref, n := range countRefs(root) {
			if n > 1 && strings.HasPrefix(ref, "#") {
				shared[ref] = true
			}
		}
	}
	return &walker{
		shared:      shared,
		maxCompared: defaultMaxCompared,
		defs:        map[string]*defUse{},
		tool:        tool,
		section:     section,
		output:      output,
		old:         newResolver(orTrue(oldRoot)),
		new:         newResolver(orTrue(newRoot)),
		active:      map[string]bool{},
		stable:      map[string]bool{},
	}
}

// compareAnnotations compares the behaviour hints and the tool object's
// other keys, one key at a time. A hint's change is a warning when the
// tool stops being read-only or becomes destructive as clients read the
// hints (runtime.ToolAnnotations), defaults included: a tool that leaves
// destructiveHint out is destructive unless it is read-only.
func compareAnnotations(name string, o, n *parsedTool) []Change {
	var out []Change
	oa, na := o.annotations, n.annotations
	oh, nh := runtime.ParseAnnotations(o.tool.Annotations), runtime.ParseAnnotations(n.tool.Annotations)
	lostReadOnly := oh.ReadOnly() && !nh.ReadOnly()
	becameDestructive := nh.Destructive() && !oh.Destructive()
	for _, key := range unionKeys(oa, na) {
		ov, nv := oa.Get(key), na.Get(key)
		if jsontree.Equal(ov, nv) {
			continue
		}
		c := Change{Tool: name, Pointer: childPtr("/annotations", key), Severity: Info,
			Rule: ToolAnnotationsChanged, Summary: fmt.Sprintf("annotation %s changed", key),
			Old: valueText(ov), New: valueText(nv),
			Why: "Behaviour hints decide whether clients ask users to confirm a call."}
		if (key == "readOnlyHint" && lostReadOnly) || (key == "destructiveHint" && becameDestructive) {
			c.Severity = Warn
			c.Why = "The tool now says it may change or destroy data: callers that ran it without confirmation should reconsider."
		}
		out = append(out, c)
	}
	for _, key := range unionKeys(o.extra, n.extra) {
		ov, nv := o.extra.Get(key), n.extra.Get(key)
		if jsontree.Equal(ov, nv) {
			continue
		}
		out = append(out, Change{Tool: name, Pointer: childPtr("", key), Severity: Info,
			Rule: ToolAnnotationsChanged, Summary: fmt.Sprintf("tool key %s changed", key),
			Old: valueText(ov), New: valueText(nv),
			Why: "The tool's metadata changed; it does not change the arguments."})
	}
	return out
}

// parseOptional decodes optional JSON; empty input is absent.
func parseOptional(raw []byte) (*jsontree.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	return jsontree.ParseUnique(raw)
}
