package ir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/textcut"
)

// initialisms are written in upper case when they make up a whole word, as
// Go style asks.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true,
	"JSON": true, "JWT": true, "LLM": true, "MCP": true, "OS": true, "RAM": true, "RPC": true,
	"SHA": true, "SLA": true, "SMTP": true, "SQL": true, "SSE": true, "SSH": true, "TCP": true,
	"TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "URI": true, "URL": true,
	"UTF8": true, "UUID": true, "VM": true, "XML": true, "XSRF": true, "XSS": true, "YAML": true,
}

// words splits s into words at non-alphanumeric characters, lower-to-upper
// case changes, and the end of an upper-case run ("HTTPServer" → HTTP,
// Server).
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// maxNamePart bounds, in bytes, the identifier camel makes of one name. A
// name is a tool's, a property's or an enum value's, and identifiers are
// made of several (a nested type of its tool's and properties' names, an
// enum constant of its type's and value's), so one name of a megabyte
// would come back in every identifier built on it: a 73 KB snapshot with
// a 64 KiB property name and 1,000 enum values made 189 MB of Go. The
// longest name of the real servers in testdata makes 50 bytes.
const maxNamePart = 128

// camel joins the words of s in CamelCase, applying initialisms. Letters
// outside what Go accepts in identifiers are dropped. The result may start
// with a digit, and is empty when s has no letters or digits. One longer
// than maxNamePart is cut and ends with an underscore and the hash of s,
// which keeps names that differ only past the cut apart.
func camel(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if b.Len() > maxNamePart {
			break
		}
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	c := b.String()
	if len(c) <= maxNamePart {
		return c
	}
	suffix := fmt.Sprintf("_%08x", fnv32(s))
	return textcut.Prefix(c, maxNamePart-len(suffix)) + suffix
}

// Exported returns an exported Go identifier for s: "list-events" →
// "ListEvents", "light.turn_on" → "LightTurnOn", "HassTurnOn" stays. A name
// that would start with a digit gets an "X" prefix, and a name with no
// letters or digits becomes fallback.
func Exported(s, fallback string) string {
	c := camel(s)
	if c == "" {
		return fallback
	}
	if r, _ := utf8.DecodeRuneInString(c); !unicode.IsLetter(r) || !unicode.IsUpper(r) {
		// Digits, and letters without case (such as CJK), cannot start an
		// exported identifier.
		return "X" + c
	}
	return c
}

// valueName returns the suffix of an enum constant for a JSON value: its
// words in CamelCase, with a leading sign spelled out ("-1" → "Minus1",
// "-timestamp" → "MinusTimestamp").
func valueName(s string) string {
	prefix := ""
	switch {
	case strings.HasPrefix(s, "-"):
		prefix, s = "Minus", s[1:]
	case strings.HasPrefix(s, "+"):
		prefix, s = "Plus", s[1:]
	}
	c := camel(strings.ReplaceAll(s, ".", "_Dot_"))
	if c == "" {
		return ""
	}
	return prefix + c
}

// genericNames are own names of types that say too little on their own at
// the package level: several properties of unrelated objects have them. A
// type with such a name is named after the struct it is a field of
// ("GeometryType"), or, when that is a tool's arguments or result, keeps
// its tool's prefix ("SearchNodesType") and is not shared across tools.
var genericNames = map[string]bool{
	"Action": true, "Body": true, "Category": true, "Config": true, "Content": true, "Data": true,
	"Direction": true, "Filter": true, "Format": true, "Input": true, "Item": true, "Kind": true,
	"Level": true, "Method": true, "Mode": true, "Model": true, "Name": true, "Object": true,
	"Operation": true, "Operator": true, "Options": true, "Order": true, "Output": true,
	"Params": true, "Parameters": true, "Priority": true, "Query": true, "Request": true,
	"Response": true, "Result": true, "Role": true, "Schema": true, "Scope": true, "Settings": true,
	"Sort": true, "Source": true, "State": true, "Status": true, "Style": true, "Target": true,
	"Text": true, "Type": true, "Unit": true, "Units": true, "Value": true, "Visibility": true,
}

// Namer hands out identifiers that are unique within one scope, for names
// with no origin of their own, such as union branches named after their
// kinds. A name that is taken gets the smallest numeric suffix from 2 up
// that is free, so the same inputs in the same order always get the same
// names.
type Namer struct {
	taken map[string]bool
}

// NewNamer returns a Namer with reserved names already taken.
func NewNamer(reserved ...string) *Namer {
	n := &Namer{taken: make(map[string]bool, len(reserved))}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

// Take returns name, or name with a numeric suffix when name is taken, and
// marks the result taken.
func (n *Namer) Take(name string) string {
	if !n.taken[name] {
		n.taken[name] = true
		return name
	}
	for i := 2; ; i++ {
		c := name + strconv.Itoa(i)
		if !n.taken[c] {
			n.taken[c] = true
			return c
		}
	}
}

// Taken reports whether name is taken.
func (n *Namer) Taken(name string) bool { return n.taken[name] }

// A scope hands out identifiers that are unique within it without letting
// the order of the claims decide: every claim is collected first, then
// resolve gives each identifier wanted by several claims to the one spelled
// most like it, and a suffix derived from its own origin to each of the
// others. So a name only changes when a claim with a closer spelling
// arrives: adding a tool, a property or an enum value never renames another
// that keeps its place in the ranking.
//
// The ranking is: the original spelled exactly as the identifier
// ("HassTurnOn", a property "Mode", an enum value "Y"); then one that differs
// only in letter case ("listEvents", "y"); then the rest; ties go to the
// origin that sorts first. The suffix is "_" and the first four hex digits
// of the FNV-1a hash of the origin ("ListEvents_3fa2"), eight when four are
// taken, then a number in the rare case that is taken too.
type scope struct {
	reserved map[string]bool
	claims   []*claim
}

// claim asks for the identifier base on behalf of origin, which is unique
// in its scope and what the suffix is derived from; rank orders claims of
// the same base (lower wins), then tier (lower wins), then weight (higher
// wins); set receives the identifier.
type claim struct {
	base, origin       string
	rank, tier, weight int
	set                func(string)
}

func newScope(reserved ...string) *scope {
	s := &scope{reserved: map[string]bool{}}
	for _, r := range reserved {
		s.reserved[r] = true
	}
	return s
}

// reserve takes name, which no claim then gets.
func (s *scope) reserve(name string) { s.reserved[name] = true }

// claim records a claim; resolve answers it.
func (s *scope) claim(base, origin string, rank int, set func(string)) {
	s.weighedClaim(base, origin, rank, 0, 0, set)
}

// weighedClaim records a claim whose tier, then weight, break ties of rank.
func (s *scope) weighedClaim(base, origin string, rank, tier, weight int, set func(string)) {
	s.claims = append(s.claims, &claim{base: base, origin: origin, rank: rank, tier: tier, weight: weight, set: set})
}

// resolve assigns every claim its identifier and reserves it.
func (s *scope) resolve() {
	cs := slices.Clone(s.claims)
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.base != b.base {
			return a.base < b.base
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.tier != b.tier {
			return a.tier < b.tier
		}
		if a.weight != b.weight {
			return a.weight > b.weight
		}
		return a.origin < b.origin
	})
	var losers []*claim
	for i, c := range cs {
		if s.reserved[c.base] || (i > 0 && cs[i-1].base == c.base) {
			losers = append(losers, c)
			continue
		}
		s.reserved[c.base] = true
		c.set(c.base)
	}
	for _, c := range losers {
		h := fmt.Sprintf("%08x", fnv32(c.origin))
		name := c.base + "_" + h[:4]
		if s.reserved[name] {
			name = c.base + "_" + h
		}
		for i := 2; s.reserved[name]; i++ {
			name = c.base + "_" + h + "_" + strconv.Itoa(i)
		}
		s.reserved[name] = true
		c.set(name)
	}
	s.claims = nil
}

// maxOrigin bounds the origin of a type that the origins of its enum
// values repeat: one origin of a megabyte (a property's name) made a
// gigabyte for 1,000 values.
const maxOrigin = 512

// boundOrigin returns origin, or, when it is longer than maxOrigin, its
// start and the SHA-256 of the whole, which is as unique and sorts as
// steadily.
func boundOrigin(origin string) string {
	if len(origin) <= maxOrigin {
		return origin
	}
	sum := sha256.Sum256([]byte(origin))
	return origin[:maxOrigin-65] + "#" + hex.EncodeToString(sum[:])
}

// fnv32 is the 32-bit FNV-1a hash of s.
func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// spellingRank ranks how far the identifier ident is from the original
// spelling it was made from: 0 when they are the same, 1 when they differ
// only in letter case, 2 otherwise.
func spellingRank(original, ident string) int {
	switch {
	case original == ident:
		return 0
	case strings.EqualFold(original, ident):
		return 1
	}
	return 2
}
