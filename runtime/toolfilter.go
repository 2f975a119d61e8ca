package runtime

import (
	"fmt"
	"path"
	"strconv"
)

// ToolFilter picks tools by name, so that a program declares to a model only
// the tools it uses. The generator ("mcpgen generate --tools ...
// --exclude-tools ...") and the provider toolsets use the same rules:
//
//   - Each pattern is matched against the whole MCP tool name with
//     path.Match: "*" matches any run of characters other than "/", "?" one
//     such character, "[a-z]" a class, and "\" quotes the next character.
//     Names are case-sensitive.
//   - Include applies first: with no Include pattern every tool is
//     included, otherwise a tool must match at least one of them.
//   - Exclude then removes every included tool that matches one of its
//     patterns.
//
// The zero ToolFilter keeps every tool.
type ToolFilter struct {
	Include []string
	Exclude []string
}

// ToolPatternError reports a malformed pattern. Kind is "include" or
// "exclude".
type ToolPatternError struct {
	Kind    string
	Pattern string
	Err     error
}

func (e *ToolPatternError) Error() string {
	return fmt.Sprintf("%s pattern %s: %v", e.Kind, strconv.Quote(e.Pattern), e.Err)
}

func (e *ToolPatternError) Unwrap() error { return e.Err }

// IsZero reports whether f has no pattern and so keeps every tool.
func (f ToolFilter) IsZero() bool { return len(f.Include) == 0 && len(f.Exclude) == 0 }

// Check reports the first malformed pattern as a *ToolPatternError.
func (f ToolFilter) Check() error {
	for _, kind := range []struct {
		name string
		list []string
	}{{"include", f.Include}, {"exclude", f.Exclude}} {
		for _, p := range kind.list {
			if p == "" {
				return &ToolPatternError{Kind: kind.name, Pattern: p, Err: fmt.Errorf("empty pattern")}
			}
			if _, err := path.Match(p, ""); err != nil {
				return &ToolPatternError{Kind: kind.name, Pattern: p, Err: err}
			}
		}
	}
	return nil
}

// Keep reports whether f keeps the tool called name. A malformed pattern
// matches nothing; call Check first to find one.
func (f ToolFilter) Keep(name string) bool {
	if len(f.Include) > 0 && !matchAny(f.Include, name) {
		return false
	}
	return !matchAny(f.Exclude, name)
}

// Select returns the tools f keeps, in their order. It fails when a pattern
// is malformed, and when f keeps none of the tools, which is almost always a
// mistake in the patterns.
func (f ToolFilter) Select(tools []Tool) ([]Tool, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.IsZero() {
		return tools, nil
	}
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if f.Keep(t.Name) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the tool filter keeps none of the %d tools", len(tools))
	}
	return out, nil
}

// ToolPattern is one pattern of a ToolFilter, with its kind: "include" or
// "exclude".
type ToolPattern struct {
	Kind, Pattern string
}

// Unused returns the patterns that match none of names, in the order they
// are given; such a pattern is most likely a typo. An exclude pattern counts
// as used when it matches any of names, included or not.
func (f ToolFilter) Unused(names []string) []ToolPattern {
	var out []ToolPattern
	for _, kind := range []struct {
		name string
		list []string
	}{{"include", f.Include}, {"exclude", f.Exclude}} {
		for _, p := range kind.list {
			if !matchAny([]string{p}, names...) {
				out = append(out, ToolPattern{Kind: kind.name, Pattern: p})
			}
		}
	}
	return out
}

// matchAny reports whether one of patterns matches one of names.
func matchAny(patterns []string, names ...string) bool {
	for _, p := range patterns {
		for _, n := range names {
			if ok, _ := path.Match(p, n); ok {
				return true
			}
		}
	}
	return false
}

// TooManyToolsError reports that a provider toolset would declare more tools
// in one request than the provider documents as its limit.
type TooManyToolsError struct {
	// Provider names the API, such as "gemini" or "openai".
	Provider string
	// Tools is how many would be declared; Limit the documented maximum.
	// In deferred mode Tools counts what one request may declare at most:
	// the pinned tools, MaxFound found ones and the search function.
	Tools, Limit int
	// Source is the URL of the documentation that states the limit.
	Source string
	// Deferred reports that the toolset was in deferred mode (see
	// ToolSearch).
	Deferred bool
}

func (e *TooManyToolsError) Error() string {
	if e.Deferred {
		return fmt.Sprintf("%s toolset in deferred mode (runtime.ToolSearch): %d declarations (pinned tools, up to MaxFound found ones and the search function) exceed the %d one request may declare (%s); pin fewer tools or lower MaxFound",
			e.Provider, e.Tools, e.Limit, e.Source)
	}
	return fmt.Sprintf("%s toolset: %d tools exceed the %d one request may declare (%s); offer fewer, for instance with runtime.ToolFilter, or declare only a few and let the model search for the others with deferred mode (runtime.ToolSearch)",
		e.Provider, e.Tools, e.Limit, e.Source)
}
