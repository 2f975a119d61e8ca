package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// syntheticSnapshot builds n tools whose schemas mix the common constructs.
func syntheticSnapshot(tb testing.TB, n int) *snapshot.Snapshot {
	kinds := []string{
		`{"type":"string","minLength":1,"description":"A string."}`,
		`{"type":"integer","minimum":0,"maximum":100}`,
		`{"type":"string","enum":["a0","a1","a2","a3","a4","a5","a6","a7","a8","a9"]}`,
		`{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`,
		`{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]}`,
		`{"type":"object","additionalProperties":{"type":"number"}}`,
	}
	tools := make([]json.RawMessage, n)
	for i := range tools {
		props := ""
		for j := 0; j < 8; j++ {
			if j > 0 {
				props += ","
			}
			props += fmt.Sprintf(`"p%d":%s`, j, kinds[(i*7+j*3)%len(kinds)])
		}
		tools[i] = json.RawMessage(fmt.Sprintf(`{"name":"tool_%d","description":"Tool %d does things.","inputSchema":{"type":"object","properties":{%s},"required":["p0"]}}`, i, i, props))
	}
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := snapshot.Read("synthetic.json", data)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func BenchmarkGenerate2000Tools(b *testing.B) {
	s := syntheticSnapshot(b, 2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Config{From: s, Options: Options{Package: "big"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateMS365 generates the package of the largest real tool
// list in testdata, Microsoft 365's, with every part.
func BenchmarkGenerateMS365(b *testing.B) {
	data, err := os.ReadFile("../testdata/servers/ms365.json")
	if err != nil {
		b.Fatal(err)
	}
	s, err := snapshot.Read("ms365.json", data)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Config{From: s, Options: Options{Package: "ms365"}}); err != nil {
			b.Fatal(err)
		}
	}
}
