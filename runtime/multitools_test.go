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
