package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// deferTools returns a toolset of n numbered tools plus three named ones,
// each declared under its MCP name.
func deferTools(t *testing.T, c runtime.Caller, s *runtime.ToolSearch) *Tools {
	t.Helper()
	tools := []runtime.Tool{
		{Name: "send_mail", Description: "Send an email message.", InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`)},
		{Name: "list_events", Description: "List calendar events."},
		{Name: "light_off", Description: "Turn off a light."},
	}
	for i := range 10 {
		tools = append(tools, runtime.Tool{Name: fmt.Sprintf("widget_%d", i), Description: fmt.Sprintf("Widget number %d.", i)})
	}
	names := map[string]string{}
	for _, tl := range tools {
		names[tl.Name] = tl.Name
	}
	ts := NewTools(c, tools, names)
	if err := ts.Defer(s, OwnSearch); err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestDeferDeclaresPinnedThenFound(t *testing.T) {
	ts := deferTools(t, &echoCaller{}, &runtime.ToolSearch{Pinned: []string{"list_*"}})
	if !ts.Deferred() {
		t.Fatal("not deferred")
	}
	if got := ts.Declared(); !slices.Equal(got, []string{"list_events"}) {
		t.Fatalf("Declared = %q", got)
	}
	found := ts.Search("send an email")
	if len(found) == 0 || found[0].Name != "send_mail" {
		t.Fatalf("Search = %v", found)
	}
	if got := ts.Declared(); got[0] != "list_events" || !slices.Contains(got, "send_mail") {
		t.Fatalf("Declared after the search = %q", got)
	}
	// A pinned tool is never a search result: it is declared already.
	for _, e := range ts.Search("list calendar events") {
		if e.Name == "list_events" {
			t.Fatal("a search returned a pinned tool")
		}
	}
	ts.ResetFound()
	if got := ts.Declared(); !slices.Equal(got, []string{"list_events"}) || ts.Found() != nil {
		t.Fatalf("Declared after ResetFound = %q, Found = %q", got, ts.Found())
	}
}

// TestDeferFoundBounded checks the LRU: at most MaxFound tools stay found,
// the least recently found dropped first, finding a tool again makes it the
// most recent, and the found tools keep the order they were found in.
func TestDeferFoundBounded(t *testing.T) {
	ts := deferTools(t, &echoCaller{}, &runtime.ToolSearch{MaxFound: 3, Results: 1})
	for _, q := range []string{"widget 1", "widget 2", "widget 3", "widget 1", "widget 4"} {
		ts.Search(q)
	}
	if got := ts.Found(); !slices.Equal(got, []string{"widget_1", "widget_3", "widget_4"}) {
		t.Fatalf("Found = %q", got)
	}
	if ts.MaxDeclared() != 3 {
		t.Fatalf("MaxDeclared = %d", ts.MaxDeclared())
	}
}

// TestDeferResultsAtMostMaxFound checks that one search returns no more
// tools than can stay declared, and keeps its best hit.
func TestDeferResultsAtMostMaxFound(t *testing.T) {
	ts := deferTools(t, &echoCaller{}, &runtime.ToolSearch{MaxFound: 2, Results: 10})
	found := ts.Search("widget number 3")
	if len(found) != 2 {
		t.Fatalf("Search returned %d tools", len(found))
	}
	if got := ts.Found(); !slices.Equal(got, []string{found[0].Name, found[1].Name}) {
		t.Fatalf("Found = %q, want the hits best first", got)
	}
	// A third tool found drops the second hit, found as long ago as the
	// first but ranked lower.
	e, _ := ts.Lookup("light_off")
	ts.Run(context.Background(), e, nil, nil)
	if got := ts.Found(); !slices.Equal(got, []string{found[0].Name, "light_off"}) {
		t.Fatalf("Found after one more = %q, want %s and light_off", got, found[0].Name)
	}
}

func TestDeferErrors(t *testing.T) {
	for _, c := range []struct {
		s    *runtime.ToolSearch
		want string
	}{
		{&runtime.ToolSearch{Pinned: []string{"nosuch*"}}, `pinned pattern "nosuch*" matches none of the 13 tools`},
		{&runtime.ToolSearch{Pinned: []string{"[bad"}}, `pinned pattern "[bad"`},
		{&runtime.ToolSearch{MaxFound: -1}, "MaxFound is -1"},
		{&runtime.ToolSearch{Results: -2}, "Results is -2"},
	} {
		ts := numberedTools(13)
		err := ts.Defer(c.s, OwnSearch)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Defer(%+v) = %v, want %q", c.s, err, c.want)
		}
		if ts.Deferred() {
			t.Errorf("Defer(%+v) failed and left the toolset deferred", c.s)
		}
	}
	ts := NewTools(&echoCaller{}, []runtime.Tool{{Name: SearchFunction}}, map[string]string{SearchFunction: SearchFunction})
	if err := ts.Defer(&runtime.ToolSearch{}, OwnSearch); err == nil || !strings.Contains(err.Error(), "name of the search function") {
		t.Errorf("a tool named %s: Defer = %v", SearchFunction, err)
	}
	if err := ts.Defer(nil, OwnSearch); err != nil || ts.Deferred() {
		t.Errorf("Defer(nil) = %v, deferred %v", err, ts.Deferred())
	}
}

// numberedTools returns a toolset of n tools, t0 to t(n-1).
func numberedTools(n int) *Tools {
	var tools []runtime.Tool
	names := map[string]string{}
	for i := range n {
		n := fmt.Sprintf("t%d", i)
		tools = append(tools, runtime.Tool{Name: n})
		names[n] = n
	}
	return NewTools(&echoCaller{}, tools, names)
}

// TestDeferCallOfUnfoundToolRunsAndIsFound checks that a deferred tool
// called before any search is checked and run like any other, and becomes
// found.
func TestDeferCallOfUnfoundToolRunsAndIsFound(t *testing.T) {
	c := &echoCaller{}
	ts := deferTools(t, c, &runtime.ToolSearch{Pinned: []string{"list_events"}})
	e, ok := ts.Lookup("send_mail")
	if !ok {
		t.Fatal("a deferred tool cannot be looked up")
	}
	if out := ts.Run(context.Background(), e, []byte(`{}`), nil); out.Called || !strings.Contains(out.Error, "to") {
		t.Fatalf("invalid arguments of a deferred tool: %+v", out)
	}
	if out := ts.Run(context.Background(), e, []byte(`{"to":"x"}`), nil); !out.Called || out.Error != "" {
		t.Fatalf("valid call: %+v", out)
	}
	if got := ts.Found(); !slices.Equal(got, []string{"send_mail"}) {
		t.Fatalf("Found = %q", got)
	}
	if msg := ts.Unknown("function", "nope"); !strings.Contains(msg, SearchFunction) || strings.Contains(msg, "widget_1") {
		t.Fatalf("Unknown in deferred mode = %q", msg)
	}
}

func TestHandleSearch(t *testing.T) {
	ts := deferTools(t, &echoCaller{}, &runtime.ToolSearch{Pinned: []string{"list_events"}})
	text, err := ts.HandleSearch([]byte(`{"query":"  send an email "}`))
	if err != nil {
		t.Fatal(err)
	}
	var r searchResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("result %q: %v", text, err)
	}
	if r.Query != "send an email" || len(r.Tools) == 0 || r.Tools[0].Name != "send_mail" || r.Tools[0].Description != "Send an email message." {
		t.Fatalf("result = %+v", r)
	}
	text, err = ts.HandleSearch([]byte(`{"query":"zebra"}`))
	if err != nil || !strings.Contains(text, "No tool matches") {
		t.Fatalf("no hit: %q, %v", text, err)
	}
	for _, args := range []string{``, `[]`, `null`, `{}`, `{"query":3}`, `{"query":"  "}`} {
		if _, err := ts.HandleSearch([]byte(args)); err == nil || !strings.Contains(err.Error(), "query") {
			t.Errorf("HandleSearch(%s) = %v", args, err)
		}
	}
	long := strings.Repeat("é", 2000)
	q, err := SearchQuery([]byte(`{"query":"` + long + `"}`))
	if err != nil || len(q) > maxQueryBytes || !strings.HasPrefix(long, q) {
		t.Fatalf("a long query: %d bytes, %v", len(q), err)
	}
	if got := oneLine("a\n  b "+strings.Repeat("x", 300), 20); got != "a b xxxxxxxxxxxxxxxx…" {
		t.Errorf("oneLine = %q", got)
	}
	var schema map[string]any
	if err := json.Unmarshal(SearchParameters, &schema); err != nil {
		t.Fatalf("SearchParameters: %v", err)
	}
}

// TestKeepFound checks that a toolset built from a new listing keeps what
// was found, less the tools that are gone.
func TestKeepFound(t *testing.T) {
	old := deferTools(t, &echoCaller{}, &runtime.ToolSearch{Results: 1})
	old.Search("send email")
	old.Search("widget 3")
	tools := []runtime.Tool{{Name: "widget_3"}, {Name: "other"}}
	ts := NewTools(&echoCaller{}, tools, map[string]string{"widget_3": "widget_3", "other": "other"})
	if err := ts.Defer(&runtime.ToolSearch{}, OwnSearch); err != nil {
		t.Fatal(err)
	}
	ts.KeepFound(old)
	if got := ts.Found(); !slices.Equal(got, []string{"widget_3"}) {
		t.Fatalf("Found = %q", got)
	}
}

// TestDeferConcurrent searches, calls and reads the declared tools from
// several goroutines, for the race detector.
func TestDeferConcurrent(t *testing.T) {
	ts := deferTools(t, &echoCaller{}, &runtime.ToolSearch{MaxFound: 4, Results: 2})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				ts.Search(fmt.Sprintf("widget %d", (i+j)%10))
				e, _ := ts.Lookup("light_off")
				ts.Run(context.Background(), e, nil, nil)
				if n := len(ts.Declared()); n > 4 {
					t.Errorf("%d tools declared, more than MaxFound", n)
				}
			}
		}()
	}
	wg.Wait()
}

// A server's title, like its description, reaches a search's result as one
// line of bounded length: the result is for choosing a tool, and every
// search that finds the tool puts it into the model's history.
func TestSearchResultBoundsTheTitle(t *testing.T) {
	title := "Plotter\n\n" + strings.Repeat("very long title ", 1<<14)
	ts := NewTools(&echoCaller{}, []runtime.Tool{{Name: "plotter", Title: title, Description: "Draws plots."}}, map[string]string{"plotter": "plotter"})
	if err := ts.Defer(&runtime.ToolSearch{}, OwnSearch); err != nil {
		t.Fatal(err)
	}
	text, err := ts.HandleSearch([]byte(`{"query":"plotter"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r searchResult
	if err := json.Unmarshal([]byte(text), &r); err != nil || len(r.Tools) != 1 {
		t.Fatalf("result %q: %v", text, err)
	}
	if got := r.Tools[0].Title; len(got) > maxResultTitle+len("…") || !strings.HasPrefix(got, "Plotter very long title") || strings.Contains(got, "\n") {
		t.Errorf("the result's title is %d bytes: %.80q…", len(got), got)
	}
	if len(text) > 1024 {
		t.Errorf("the result is %d bytes", len(text))
	}
}
