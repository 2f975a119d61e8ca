package toolsearch

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime"
)

// BM25's parameters. b is at the value most systems use; k1 is higher
// than their 1.2 because it saturates a sum of weighted frequencies (see
// fieldWeights), in which one word of a tool's name and title already
// counts 7: at 1.2 a word met once in a description would score almost as
// much as one in the name.
const (
	k1 = 5
	b  = 0.75
)

// The fields of a tool that are indexed, and the weight of a term's
// occurrences in each: a word of the tool's name says more about what it
// does than a word of its description. Each field's length is normalised
// on its own, as BM25F does, so that a long description does not bury a
// match in the name.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldParameters
	numFields
)

var fieldWeights = [numFields]float64{
	fieldName:        5,
	fieldTitle:       2,
	fieldDescription: 1,
	fieldParameters:  1,
}

// maxQueryTerms bounds the terms of one query that are looked up.
const maxQueryTerms = 64

// maxFieldBytes bounds the text of one field of a tool that is indexed (of
// the parameter names, their sum); the rest is not searched. The longest
// description of the corpus servers is 5 KB: the bound is for a hostile
// server's, which would otherwise cost an index entry for each of its
// words.
const maxFieldBytes = 16 << 10

// maxSchemaDepth bounds how deep the walk for parameter names goes into an
// input schema.
const maxSchemaDepth = 8

// An Index ranks a list of tools against queries with BM25F. It is built
// once per tool list and is safe for concurrent use: Search only reads it.
type Index struct {
	names    []string
	docs     []map[string]*[numFields]float64 // per tool: term → frequency per field
	lengths  [][numFields]float64             // per tool: terms per field
	avgLen   [numFields]float64
	postings map[string][]int // term → tools that have it, ascending
}

// New indexes tools. A tool's input schema that does not parse adds no
// parameter names; nothing else about a tool can fail.
func New(tools []runtime.Tool) *Index {
	ix := &Index{
		names:    make([]string, len(tools)),
		docs:     make([]map[string]*[numFields]float64, len(tools)),
		lengths:  make([][numFields]float64, len(tools)),
		postings: map[string][]int{},
	}
	var total [numFields]float64
	for i, t := range tools {
		ix.names[i] = t.Name
		doc := map[string]*[numFields]float64{}
		var room [numFields]int
		for f := range room {
			room[f] = maxFieldBytes
		}
		add := func(f int, text string) {
			if len(text) > room[f] {
				text = textcut.Prefix(text, room[f])
			}
			room[f] -= len(text)
			for _, tok := range tokens(text) {
				tf := doc[tok]
				if tf == nil {
					tf = new([numFields]float64)
					doc[tok] = tf
				}
				tf[f]++
				ix.lengths[i][f]++
			}
		}
		add(fieldName, t.Name)
		add(fieldTitle, t.Title)
		add(fieldDescription, t.Description)
		for _, p := range parameterNames(t.InputSchema) {
			add(fieldParameters, p)
		}
		ix.docs[i] = doc
		for f := range numFields {
			total[f] += ix.lengths[i][f]
		}
		for term := range doc {
			ix.postings[term] = append(ix.postings[term], i)
		}
	}
	if len(tools) > 0 {
		for f := range numFields {
			ix.avgLen[f] = total[f] / float64(len(tools))
		}
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
	terms := ix.queryTerms(query)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	scores := map[int]float64{}
	N := float64(len(ix.names))
	for _, qt := range terms {
		term := qt.term
		post := ix.postings[term]
		if len(post) == 0 {
			continue
		}
		df := float64(len(post))
		idf := math.Log(1 + (N-df+0.5)/(df+0.5))
		for _, i := range post {
			scores[i] += qt.weight * idf * ix.weight(i, term)
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

// weight is BM25F's saturated term frequency of term in tool i: the
// frequencies of its fields, each normalised by the field's length and
// weighed, summed, then saturated with k1.
func (ix *Index) weight(i int, term string) float64 {
	tf := ix.docs[i][term]
	var sum float64
	for f := range numFields {
		if tf[f] == 0 {
			continue
		}
		norm := 1.0
		if ix.avgLen[f] > 0 {
			norm = 1 - b + b*ix.lengths[i][f]/ix.avgLen[f]
		}
		sum += fieldWeights[f] * tf[f] / norm
	}
	return sum * (k1 + 1) / (sum + k1)
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
