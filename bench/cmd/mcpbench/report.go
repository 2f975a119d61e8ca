package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strings"
)

// report gathers everything one run measured.
type report struct {
	machine    string
	clients    map[string]*clientResult // by "client/transport"
	validation []validationResult
	live       *liveResult
	scale      []scaleResult
	budget     []budgetRow
	idle       []*idleResult
	first      []*firstResult
}

// medianResult takes each figure's median over the repetitions.
func medianResult(rs []*clientResult) *clientResult {
	m := func(f func(*clientResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return &clientResult{
		Client:      rs[0].Client,
		Transport:   rs[0].Transport,
		ConnectNs:   m(func(r *clientResult) float64 { return r.ConnectNs }),
		P50Ns:       m(func(r *clientResult) float64 { return r.P50Ns }),
		P99Ns:       m(func(r *clientResult) float64 { return r.P99Ns }),
		CPUNs:       m(func(r *clientResult) float64 { return r.CPUNs }),
		SysNs:       m(func(r *clientResult) float64 { return r.SysNs }),
		Allocs:      m(func(r *clientResult) float64 { return r.Allocs }),
		Bytes:       m(func(r *clientResult) float64 { return r.Bytes }),
		CallsPerSec: m(func(r *clientResult) float64 { return r.CallsPerSec }),
		MBps:        m(func(r *clientResult) float64 { return r.MBps }),
		BigCPUNs:    m(func(r *clientResult) float64 { return r.BigCPUNs }),

		ConnectLegacyNs: m(func(r *clientResult) float64 { return r.ConnectLegacyNs }),
	}
}

// describeMachine names the CPU, the number of CPUs and the Go version.
func describeMachine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	version := goruntime.Version()
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		version = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%s, %d CPUs (nproc), %s %s/%s", model, goruntime.NumCPU(), version, goruntime.GOOS, goruntime.GOARCH)
}

// metric is one column of the client tables.
type metric struct {
	title  string
	value  func(*clientResult) float64
	format func(float64) string
	higher bool // higher is better
}

var clientMetrics = []metric{
	{"client CPU/call", func(r *clientResult) float64 { return r.CPUNs }, fmtDuration, false},
	{"allocs/call", func(r *clientResult) float64 { return r.Allocs }, func(v float64) string { return fmt.Sprintf("%.0f", v) }, false},
	{"bytes/call", func(r *clientResult) float64 { return r.Bytes }, fmtBytes, false},
	{"echo p50", func(r *clientResult) float64 { return r.P50Ns }, fmtDuration, false},
	{"echo p99", func(r *clientResult) float64 { return r.P99Ns }, fmtDuration, false},
	{"32-way calls/s", func(r *clientResult) float64 { return r.CallsPerSec }, func(v float64) string { return fmt.Sprintf("%.0f", v) }, true},
	{"1 MiB result MB/s", func(r *clientResult) float64 { return r.MBps }, func(v float64) string { return fmt.Sprintf("%.0f", v) }, true},
	{"CPU per 1 MiB result", func(r *clientResult) float64 { return r.BigCPUNs }, fmtDuration, false},
	{"connect+list", func(r *clientResult) float64 { return r.ConnectNs }, fmtDuration, false},
}

func fmtDuration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "# mcpgen benchmarks\n\nMachine: %s.\n", rep.machine)
	if len(rep.clients) > 0 {
		for _, tr := range transportNames {
			fmt.Fprintf(w, "\n## Clients over %s\n\n", transportTitle(tr))
			fmt.Fprintf(w, "Each cell: the median, then the ratio to go-sdk.\n\n")
			fmt.Fprint(w, "| client |")
			for _, m := range clientMetrics {
				fmt.Fprintf(w, " %s |", m.title)
			}
			fmt.Fprint(w, "\n|---|")
			for range clientMetrics {
				fmt.Fprint(w, "---:|")
			}
			fmt.Fprintln(w)
			ref := rep.clients[clientGoSDK+"/"+tr]
			for _, name := range clientNames {
				r := rep.clients[name+"/"+tr]
				if r == nil {
					continue
				}
				fmt.Fprintf(w, "| %s |", name)
				for _, m := range clientMetrics {
					v, refv := m.value(r), 0.0
					if ref != nil {
						refv = m.value(ref)
					}
					fmt.Fprintf(w, " %s (%s) |", m.format(v), fmtRatio(v, refv))
				}
				fmt.Fprintln(w)
			}
		}
	}
	rep.printTelemetryCost(w)
	rep.printEras(w)
	if len(rep.idle) > 0 {
		printIdle(w, rep.idle)
	}
	if len(rep.first) > 0 {
		printFirst(w, rep.first, rep.clients)
	}
	if len(rep.validation) > 0 {
		printValidation(w, rep.validation)
	}
	if rep.live != nil {
		printLive(w, rep.live)
	}
	if len(rep.scale) > 0 {
		printScale(w, rep.scale)
	}
	if len(rep.budget) > 0 {
		printBudget(w, rep.budget)
	}
	if ts := rep.targets(); len(ts) > 0 {
		fmt.Fprintf(w, "\n## Targets\n\n| target | measured | |\n|---|---|---|\n")
		for _, t := range ts {
			verdict := "met"
			if !t.met {
				verdict = "**missed**"
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", t.name, t.measured, verdict)
		}
	}
}

// printTelemetryCost prints the CPU per call runtime/otelmcp adds.
func (rep *report) printTelemetryCost(w io.Writer) {
	var lines []string
	for _, tr := range transportNames {
		rt, ot := rep.clients[clientRuntime+"/"+tr], rep.clients[clientRuntimeOtel+"/"+tr]
		if rt == nil || ot == nil {
			continue
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s |", transportTitle(tr), fmtDuration(rt.CPUNs), fmtDuration(ot.CPUNs), fmtDuration(ot.CPUNs-rt.CPUNs)))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Cost of tracing\n\nClient CPU per echo call with runtime/otelmcp installed (every call a sampled span, batched to an exporter that discards, both histograms recorded, the trace context sent in _meta).\n\n")
	fmt.Fprintf(w, "| transport | mcpgen | mcpgen+otel | added |\n|---|---:|---:|---:|\n")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// printEras prints HTTP connect + tools/list in each era, for the clients
// measured in both.
func (rep *report) printEras(w io.Writer) {
	fl := rep.clients[clientFloor+"/"+transportHTTP]
	if fl == nil || fl.ConnectLegacyNs == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Streamable HTTP connect + tools/list by era\n\n")
	fmt.Fprintf(w, "Each cell: the median, then the ratio to the floor. In the 2026-07-28 era the floor sends tools/list alone; in the 2025-11-25 era it runs the initialize handshake first.\n\n")
	fmt.Fprintf(w, "| client | 2026-07-28 | 2025-11-25 |\n|---|---:|---:|\n")
	for _, name := range clientNames {
		r := rep.clients[name+"/"+transportHTTP]
		if r == nil || r.ConnectLegacyNs == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s (%s) | %s (%s) |\n", name,
			fmtDuration(r.ConnectNs), fmtRatio(r.ConnectNs, fl.ConnectNs),
			fmtDuration(r.ConnectLegacyNs), fmtRatio(r.ConnectLegacyNs, fl.ConnectLegacyNs))
	}
}

func transportTitle(tr string) string {
	if tr == transportHTTP {
		return "Streamable HTTP (loopback)"
	}
	return "stdio"
}

func fmtRatio(v, ref float64) string {
	if ref == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v/ref)
}

// A targetCheck is one of the performance targets and how the run fared.
type targetCheck struct {
	name     string
	measured string
	met      bool
}

func (rep *report) targets() []targetCheck {
	var ts []targetCheck
	get := func(name, tr string) *clientResult { return rep.clients[name+"/"+tr] }
	ratio := func(name string, a, b float64, limit float64, atMost bool) {
		r := a / b
		met := r <= limit
		if !atMost {
			met = r >= limit
		}
		ts = append(ts, targetCheck{name, fmt.Sprintf("%.2f×", r), met})
	}
	if rt, fl, sdk, mg := get(clientRuntime, transportStdio), get(clientFloor, transportStdio), get(clientGoSDK, transportStdio), get(clientMCPGo, transportStdio); rt != nil && fl != nil && sdk != nil && mg != nil {
		ratio("stdio client CPU/call ≤ 1.25× floor", rt.CPUNs, fl.CPUNs, 1.25, true)
		ratio("stdio client CPU/call ≤ 0.5× go-sdk", rt.CPUNs, sdk.CPUNs, 0.5, true)
		ratio("stdio client CPU/call < mcp-go (ratio < 1)", rt.CPUNs, mg.CPUNs, 0.9999, true)
		ratio("stdio allocs/call ≤ 1.5× floor", rt.Allocs, fl.Allocs, 1.5, true)
		ts = append(ts, targetCheck{"stdio bytes/call < 4 KB", fmtBytes(rt.Bytes), rt.Bytes < 4096})
		ratio("32-way throughput ≥ go-sdk (stdio)", rt.CallsPerSec, sdk.CallsPerSec, 1, false)
	}
	if rt, fl, sdk := get(clientRuntime, transportHTTP), get(clientFloor, transportHTTP), get(clientGoSDK, transportHTTP); rt != nil && fl != nil && sdk != nil {
		ratio("Streamable HTTP client CPU/call ≤ 1.3× floor", rt.CPUNs, fl.CPUNs, 1.3, true)
		ratio("32-way throughput ≥ go-sdk (HTTP)", rt.CallsPerSec, sdk.CallsPerSec, 1, false)
	}
	// The transport targets need the floor alone.
	if rt, fl := get(clientRuntime, transportStdio), get(clientFloor, transportStdio); rt != nil && fl != nil {
		ratio("1 MiB result MB/s ≥ 1.0× floor (stdio)", rt.MBps, fl.MBps, 1, false)
	}
	if rt, fl := get(clientRuntime, transportHTTP), get(clientFloor, transportHTTP); rt != nil && fl != nil {
		ratio("1 MiB result MB/s ≥ 1.0× floor (HTTP)", rt.MBps, fl.MBps, 1, false)
		ratio("HTTP bytes/call ≤ 1.0× floor (2026-07-28)", rt.Bytes, fl.Bytes, 1, true)
		if rl, fll := get(clientRuntime, transportHTTPLegacy), get(clientFloor, transportHTTPLegacy); rl != nil && fll != nil {
			ratio("HTTP bytes/call ≤ 1.0× floor (2025-11-25)", rl.Bytes, fll.Bytes, 1, true)
		}
		ratio("HTTP connect+list ≤ 1.0× floor (2026-07-28)", rt.ConnectNs, fl.ConnectNs, 1, true)
		if rt.ConnectLegacyNs > 0 && fl.ConnectLegacyNs > 0 {
			ratio("HTTP connect+list ≤ 1.0× floor (2025-11-25)", rt.ConnectLegacyNs, fl.ConnectLegacyNs, 1, true)
		}
	}
	ts = append(ts, idleTargets(rep.idle)...)
	ts = append(ts, firstTargets(rep.first)...)
	ts = append(ts, scaleTargets(rep.scale)...)
	ts = append(ts, validationTargets(rep.validation)...)
	ts = append(ts, liveTargets(rep.live)...)
	ts = append(ts, budgetTargets(rep.budget)...)
	return ts
}
