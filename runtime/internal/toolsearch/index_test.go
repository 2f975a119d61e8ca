package toolsearch

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"send-mail", []string{"send", "mail", "sendmail"}},
		{"list_calendar.events:v2", []string{"list", "calendar", "event", "v2"}},
		{"OneNote page", []string{"one", "note", "onenot", "page"}},
		{"createDraftEmail", []string{"creat", "draft", "email", "createdraft", "draftemail"}},
		{"HTTPServerName", []string{"http", "server", "name", "httpserver", "servernam"}},
		{"to-do list", []string{"todo", "list"}},
		{"add attachments", []string{"add", "attach"}},
		{"Turn off the kitchen lights", []string{"turn", "off", "kitchen", "light"}},
		{"sending scheduled meetings", []string{"send", "schedul", "meet"}},
		{"entries boxes addresses status", []string{"entry", "box", "address", "status"}},
		{"running settings", []string{"run", "set"}},
		{"créer des événements", []string{"créer", "des", "événements"}},
		{"", nil},
	} {
		if got := tokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestQueryTerms checks that a compound the index knows counts as one term,
// and that related words are added at their lower weight.
func TestQueryTerms(t *testing.T) {
	ix := New([]runtime.Tool{tool("create-onenote-page", "", ""), tool("list-todo-tasks", "", "")})
	got := ix.queryTerms("show my OneNote to-do pages")
	want := []queryTerm{{"show", 1}, {"list", relatedWeight}, {"get", relatedWeight}, {"onenot", 1}, {"todo", 1}, {"page", 1}}
	if !slices.Equal(got, want) {
		t.Errorf("queryTerms = %v, want %v", got, want)
	}
}

// TestTokensBounded checks that a huge word costs one bounded token.
func TestTokensBounded(t *testing.T) {
	got := tokens(strings.Repeat("é", 1000))
	if len(got) != 1 || len(got[0]) > maxTokenBytes {
		t.Fatalf("tokens of a 2000-byte word = %d tokens, the first %d bytes", len(got), len(got[0]))
	}
}

func tool(name, desc, schema string) runtime.Tool {
	return runtime.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
}

func TestSearchRanks(t *testing.T) {
	tools := []runtime.Tool{
		tool("list-mail-messages", "List the messages in the signed-in user's mailbox.", `{"type":"object","properties":{"top":{"type":"integer"}}}`),
		tool("send-mail", "Send the message specified in the request body.", `{"type":"object","properties":{"body":{"type":"object","properties":{"toRecipients":{"type":"array"}}}}}`),
		tool("list-calendar-events", "List the events of the user's calendar.", `{"type":"object"}`),
		tool("HassTurnOff", "Turns off/closes a device or entity", `{"type":"object","properties":{"name":{"type":"string"},"area":{"type":"string"}}}`),
		tool("HassTurnOn", "Turns on/opens a device or entity", `{"type":"object","properties":{"name":{"type":"string"},"area":{"type":"string"}}}`),
	}
	ix := New(tools)
	if ix.Len() != 5 {
		t.Fatalf("Len = %d", ix.Len())
	}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"send an email message", "send-mail"},
		{"my calendar events", "list-calendar-events"},
		{"turn off the kitchen lights", "HassTurnOff"},
		{"open the garage door", "HassTurnOn"},
		{"recipients", "send-mail"}, // a nested parameter name
	} {
		hits := ix.Search(c.query, 1)
		if len(hits) != 1 || tools[hits[0]].Name != c.want {
			t.Errorf("Search(%q) = %v, want %s first", c.query, hits, c.want)
		}
	}
	if hits := ix.Search("the of my", 5); len(hits) != 0 {
		t.Errorf("a query of stop words found %v", hits)
	}
	if hits := ix.Search("zebra", 5); len(hits) != 0 {
		t.Errorf("a query of an unknown word found %v", hits)
	}
	if hits := ix.Search("list", 0); hits != nil {
		t.Errorf("n = 0 found %v", hits)
	}
}

// TestSearchTiesByName checks that equal scores are ordered by name, so
// that results are the same on every run.
func TestSearchTiesByName(t *testing.T) {
	tools := []runtime.Tool{tool("b-thing", "", ""), tool("c-thing", "", ""), tool("a-thing", "", "")}
	ix := New(tools)
	for range 5 {
		hits := ix.Search("thing", 2)
		if len(hits) != 2 || hits[0] != 2 || hits[1] != 0 {
			t.Fatalf("Search = %v, want [2 0]", hits)
		}
	}
}

// TestSearchBadSchema checks that a schema that does not parse adds no
// parameter names and breaks nothing.
func TestSearchBadSchema(t *testing.T) {
	ix := New([]runtime.Tool{tool("x", "frobnicate", `{"properties":`), tool("y", "", `[1]`)})
	if hits := ix.Search("frobnicate", 5); len(hits) != 1 || hits[0] != 0 {
		t.Fatalf("Search = %v", hits)
	}
	if hits := New(nil).Search("x", 5); hits != nil {
		t.Fatalf("an empty index found %v", hits)
	}
}

// TestSearchMatchesEitherUnicodeForm checks that a word written composed
// ("é") and decomposed ("e" and a combining accent), or in compatibility
// forms (full-width letters, ligatures), is one term: a query finds the
// tool whichever form either of them uses.
func TestSearchMatchesEitherUnicodeForm(t *testing.T) {
	tools := []runtime.Tool{
		tool("creer", "Crée un événement dans le calendrier.", ""),  // composed
		tool("annuler", "Annule un e\u0301ve\u0301nement.", ""),     // decomposed
		tool("grab", "Ｆｅｔｃｈ the ﬁle contents from the server.", ""), // full-width, ligature
	}
	ix := New(tools)
	for _, c := range []struct {
		query string
		want  []int
	}{
		{"événement", []int{0, 1}},
		{"e\u0301ve\u0301nement", []int{0, 1}},
		{"ÉVÉNEMENT", []int{0, 1}},
		{"fetch file", []int{2}},
	} {
		got := ix.Search(c.query, 5)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("Search(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}

// TestNewBoundsWhatItIndexes checks that a hostile server's huge fields,
// every word a new one, cost a bounded index: the text indexed of each
// field stops at 16 KiB, where the longest description of the corpus
// servers is 5 KB.
func TestNewBoundsWhatItIndexes(t *testing.T) {
	const bound = 16 << 10 // terms a field may add: no more than its bytes
	var words []string
	for i := range 100_000 {
		words = append(words, "w"+strconv.Itoa(i))
	}
	huge := strings.Join(words, " ") // 0.7 MB of distinct words
	props := make([]string, 20_000)
	for i := range props {
		props[i] = strconv.Quote("p"+strconv.Itoa(i)) + ":{}"
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	tools := make([]runtime.Tool, 8)
	for i := range tools {
		tools[i] = runtime.Tool{Name: "t" + strconv.Itoa(i) + huge[:50_000], Title: huge, Description: huge, InputSchema: json.RawMessage(schema)}
	}
	ix := New(tools)
	for i := range tools {
		for f := range numFields {
			if n := ix.lengths[i][f]; n > bound {
				t.Errorf("tool %d: field %d indexed %v terms, over %d", i, f, n, bound)
			}
		}
	}
	if n := len(ix.postings); n > 4*numFields*bound {
		t.Errorf("the index holds %d terms", n)
	}
	if hits := ix.Search("w1", len(tools)); len(hits) != len(tools) {
		t.Errorf("Search(w1) = %v, want every tool", hits)
	}
}

// TestSearchFindsWordsOfUnspacedScripts checks that a description in
// Chinese or Japanese, which puts no space between words, is searchable by
// a word of it: each ideograph or kana is a part of the run, and pairs of
// them are terms as the parts of "OneNote" are.
func TestSearchFindsWordsOfUnspacedScripts(t *testing.T) {
	tools := []runtime.Tool{
		tool("create-event", "日程を作成する", ""),
		tool("delete-event", "予定を削除します", ""),
		tool("send-mail", "发送电子邮件给联系人", ""),
	}
	ix := New(tools)
	for _, c := range []struct {
		query string
		want  string
	}{
		{"作成", "create-event"},
		{"予定 削除", "delete-event"},
		{"电子邮件", "send-mail"},
	} {
		hits := ix.Search(c.query, 5)
		if len(hits) == 0 || tools[hits[0]].Name != c.want {
			t.Errorf("Search(%q) = %v, want %s first", c.query, hits, c.want)
		}
	}
}
