package runtime

import (
	"fmt"
	"testing"
)

func TestCombineTools(t *testing.T) {
	got := CombineTools(
		ServerTools{Server: "a", Tools: []Tool{{Name: "echo"}, {Name: "add"}}},
		ServerTools{Server: "b", Tools: []Tool{{Name: "echo", Title: "B's echo"}, {Name: "slow"}}},
	)
	var names []string
	for _, mt := range got {
		names = append(names, mt.Server+":"+mt.Name+"→"+mt.Exposed)
	}
	if fmt.Sprint(names) != "[a:echo→a__echo a:add→add b:echo→b__echo b:slow→slow]" {
		t.Errorf("combined %v", names)
	}
	exposed := ExposedTools(got)
	if exposed[2].Name != "b__echo" || exposed[2].Title != "B's echo" || exposed[1].Name != "add" {
		t.Errorf("exposed %+v", exposed)
	}
	if got[2].Tool.Name != "echo" {
		t.Errorf("ExposedTools changed the MultiTool: %+v", got[2])
	}
}

// TestCombineToolsNamesNeverClash: a prefixed name that is another tool's
// own name ("a__x" on server c) prefixes that tool too, names that only look
// prefixed or suffixed ("x_2", "a_x") keep theirs, and the names do not
// depend on the order of the servers.
func TestCombineToolsNamesNeverClash(t *testing.T) {
	servers := []ServerTools{
		{Server: "a", Tools: []Tool{{Name: "x"}, {Name: "x_2"}}},
		{Server: "b", Tools: []Tool{{Name: "x"}, {Name: "a_x"}}},
		{Server: "c", Tools: []Tool{{Name: "a__x"}, {Name: "x_2_"}}},
	}
	want := map[string]string{"a:x": "a__x", "a:x_2": "x_2", "b:x": "b__x", "b:a_x": "a_x", "c:a__x": "c__a__x", "c:x_2_": "x_2_"}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		var in []ServerTools
		for _, i := range order {
			in = append(in, servers[i])
		}
		got := CombineTools(in...)
		seen := make(map[string]bool)
		for _, mt := range got {
			if w := want[mt.Server+":"+mt.Name]; mt.Exposed != w {
				t.Errorf("order %v: %s:%s exposed as %q, want %q", order, mt.Server, mt.Name, mt.Exposed, w)
			}
			if seen[mt.Exposed] {
				t.Errorf("order %v: %q exposed twice", order, mt.Exposed)
			}
			seen[mt.Exposed] = true
		}
	}
}
