package redact

import (
	"strings"
	"unicode"
)

// secretStems are the parts of a name that mark its value as a secret. A
// stem matches inside a word ("accesstoken") and across two adjacent words
// ("api_key", "privateKey").
var secretStems = []string{"token", "password", "passwd", "secret", "apikey", "cookie", "credential", "privatekey", "bearer"}

// authorWords contain "auth" without being about authorization.
var authorWords = map[string]bool{"author": true, "authors": true, "authored": true, "authoring": true, "authority": true, "authorities": true}

// countWords beside "token" or "tokens" make the name a count or a limit of
// model tokens ("maxTokens", "budget_tokens", "tokenCount"), or a position
// in a list or a progress stream ("pageToken", "progressToken"), rather than
// a credential.
var countWords = map[string]bool{
	"max": true, "min": true, "num": true, "total": true, "count": true, "limit": true,
	"budget": true, "usage": true, "used": true, "remaining": true,
	"input": true, "output": true, "prompt": true, "completion": true, "cached": true,
	"reasoning": true, "thinking": true,
	"page": true, "next": true, "progress": true,
}

// SecretName reports whether a member, header, flag, variable or parameter
// called name probably holds a secret: "apiKey", "X-Auth-Token",
// "client_secret", "Authorization", "refresh_token". Names that only count
// or page with tokens ("maxTokens", "nextPageToken") are not secret.
func SecretName(name string) bool {
	words := splitWords(name)
	counted := false
	for _, w := range words {
		if countWords[w] {
			counted = true
		}
	}
	for i, w := range words {
		if strings.Contains(w, "auth") && !authorWords[w] {
			return true
		}
		pair := w
		if i+1 < len(words) {
			pair = w + words[i+1]
		}
		for _, stem := range secretStems {
			if stem == "token" {
				// One word holds the whole stem; the pair would see
				// "max"+"tokens" as a word of its own.
				if strings.Contains(w, stem) && !(counted && (w == "token" || w == "tokens")) {
					return true
				}
			} else if strings.Contains(pair, stem) {
				return true
			}
		}
	}
	return false
}

// splitWords returns the lower-cased words of name, split at separators and
// at changes of case: "X-Auth-Token" is x, auth, token; "maxTokens" is max,
// tokens; "APIKey" is api, key.
func splitWords(name string) []string {
	var words []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
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
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}
