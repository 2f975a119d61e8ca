package toolsearch

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"

	"github.com/mcpgen/mcpgen/runtime"
)

// BM25's parameters, at the values most systems use.
const (
	k1 = 1.2
	b  = 0.75
)

// The weights of a term's occurrences by field: a word of the tool's name
// says more about what it does than a word of its description.
const (
	nameWeight        = 3
	titleWeight       = 2
	parameterWeight   = 1
	descriptionWeight = 1
)

// maxQueryTerms bounds the terms of one query that are looked up.
const maxQueryTerms = 64

// maxSchemaDepth bounds how deep the walk for parameter names goes into an
// input schema.
const maxSchemaDepth = 8

// An Index ranks a list of tools against queries. It is built once per tool
// list and is safe for concurrent use: Search only reads it.
type Index struct {
	names    []string
	docs     []map[string]float64 // per tool: term → weighted frequency
	lengths  []float64            // per tool: weighted length
	avgLen   float64
	postings map[string][]int // term → tools that have it, ascending
}

// New indexes tools. A tool's input schema that does not parse adds no
// parameter names; nothing else about a tool can fail.
func New(tools []runtime.Tool) *Index {
	ix := &Index{
		names:    make([]string, len(tools)),
		docs:     make([]map[string]float64, len(tools)),
		lengths:  make([]float64, len(tools)),
		postings: map[string][]int{},
	}
	var total float64
	for i, t := range tools {
		ix.names[i] = t.Name
		doc := map[string]float64{}
		add := func(text string, w float64) {
			for _, tok := range tokens(text) {
				doc[tok] += w
				ix.lengths[i] += w
			}
		}
		add(t.Name, nameWeight)
		add(t.Title, titleWeight)
		add(t.Description, descriptionWeight)
		for _, p := range parameterNames(t.InputSchema) {
			add(p, parameterWeight)
		}
		ix.docs[i] = doc
		total += ix.lengths[i]
		for term := range doc {
			ix.postings[term] = append(ix.postings[term], i)
		}
	}
	if len(tools) > 0 {
		ix.avgLen = total / float64(len(tools))
	}
	return ix
}

// Len returns the number of tools indexed.
func (ix *Index) Len() int { return len(ix.names) }

// Search returns the indices, into the tools the index was built from, of
// at most n tools that match query, best first; ties go to the name that
// sorts first. A tool matches when it shares a term with the query. A query
// with no term (empty, or only stop words) matches nothing.
func (ix *Index) Search(query string, n int) []int {
	if n <= 0 || len(ix.names) == 0 {
		return nil
	}
	terms := tokens(query)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	scores := map[int]float64{}
	N := float64(len(ix.names))
	for _, term := range terms {
		post := ix.postings[term]
		if len(post) == 0 {
			continue
		}
		df := float64(len(post))
		idf := math.Log(1 + (N-df+0.5)/(df+0.5))
		for _, i := range post {
			tf := ix.docs[i][term]
			norm := 1 - b
			if ix.avgLen > 0 {
				norm += b * ix.lengths[i] / ix.avgLen
			}
			scores[i] += idf * tf * (k1 + 1) / (tf + k1*norm)
		}
	}
	hits := make([]int, 0, len(scores))
	for i := range scores {
		hits = append(hits, i)
	}
	slices.SortFunc(hits, func(x, y int) int {
		if c := cmp.Compare(scores[y], scores[x]); c != 0 {
			return c
		}
		if c := cmp.Compare(ix.names[x], ix.names[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	return hits
}

// parameterNames returns the property names of an input schema, at the top
// level and nested (in properties, items, and the branches of anyOf, oneOf
// and allOf), each once, in the order met.
func parameterNames(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		obj, ok := v.(map[string]any)
		if !ok || depth > maxSchemaDepth {
			return
		}
		if props, ok := obj["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
				walk(props[k], depth+1)
			}
		}
		walk(obj["items"], depth+1)
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := obj[kw].([]any); ok {
				for _, s := range list {
					walk(s, depth+1)
				}
			}
		}
	}
	walk(root, 0)
	return out
}
