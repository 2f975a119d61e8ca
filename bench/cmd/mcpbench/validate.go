package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/generated/homeassistant"
	mcprt "github.com/mcpgen/mcpgen/runtime"
)

// A validationCase is a tool's typical, valid arguments, both as the JSON a
// model would send and as the generated struct they decode into.
type validationCase struct {
	tool  string
	json  string
	typed interface{ Validate() error }
}

var validationCases = []validationCase{
	{"HassTurnOn", `{"name":"kitchen light","area":"kitchen","domain":["light"],"device_class":["outlet"]}`, new(homeassistant.HassTurnOnArgs)},
	{"HassLightSet", `{"area":"living room","domain":["light"],"color":"warm white","brightness":60}`, new(homeassistant.HassLightSetArgs)},
	{"HassSetVolumeRelative", `{"name":"TV","domain":["media_player"],"device_class":["tv"],"volume_step":"up"}`, new(homeassistant.HassSetVolumeRelativeArgs)},
}

// validationResult compares the generated Validate with JSON Schema
// validation of the same arguments, per call.
type validationResult struct {
	tool           string
	generatedNs    float64
	generatedAlloc int64
	schemaNs       float64
	schemaAlloc    int64
}

func benchValidation(cfg config) []validationResult {
	schemas := map[string][]byte{}
	for _, t := range homeassistant.MCPTools() {
		schemas[t.Name] = t.InputSchema
	}
	var out []validationResult
	for _, c := range validationCases {
		log.Printf("validation: %s", c.tool)
		if err := json.Unmarshal([]byte(c.json), c.typed); err != nil {
			log.Fatalf("validation case %s: decoding its arguments: %v", c.tool, err)
		}
		schema := mcprt.NewSchema(c.tool, schemas[c.tool])
		if err := schema.Validate([]byte(c.json)); err != nil {
			log.Fatalf("validation case %s: the schema rejects its arguments: %v", c.tool, err)
		}
		if err := c.typed.Validate(); err != nil {
			log.Fatalf("validation case %s: Validate rejects its arguments: %v", c.tool, err)
		}
		args := []byte(c.json)
		var gen, sch []testing.BenchmarkResult
		for range cfg.reps {
			gen = append(gen, testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := c.typed.Validate(); err != nil {
						b.Fatal(err)
					}
				}
			}))
			sch = append(sch, testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := schema.Validate(args); err != nil {
						b.Fatal(err)
					}
				}
			}))
		}
		g, s := medianBench(gen), medianBench(sch)
		out = append(out, validationResult{c.tool, nsPerOp(g), g.AllocsPerOp(), nsPerOp(s), s.AllocsPerOp()})
	}
	return out
}

func nsPerOp(r testing.BenchmarkResult) float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

func medianBench(rs []testing.BenchmarkResult) testing.BenchmarkResult {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b testing.BenchmarkResult) int {
		switch x, y := nsPerOp(a), nsPerOp(b); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

func printValidation(w io.Writer, vs []validationResult) {
	fmt.Fprintf(w, "\n## Validation: generated Validate() vs JSON Schema (per call, valid arguments)\n\n")
	fmt.Fprintf(w, "| tool | Validate() | allocs | runtime.Schema.Validate | allocs | speed-up |\n|---|---:|---:|---:|---:|---:|\n")
	for _, v := range vs {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %.0f× |\n", v.tool, fmtDuration(v.generatedNs), v.generatedAlloc,
			fmtDuration(v.schemaNs), v.schemaAlloc, v.schemaNs/v.generatedNs)
	}
}

func validationTargets(vs []validationResult) []targetCheck {
	if len(vs) == 0 {
		return nil
	}
	minSpeedup, maxAllocs := -1.0, int64(0)
	for _, v := range vs {
		if s := v.schemaNs / v.generatedNs; minSpeedup < 0 || s < minSpeedup {
			minSpeedup = s
		}
		maxAllocs = max(maxAllocs, v.generatedAlloc)
	}
	return []targetCheck{
		{"generated Validate() ≥ 10× faster than JSON Schema (slowest case)", fmt.Sprintf("%.0f×", minSpeedup), minSpeedup >= 10},
		{"generated Validate() allocates nothing on valid input", fmt.Sprintf("%d allocs/op", maxAllocs), maxAllocs == 0},
	}
}
