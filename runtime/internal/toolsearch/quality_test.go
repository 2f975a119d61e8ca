package toolsearch

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// qualityServers are the tool lists the query table names, by the name it
// gives them.
var qualityServers = map[string]string{
	"ms365":         "../../../testdata/servers/ms365.json",
	"homeassistant": "../../../testdata/homeassistant-tools-list.json",
}

// loadTools reads a tool list: a snapshot ({"tools": [...]}) or a
// tools/list response ({"result": {"tools": [...]}}).
func loadTools(t *testing.T, path string) []runtime.Tool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tools  []runtime.Tool `json:"tools"`
		Result struct {
			Tools []runtime.Tool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(v.Tools) == 0 {
		v.Tools = v.Result.Tools
	}
	if len(v.Tools) == 0 {
		t.Fatalf("%s: no tools", path)
	}
	return v.Tools
}

// query is one row of the table.
type query struct {
	line          int
	server, query string
	want          []string
}

func loadQueries(t *testing.T) []query {
	t.Helper()
	path := filepath.Join("testdata", "queries.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []query
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("%s:%d: %d columns, want 3 (server, query, expected tool)", path, n, len(cols))
		}
		out = append(out, query{line: n, server: cols[0], query: cols[1], want: strings.Split(cols[2], "|")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearchQuality runs every query of testdata/queries.tsv against the
// tools of its server and checks that an expected tool is in the top 5 for
// at least 90% of them. It logs the hit rate and each miss with what came
// first instead.
func TestSearchQuality(t *testing.T) {
	const top, minRate = 5, 0.90
	queries := loadQueries(t)
	if len(queries) < 40 {
		t.Fatalf("the table has %d queries, want at least 40", len(queries))
	}
	tools := map[string][]runtime.Tool{}
	indexes := map[string]*Index{}
	for name, path := range qualityServers {
		tools[name] = loadTools(t, path)
		indexes[name] = New(tools[name])
	}
	hits := 0
	perServer := map[string][2]int{}
	for _, q := range queries {
		ix, ok := indexes[q.server]
		if !ok {
			t.Fatalf("queries.tsv:%d: unknown server %q", q.line, q.server)
		}
		byName := map[string]bool{}
		for _, tl := range tools[q.server] {
			byName[tl.Name] = true
		}
		for _, w := range q.want {
			if !byName[w] {
				t.Fatalf("queries.tsv:%d: %s has no tool %q", q.line, q.server, w)
			}
		}
		var got []string
		for _, i := range ix.Search(q.query, top) {
			got = append(got, tools[q.server][i].Name)
		}
		found := false
		for _, w := range q.want {
			for _, g := range got {
				found = found || g == w
			}
		}
		s := perServer[q.server]
		s[1]++
		if found {
			hits++
			s[0]++
		} else {
			t.Logf("miss (queries.tsv:%d) %s %q: want %s, got %s", q.line, q.server, q.query, strings.Join(q.want, " or "), strings.Join(got, ", "))
		}
		perServer[q.server] = s
	}
	rate := float64(hits) / float64(len(queries))
	for name, s := range perServer {
		t.Logf("%s: %d of %d queries find the expected tool in the top %d", name, s[0], s[1], top)
	}
	t.Logf("hit rate: %d of %d = %.1f%% in the top %d", hits, len(queries), 100*rate, top)
	if rate < minRate {
		t.Errorf("hit rate %.1f%%, want at least %.0f%%", 100*rate, 100*minRate)
	}
}
