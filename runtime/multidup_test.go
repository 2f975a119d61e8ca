package runtime

import (
	"fmt"
	"testing"
)

// TestCombineToolsServerListsANameTwice checks that a server listing a tool
// twice, which the Session warns of and keeps, neither counts as a clash
// with another server (its tool keeps its own name) nor exposes the name
// twice: the first listing is kept, as the Multi routes the name to it.
func TestCombineToolsServerListsANameTwice(t *testing.T) {
	got := CombineTools(
		ServerTools{Server: "a", Tools: []Tool{{Name: "x", Title: "first"}, {Name: "y"}, {Name: "x", Title: "second"}}},
		ServerTools{Server: "b", Tools: []Tool{{Name: "z"}}},
	)
	var names []string
	for _, mt := range got {
		names = append(names, mt.Server+":"+mt.Name+"→"+mt.Exposed)
	}
	if fmt.Sprint(names) != "[a:x→x a:y→y b:z→z]" {
		t.Errorf("combined %v, want [a:x→x a:y→y b:z→z]", names)
	}
	if len(got) > 0 && got[0].Title != "first" {
		t.Errorf("kept %q, want the first listing", got[0].Title)
	}
}
