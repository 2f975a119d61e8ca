package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// constructs counts, over every input and output schema of the corpus, the
// schemas using each construct the corpus exists to cover.
type constructs map[string]int

// count walks one schema. Children of properties, $defs and definitions are
// schemas; their names are not keywords.
func (c constructs) count(v any, depth int, maxDepth *int) {
	if depth > *maxDepth {
		*maxDepth = depth
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "properties", "$defs", "definitions", "patternProperties":
				c[k]++
				if m, ok := x.(map[string]any); ok {
					for _, sub := range m {
						c.count(sub, depth+1, maxDepth)
					}
				}
				continue
			case "type":
				if list, ok := x.([]any); ok {
					c["type list"]++
					for _, t := range list {
						if t == "null" {
							c["type list with null"]++
						}
					}
				}
			case "$ref":
				if s, ok := x.(string); ok && strings.HasPrefix(s, "#/$defs/") {
					c["$ref to $defs"]++
				}
			}
			c[k]++
			c.count(x, depth+1, maxDepth)
		}
	case []any:
		for _, x := range v {
			c.count(x, depth, maxDepth)
		}
	}
}

// TestCorpusVariety checks that the corpus keeps covering what real servers
// send: a server with more than 100 tools, a schema over 32 KB derived from
// an API description, nesting over 12 levels, and the constructs below.
func TestCorpusVariety(t *testing.T) {
	servers := loadCorpus(t)
	c := constructs{}
	maxTools, maxSchema, maxDepth, tools, outputs := 0, 0, 0, 0, 0
	var biggest string
	for _, s := range servers {
		if n := len(s.snap.Tools); n > maxTools {
			maxTools = n
		}
		for _, tool := range s.snap.Tools {
			tools++
			if len(tool.InputSchema) > maxSchema {
				maxSchema, biggest = len(tool.InputSchema), s.file+" "+tool.Name
			}
			for _, raw := range []json.RawMessage{tool.InputSchema, tool.OutputSchema} {
				if raw == nil {
					continue
				}
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatalf("%s: tool %q: %v", s.file, tool.Name, err)
				}
				c.count(v, 0, &maxDepth)
			}
			if tool.OutputSchema != nil {
				outputs++
			}
		}
	}
	t.Logf("%d servers, %d tools (%d with an output schema); largest server %d tools; largest input schema %d bytes (%s); deepest nesting %d", len(servers), tools, outputs, maxTools, maxSchema, biggest, maxDepth)
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-22s %d", k, c[k])
	}
	if maxTools < 100 {
		t.Errorf("the largest server has %d tools, want one with 100 or more", maxTools)
	}
	if maxSchema < 32<<10 {
		t.Errorf("the largest input schema has %d bytes, want one over 32 KB", maxSchema)
	}
	if maxDepth < 12 {
		t.Errorf("schemas nest %d levels at most, want 12", maxDepth)
	}
	if outputs == 0 {
		t.Error("no tool has an output schema")
	}
	for _, k := range []string{"$ref", "$defs", "$ref to $defs", "anyOf", "oneOf", "type list with null", "const", "enum", "additionalProperties", "pattern", "format", "exclusiveMinimum", "minItems", "maxItems", "minLength", "propertyNames", "prefixItems", "default", "$schema"} {
		if c[k] == 0 {
			t.Errorf("no schema of the corpus uses %s", k)
		}
	}
}

// TestCaptureScript checks that capture.sh re-captures exactly the servers
// of the corpus, and that every npm package pinned beside it is run by it.
func TestCaptureScript(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(corpusDir, "capture.sh"))
	if err != nil {
		t.Fatal(err)
	}
	captured := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^capture ([a-z0-9-]+) `).FindAllStringSubmatch(string(script), -1) {
		captured[m[1]] = true
	}
	inCorpus := map[string]bool{}
	for _, s := range loadCorpus(t) {
		name := strings.TrimSuffix(s.file, ".json")
		inCorpus[name] = true
		if !captured[name] {
			t.Errorf("capture.sh does not capture %s", s.file)
		}
	}
	for name := range captured {
		if !inCorpus[name] {
			t.Errorf("capture.sh captures %s, which is not in the corpus", name)
		}
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile(filepath.Join(corpusDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	for name, version := range pkg.Dependencies {
		if !strings.Contains(string(script), "node_modules/"+name+"/") {
			t.Errorf("package.json pins %s but capture.sh does not run it", name)
		}
		if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(version) {
			t.Errorf("package.json: %s is pinned to %q, not an exact version", name, version)
		}
	}
}
