package snapshot

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// CheckName reports a tool name that does not survive JSON decoding: one
// holding invalid UTF-8, or a \u escape of half a surrogate pair. Decoders
// turn either into U+FFFD, so generated code would call the tool by a name
// the server does not know, while the raw tool it embeds keeps the original
// bytes. The name is checked as decoded and, when it holds U+FFFD, as the
// server wrote it in Raw.
func (t *Tool) CheckName() error {
	if !utf8.ValidString(t.Name) {
		return errors.New("tool name " + strconv.Quote(t.Name) + " is not valid UTF-8")
	}
	if !strings.ContainsRune(t.Name, utf8.RuneError) || len(t.Raw) == 0 {
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(t.Raw, &members) != nil || !replacedText(members["name"]) {
		return nil
	}
	return errors.New("tool name " + strconv.Quote(t.Name) + " is not valid UTF-8 as the server sent it (decoding turned bytes into U+FFFD), so no call could name the tool")
}

// replacedText reports whether the JSON string literal lit holds invalid
// UTF-8 or a lone surrogate escape.
func replacedText(lit []byte) bool {
	if !utf8.Valid(lit) {
		return true
	}
	hex := func(i int) rune {
		if i+6 > len(lit) || lit[i+1] != 'u' {
			return -1
		}
		n, err := strconv.ParseUint(string(lit[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(n)
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		r := hex(i)
		switch {
		case r < 0:
			i++ // a one-character escape
		case !utf16.IsSurrogate(r):
			i += 5
		case r < 0xdc00 && i+6 < len(lit) && lit[i+6] == '\\' && hex(i+6) >= 0xdc00 && hex(i+6) <= 0xdfff:
			i += 11
		default:
			return true
		}
	}
	return false
}
