package toolname

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

var dashRules = Rules{
	MaxLen: 16,
	First:  func(c byte) bool { return IsLetter(c) || IsDigit(c) || c == '_' || c == '-' },
	Rest:   func(c byte) bool { return IsLetter(c) || IsDigit(c) || c == '_' || c == '-' },
	Prefix: "_",
}

func TestAssign(t *testing.T) {
	names := []string{"light.turn_on", "light_turn_on", "ok-name", "x y", "x_y", "a-very-long-tool-name-indeed", "ünï"}
	got, err := Assign(names, dashRules)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"light_tur_", "light_turn_on", "ok-name", "x_y_", "x_y", "a-very-lo_", "_n_"}
	for i := range names {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%q → %q, want prefix %q", names[i], got[i], want[i])
		}
		if !dashRules.Valid(got[i]) {
			t.Errorf("%q → %q, which the rules reject", names[i], got[i])
		}
	}
	// Hashed names depend only on the MCP name.
	again, _ := Assign([]string{"x_y", "x y"}, dashRules)
	if again[1] != got[3] {
		t.Errorf("x y → %q alone, %q in the full list", again[1], got[3])
	}
	if _, err := Assign([]string{"a", ""}, dashRules); err == nil || err.Error() != "tool 1 has an empty name" {
		t.Errorf("empty name: %v", err)
	}
	if _, err := Assign([]string{"a", "a"}, dashRules); err == nil || err.Error() != `tool "a" is listed twice` {
		t.Errorf("duplicate: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		tool runtime.Tool
		want string
	}{
		{runtime.Tool{Name: "x", Description: "  Does x.  "}, "Does x."},
		{runtime.Tool{Name: "x", Title: "Do X"}, "Do X"},
		{runtime.Tool{Name: "describe_doorbell"}, "Describe doorbell."},
		{runtime.Tool{Name: "GetLiveContext"}, "Get live context."},
		{runtime.Tool{Name: "getHTTPStatus"}, "Get HTTP status."},
		{runtime.Tool{Name: "list-events"}, "List events."},
		{runtime.Tool{Name: "--"}, "Runs the tool."},
	}
	for _, c := range cases {
		if got := Describe(c.tool); got != c.want {
			t.Errorf("Describe(%q) = %q, want %q", c.tool.Name, got, c.want)
		}
	}
}
