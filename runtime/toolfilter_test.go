package runtime

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func toolNames(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// TestToolFilter checks the selection rules: include first (every tool
// when there is no include pattern), then exclude, each pattern matched
// against the whole name with path.Match.
func TestToolFilter(t *testing.T) {
	var tools []Tool
	for _, n := range []string{"HassTurnOn", "HassTurnOff", "HassCancelAllTimers", "GetLiveContext", "light.turn_on", "fs/read", "hass"} {
		tools = append(tools, Tool{Name: n})
	}
	cases := []struct {
		f    ToolFilter
		want []string
	}{
		{ToolFilter{}, toolNames(tools)},
		{ToolFilter{Include: []string{"Hass*"}}, []string{"HassTurnOn", "HassTurnOff", "HassCancelAllTimers"}},
		{ToolFilter{Include: []string{"Hass*"}, Exclude: []string{"HassCancel*"}}, []string{"HassTurnOn", "HassTurnOff"}},
		{ToolFilter{Exclude: []string{"Hass*", "*.*"}}, []string{"GetLiveContext", "fs/read", "hass"}},
		{ToolFilter{Include: []string{"GetLiveContext", "light.turn_on"}}, []string{"GetLiveContext", "light.turn_on"}},
		{ToolFilter{Include: []string{"HassTurnO?"}}, []string{"HassTurnOn"}},
		{ToolFilter{Include: []string{"HassTurnO[nf]*"}}, []string{"HassTurnOn", "HassTurnOff"}},
		// * stops at a slash, as in path.Match; names are case-sensitive.
		{ToolFilter{Include: []string{"fs*", "hass"}}, []string{"hass"}},
		{ToolFilter{Include: []string{"fs/*"}}, []string{"fs/read"}},
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			got, err := c.f.Select(tools)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(toolNames(got), c.want) {
				t.Errorf("%+v keeps %v, want %v", c.f, toolNames(got), c.want)
			}
			for _, tool := range tools {
				if c.f.Keep(tool.Name) != slices.Contains(c.want, tool.Name) {
					t.Errorf("Keep(%q) disagrees with Select", tool.Name)
				}
			}
		})
	}
}

func TestToolFilterErrors(t *testing.T) {
	tools := []Tool{{Name: "a"}, {Name: "b"}}
	_, err := ToolFilter{Include: []string{"a"}, Exclude: []string{"[b"}}.Select(tools)
	var pe *ToolPatternError
	if !errors.As(err, &pe) || pe.Kind != "exclude" || pe.Pattern != "[b" || err.Error() != `exclude pattern "[b": syntax error in pattern` {
		t.Errorf("malformed exclude pattern: %v", err)
	}
	if err := (ToolFilter{Include: []string{""}}).Check(); err == nil || !strings.Contains(err.Error(), "empty pattern") {
		t.Errorf("empty pattern: %v", err)
	}
	if _, err := (ToolFilter{Include: []string{"c*"}}).Select(tools); err == nil || !strings.Contains(err.Error(), "keeps none of the 2 tools") {
		t.Errorf("filter keeping nothing: %v", err)
	}
	got := ToolFilter{Include: []string{"a", "x*"}, Exclude: []string{"b", "y"}}.Unused([]string{"a", "b"})
	want := []ToolPattern{{"include", "x*"}, {"exclude", "y"}}
	if !slices.Equal(got, want) {
		t.Errorf("Unused = %v, want %v", got, want)
	}
}
