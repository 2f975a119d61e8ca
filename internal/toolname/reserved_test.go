package toolname

import (
	"strings"
	"testing"
)

// TestAssignAvoidsReserved checks that a rewritten name never takes a
// reserved one (the search function's), while a tool that has it as its
// own name keeps it.
func TestAssignAvoidsReserved(t *testing.T) {
	for _, c := range []struct {
		rules Rules
		names []string
	}{
		{OpenAI, []string{"search.tools", "tool.search"}},
		{Anthropic, []string{"search tools", "tool.search.tool.bm25"}},
	} {
		got, err := Assign(c.names, c.rules)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range got {
			if n == SearchFunction || n == "tool_search" || n == "tool_search_tool_bm25" || !strings.HasSuffix(n, "_"+shortHash(c.names[i])) {
				t.Errorf("%q → %q", c.names[i], n)
			}
		}
	}
	if got, _ := Assign([]string{"search_tools"}, OpenAI); got[0] != "search_tools" {
		t.Errorf("search_tools → %q, want it kept", got[0])
	}
}
