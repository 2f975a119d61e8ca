package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes bounds one token: a longer run of letters is cut, so that a
// hostile description costs no more than its length.
const maxTokenBytes = 64

// tokens splits text into lowercase, stemmed terms: words break at every
// character that is neither a letter nor a digit (so "_", "-", "." and ":"
// separate the parts of a tool name), between a lowercase letter or digit
// and an uppercase one ("camelCase"), and at the last capital of a run
// followed by lowercase ("HTTPServer"). Stop words are dropped.
func tokens(text string) []string {
	var out []string
	for _, w := range words(text) {
		w = strings.ToLower(w)
		if len(w) > maxTokenBytes {
			w = truncate(w, maxTokenBytes)
		}
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// words returns the runs of letters and digits of text, split at case
// changes.
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

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
