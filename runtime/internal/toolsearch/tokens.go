package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes bounds one token: a longer run of letters is cut, so that a
// hostile description costs no more than its length.
const maxTokenBytes = 64

// tokens splits text into lowercase, stemmed terms, as the index reads a
// tool. Words break at every character that is neither a letter nor a
// digit (so "_", "-", "." and ":" separate the parts of a tool name),
// between a lowercase letter or digit and an uppercase one ("camelCase"),
// and at the last capital of a run followed by lowercase ("HTTPServer").
// Stop words are dropped. The parts of a compound, words joined by a hyphen
// or by a change of case ("to-do", "OneNote", "todoTaskList"), are also
// joined pairwise, so that "to-do" meets "todo" and "OneNote" meets
// "onenote".
func tokens(text string) []string {
	var out []string
	for _, c := range compounds(text) {
		parts := compoundParts(c)
		for _, w := range parts {
			if !stopWords[w] {
				out = append(out, stem(w))
			}
		}
		for i := 1; i < len(parts); i++ {
			out = append(out, stem(clip(parts[i-1]+parts[i])))
		}
	}
	return out
}

// A queryTerm is a term of a query and its weight: 1 for the words of the
// query, relatedWeight for the words related to them.
type queryTerm struct {
	term   string
	weight float64
}

// relatedWeight is the weight of a term a query gets from related.
const relatedWeight = 0.5

// related maps the stems of the words users say to the words tool names
// and descriptions use for the same thing: the verbs of listing, reading,
// creating, changing and deleting, which APIs name by a few fixed verbs
// while people use many, and "email" for "mail". A query looks for these
// too, at relatedWeight.
var related = map[string][]string{
	"show":    {"list", "get"},
	"display": {"list", "get"},
	"view":    {"list", "get"},
	"see":     {"list", "get"},
	"find":    {"search", "list", "get"},
	"look":    {"search", "list", "get"},
	"read":    {"get", "list"},
	"fetch":   {"get"},
	"retriev": {"get"},
	"post":    {"send", "creat"},
	"writ":    {"creat", "send"},
	"make":    {"creat"},
	"new":     {"creat"},
	"add":     {"creat"},
	"remov":   {"delet"},
	"eras":    {"delet"},
	"delet":   {"remov"},
	"edit":    {"updat"},
	"chang":   {"updat", "set"},
	"modify":  {"updat"},
	"email":   {"mail"},
	"mail":    {"email"},
}

// queryTerms splits a query as tokens does, except that a compound whose
// joined parts are a term of the index counts as that one term ("OneNote"
// looks for "onenote" only, not also for "one" and "note"), and adds the
// related terms of each word, each term once at its highest weight.
func (ix *Index) queryTerms(query string) []queryTerm {
	weights := map[string]float64{}
	var order []string
	add := func(term string, w float64) {
		if old, ok := weights[term]; !ok {
			order = append(order, term)
			weights[term] = w
		} else if w > old {
			weights[term] = w
		}
	}
	for _, c := range compounds(query) {
		parts := compoundParts(c)
		for i := 0; i < len(parts); i++ {
			if i+1 < len(parts) {
				if j := stem(clip(parts[i] + parts[i+1])); len(ix.postings[j]) > 0 {
					add(j, 1)
					i++
					continue
				}
			}
			if stopWords[parts[i]] {
				continue
			}
			t := stem(parts[i])
			add(t, 1)
			for _, r := range related[t] {
				add(r, relatedWeight)
			}
		}
	}
	out := make([]queryTerm, len(order))
	for i, t := range order {
		out[i] = queryTerm{t, weights[t]}
	}
	return out
}

// compoundParts returns the lowercase words of a compound.
func compoundParts(c string) []string {
	parts := words(c)
	for i, w := range parts {
		parts[i] = clip(strings.ToLower(w))
	}
	return parts
}

// clip cuts a word longer than maxTokenBytes.
func clip(w string) string {
	if len(w) > maxTokenBytes {
		return textcut.Prefix(w, maxTokenBytes)
	}
	return w
}

// compounds returns the runs of text made of letters, digits and single
// hyphens between them, in Unicode's NFKC form: a word written with a
// combining accent ("e" and U+0301) or in a compatibility form (full-width
// letters, the "ﬁ" ligature) is the same term as the usual spelling.
func compounds(text string) []string {
	return strings.FieldsFunc(norm.NFKC.String(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
}

// words returns the runs of letters and digits of text, split at case
// changes, and each character of a script written without spaces between
// words (Chinese, Japanese) on its own: tokens and queryTerms join
// neighbouring parts in pairs, so that the words of such a text, which
// are mostly two characters long, are terms.
func words(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if unspaced(r) {
			flush(i)
			out = append(out, string(r))
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start:
			// "HTTPServer": the S starts the next word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(rs))
	return out
}

// unspaced reports whether r is of a script written without spaces
// between words: a Han ideograph, a hiragana or a katakana.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// stem removes the common English inflections of w, lightly: plurals
// ("events" → "event", "entries" → "entry", "boxes" → "box"), "-ing" and
// "-ed" ("sending" → "send", "scheduled" → "schedul", "schedule" →
// "schedul"), so that a query and a description that use two forms of one
// word meet. Short words are kept as they are.
func stem(w string) string {
	if len(w) <= 3 || !isASCII(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 5 && !strings.HasSuffix(w, "eed"):
		w = undouble(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "ment") && len(w) >= 9 {
		w = w[:len(w)-4] // "attachment" → "attach"
	}
	// "schedule" and "scheduled", "create" and "created" meet at
	// "schedul", "creat".
	if strings.HasSuffix(w, "e") && len(w) >= 5 {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns a stem that ends in a doubled consonant ("stopp",
// "sett") into its single form.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stopWords are English words too common to tell tools apart.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "by": true, "from": true, "at": true, "as": true, "is": true,
	"are": true, "be": true, "it": true, "its": true, "this": true, "that": true, "these": true, "those": true,
	"my": true, "me": true, "i": true, "you": true, "your": true, "we": true, "our": true, "can": true,
	"all": true, "any": true, "some": true, "please": true, "what": true, "which": true, "who": true,
	"do": true, "does": true, "if": true, "not": true, "will": true, "into": true, "about": true,
	"there": true, "their": true, "them": true, "they": true, "was": true, "were": true, "has": true,
	"have": true, "had": true, "but": true, "so": true, "than": true, "then": true, "also": true,
}
