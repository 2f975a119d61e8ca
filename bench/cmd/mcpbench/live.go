package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"os/exec"
	"strconv"
	"strings"
)

// maxLiveCPUNs is the target for the CPU the Gemini Live loop adds to one
// tool call, from the toolCall received to the toolResponse sent.
const maxLiveCPUNs = 50e3

// liveResult is what the Live loop adds to a tool call, per call: the
// medians of BenchmarkLiveToolCall (runtime/gemini) over the repetitions.
type liveResult struct {
	ns, cpuNs float64
	allocs    float64
}

// benchLive runs BenchmarkLiveToolCall in the checkout at cfg.root, once
// per repetition, and keeps the medians.
func benchLive(cfg config) (*liveResult, error) {
	log.Printf("live: BenchmarkLiveToolCall")
	n := "20000x"
	if cfg.quick {
		n = "500x"
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkLiveToolCall$", "-benchtime", n,
		"-count", strconv.Itoa(cfg.reps), "./runtime/gemini")
	cmd.Dir = cfg.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("running BenchmarkLiveToolCall: %v\n%s", err, out)
	}
	return parseLiveBench(bytes.NewReader(out))
}

// parseLiveBench reads the lines of go test -bench output for
// BenchmarkLiveToolCall and returns the medians of ns/op, cpu-ns/op and
// allocs/op.
func parseLiveBench(r io.Reader) (*liveResult, error) {
	var ns, cpu, allocs []float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkLiveToolCall") {
			continue
		}
		// name N value unit value unit ...
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("BenchmarkLiveToolCall: reading %q: %v", sc.Text(), err)
			}
			switch f[i+1] {
			case "ns/op":
				ns = append(ns, v)
			case "cpu-ns/op":
				cpu = append(cpu, v)
			case "allocs/op":
				allocs = append(allocs, v)
			}
		}
	}
	if len(ns) == 0 || len(cpu) != len(ns) || len(allocs) != len(ns) {
		return nil, fmt.Errorf("BenchmarkLiveToolCall: no complete result in the output of go test")
	}
	return &liveResult{ns: medianFloat(ns), cpuNs: medianFloat(cpu), allocs: medianFloat(allocs)}, nil
}

func printLive(w io.Writer, l *liveResult) {
	fmt.Fprintf(w, "\n## Gemini Live: what the tool loop adds to a call (in-memory session and server)\n\n")
	fmt.Fprintf(w, "| toolCall → toolResponse | CPU | allocs |\n|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %s | %s | %.0f |\n", fmtDuration(l.ns), fmtDuration(l.cpuNs), l.allocs)
}

func liveTargets(l *liveResult) []targetCheck {
	if l == nil {
		return nil
	}
	return []targetCheck{{"Gemini Live loop CPU per tool call < 50 µs", fmtDuration(l.cpuNs), l.cpuNs < maxLiveCPUNs}}
}
