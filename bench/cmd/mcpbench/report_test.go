package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// sampleResults gives every client the same figures over both transports,
// except that fn may change them.
func sampleResults(fn func(name, tr string, r *clientResult)) map[string]*clientResult {
	out := map[string]*clientResult{}
	for _, tr := range transportNames {
		for _, name := range clientNames {
			r := &clientResult{Client: name, Transport: tr, ConnectNs: 1e6, P50Ns: 1e5, P99Ns: 1e6,
				CPUNs: 3e4, Allocs: 10, Bytes: 1000, CallsPerSec: 5000, MBps: 100, BigCPUNs: 1e7}
			if tr == transportHTTP && legacyClients[name] {
				r.ConnectLegacyNs = 2e6
			}
			if fn != nil {
				fn(name, tr, r)
			}
			out[name+"/"+tr] = r
		}
	}
	return out
}

func TestTargets(t *testing.T) {
	tests := []struct {
		name   string
		change func(name, tr string, r *clientResult)
		target string
		met    bool
	}{
		{"cpu within 1.25x of the floor", func(name, tr string, r *clientResult) {
			if name == clientRuntime {
				r.CPUNs = 3.6e4
			}
		}, "stdio client CPU/call ≤ 1.25× floor", true},
		{"cpu beyond 1.25x of the floor", func(name, tr string, r *clientResult) {
			if name == clientRuntime {
				r.CPUNs = 4e4
			}
		}, "stdio client CPU/call ≤ 1.25× floor", false},
		{"cpu equal to go-sdk's", nil, "stdio client CPU/call ≤ 0.5× go-sdk", false},
		{"cpu half of go-sdk's", func(name, tr string, r *clientResult) {
			if name == clientGoSDK {
				r.CPUNs = 6e4
			}
		}, "stdio client CPU/call ≤ 0.5× go-sdk", true},
		{"cpu equal to mcp-go's", nil, "stdio client CPU/call < mcp-go (ratio < 1)", false},
		{"bytes under 4 KB", nil, "stdio bytes/call < 4 KB", true},
		{"bytes over 4 KB", func(name, tr string, r *clientResult) { r.Bytes = 5000 }, "stdio bytes/call < 4 KB", false},
		{"throughput below go-sdk over HTTP", func(name, tr string, r *clientResult) {
			if name == clientRuntime && tr == transportHTTP {
				r.CallsPerSec = 4000
			}
		}, "32-way throughput ≥ go-sdk (HTTP)", false},
		{"MB/s at 0.9x the floor", func(name, tr string, r *clientResult) {
			if name == clientRuntime {
				r.MBps = 90
			}
		}, "1 MiB result MB/s ≥ 1.0× floor (stdio)", false},
		{"MB/s equal to the floor's", nil, "1 MiB result MB/s ≥ 1.0× floor (HTTP)", true},
		{"HTTP bytes above the floor's", func(name, tr string, r *clientResult) {
			if name == clientRuntime && tr == transportHTTP {
				r.Bytes = 1001
			}
		}, "HTTP bytes/call ≤ 1.0× floor (2026-07-28)", false},
		{"HTTP connect+list equal to the floor's", nil, "HTTP connect+list ≤ 1.0× floor (2026-07-28)", true},
		{"HTTP legacy connect+list above the floor's", func(name, tr string, r *clientResult) {
			if name == clientRuntime && tr == transportHTTP {
				r.ConnectLegacyNs = 2.1e6
			}
		}, "HTTP connect+list ≤ 1.0× floor (2025-11-25)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := report{clients: sampleResults(tt.change)}
			var found bool
			for _, c := range rep.targets() {
				if c.name == tt.target {
					found = true
					if c.met != tt.met {
						t.Errorf("%s: met = %v (measured %s), want %v", c.name, c.met, c.measured, tt.met)
					}
				}
			}
			if !found {
				t.Fatalf("no target named %q", tt.target)
			}
		})
	}
}

func TestScaleTargets(t *testing.T) {
	linear := []scaleResult{
		{name: "synthetic 100", tools: 100, genNs: 0.3e8, compileOK: true},
		{name: "synthetic 2000", tools: 2000, genNs: 0.45e9, maxRSS: 140 << 20, compileOK: true},
	}
	super := []scaleResult{
		{name: "synthetic 100", tools: 100, genNs: 1e8, compileOK: true},
		{name: "synthetic 2000", tools: 2000, genNs: 3e9, maxRSS: 160 << 20, compileOK: false, compileMsg: "boom"},
	}
	verdicts := func(rs []scaleResult) []bool {
		var v []bool
		for _, c := range scaleTargets(rs) {
			v = append(v, c.met)
		}
		return v
	}
	if got := verdicts(linear); len(got) != 4 || slices.Contains(got, false) {
		t.Errorf("linear growth under 0.5 s and 150 MiB: verdicts %v, want all met", got)
	}
	if got := verdicts(super); len(got) != 4 || slices.Contains(got, true) {
		t.Errorf("superlinear growth over 0.5 s and 150 MiB that fails to compile: verdicts %v, want all missed", got)
	}
}

// TestRealSnapshotTargets checks the code-size, compile-time and
// generation-time targets of the package generated from the largest real
// snapshot, and that the compile figure quotes the runtime package's.
func TestRealSnapshotTargets(t *testing.T) {
	for _, tc := range []struct {
		r               scaleResult
		lines, fit, gen bool
	}{
		{scaleResult{name: "ms365", tools: 344, lines: 344 * 200, compileNs: 1.5e9, refCompileNs: 1e9, genNs: 0.4e9, compileOK: true, real: true}, true, true, true},
		{scaleResult{name: "ms365", tools: 344, lines: 344*200 + 1, compileNs: 1.6e9, genNs: 0.5e9, compileOK: true, real: true}, false, false, false},
		{scaleResult{name: "ms365", tools: 344, lines: 100, compileNs: 1e9, compileOK: false, real: true}, true, false, true},
	} {
		var got []targetCheck
		for _, c := range scaleTargets([]scaleResult{tc.r}) {
			if strings.HasPrefix(c.name, "ms365: ") {
				got = append(got, c)
			}
		}
		if len(got) != 3 || got[0].met != tc.lines || got[1].met != tc.fit || got[2].met != tc.gen {
			t.Errorf("%d lines, %v compiling in %s, generated in %s: got %+v, want lines %v, compile %v, generation %v",
				tc.r.lines, tc.r.compileOK, fmtDuration(tc.r.compileNs), fmtDuration(tc.r.genNs), got, tc.lines, tc.fit, tc.gen)
		}
		if ref := tc.r.refCompileNs > 0; len(got) > 1 && ref != strings.Contains(got[1].measured, "runtime package") {
			t.Errorf("compile figure %q: want the runtime package's quoted: %v", got[1].measured, ref)
		}
	}
}

// TestChartSVG checks that the chart is well-formed XML with one bar per
// client, metric and transport.
func TestChartSVG(t *testing.T) {
	data := chartSVG(sampleResults(nil))
	dec := xml.NewDecoder(bytes.NewReader(data))
	bars := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "title" {
			bars++
		}
	}
	if want := len(transportNames) * len(chartMetrics) * len(clientNames); bars != want {
		t.Errorf("the chart has %d bars, want %d", bars, want)
	}
	if !strings.HasPrefix(string(data), "<svg ") {
		t.Errorf("the chart does not start with an svg element")
	}
}

func TestIdleAndFirstTargets(t *testing.T) {
	idle := []*idleResult{
		{Client: clientRuntime, Transport: idleStdio, HeapPer: 6000, Goroutines: 2},
		{Client: clientGoSDK, Transport: idleStdio, HeapPer: 7000, Goroutines: 2},
		{Client: clientMCPGo, Transport: idleStdio, HeapPer: 40000, Goroutines: 2},
		{Client: clientRuntime, Transport: idleStateless, HeapPer: 9000, Goroutines: 1},
		{Client: clientGoSDK, Transport: idleStateless, HeapPer: 17000, Goroutines: 1},
		{Client: clientMCPGo, Transport: idleStateless, HeapPer: 8000, Goroutines: 0},
		{Client: clientRuntime + " ×10000", Transport: idleStateless, N: 10000, HeapTotal: 100 << 20},
	}
	got := map[string]bool{}
	for _, tc := range idleTargets(idle) {
		got[tc.name] = tc.met
	}
	want := map[string]bool{
		"idle stdio heap/session ≤ the lighter peer":          true,
		"idle stdio goroutines/session ≤ 2":                   true,
		"idle http-stateless heap/session ≤ the lighter peer": false, // 9000 > mcp-go's 8000
		"idle http-stateless goroutines/session ≤ 1":          true,
		"10000 idle stateless HTTP sessions < 150 MiB heap":   true,
	}
	for name, met := range want {
		if m, ok := got[name]; !ok || m != met {
			t.Errorf("%s: met=%v (present %v); want met=%v", name, m, ok, met)
		}
	}

	first := []*firstResult{
		{Client: clientRuntime, Transport: idleStateless, Ns: 12},
		{Client: clientRuntime + modernSuffix, Transport: idleStateless, Ns: 5},
		{Client: clientRuntime + legacySuffix, Transport: idleStateless, Ns: 11},
		{Client: clientFloor, Transport: idleStateless, Ns: 6},
		{Client: clientFloor + legacySuffix, Transport: idleStateless, Ns: 10},
	}
	ts := firstTargets(first)
	if len(ts) != 2 || !ts[0].met || ts[1].met {
		t.Errorf("first-connect targets = %+v; want the pinned rows only, 2026-07-28 met and 2025-11-25 missed", ts)
	}

	// Over stdio, mcpgen in the 2026-07-28 era probes first, and is
	// compared with the floor that probes too.
	stdio := []*firstResult{
		{Client: clientRuntime + modernSuffix, Transport: idleStdio, Ns: 21},
		{Client: clientRuntime + legacySuffix, Transport: idleStdio, Ns: 23},
		{Client: clientFloor, Transport: idleStdio, Ns: 20},
		{Client: clientFloor + probeSuffix, Transport: idleStdio, Ns: 22},
		{Client: clientFloor + legacySuffix, Transport: idleStdio, Ns: 22},
	}
	ts = firstTargets(stdio)
	if len(ts) != 2 || !ts[0].met || !strings.Contains(ts[0].name, clientFloor+probeSuffix) || ts[1].met || !strings.Contains(ts[1].name, clientFloor+legacySuffix) {
		t.Errorf("stdio first-connect targets = %+v; want 2026-07-28 met against the floor (probe), 2025-11-25 missed against the floor (2025-11-25)", ts)
	}
	var b strings.Builder
	printFirst(&b, stdio, nil)
	if !strings.Contains(b.String(), "| stdio | floor (probe) | 22 ns | 1.10× | – | floor |") {
		t.Errorf("the floor (probe) row is not compared with the floor:\n%s", b.String())
	}
}

// TestSkipRefusesUnknownParts checks that -skip names an unknown part
// instead of ignoring it, which ran the part a typo meant to skip.
func TestSkipRefusesUnknownParts(t *testing.T) {
	err := benchMain([]string{"-skip", "clients,frist"})
	if err == nil || !strings.Contains(err.Error(), `-skip: unknown name "frist"`) {
		t.Fatalf("benchMain -skip clients,frist = %v, want an error naming frist", err)
	}
}

// TestPairedRatio checks the median of the turns' ratios and its interval
// on ratios whose order statistics are known: 101 turns whose ratios are
// 0.50, 0.51, …, 1.50, shuffled, so that the interval must come from the
// sorted ratios, not from the turns' order.
func TestPairedRatio(t *testing.T) {
	const n = 101
	a, b := make([]float64, n), make([]float64, n)
	for k := range n {
		// Turn k gets the ratio of rank (37k mod 101), which visits every
		// rank once since 37 and 101 are coprime.
		rank := 37 * k % n
		b[k] = 2e6 + float64(k)
		a[k] = b[k] * (0.5 + float64(rank)/100)
	}
	m, lo, hi, ok := pairedRatio(a, b)
	if !ok {
		t.Fatal("pairedRatio refused 101 turns")
	}
	// The median is rank 50 (1.00); ranks 39 and 61, eleven either side,
	// bound its 95% interval: 101/2 ∓ 0.98·√101 is 40.65 and 60.35.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"median", m, 1.00}, {"low", lo, 0.89}, {"high", hi, 1.11}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.4f, want %.2f", c.name, c.got, c.want)
		}
	}
	if _, _, _, ok := pairedRatio(a[:19], b[:19]); ok {
		t.Error("pairedRatio gave an interval for 19 turns, too few for its approximation")
	}
	b[3] = 0
	if _, _, _, ok := pairedRatio(a, b); ok {
		t.Error("pairedRatio gave a ratio for a turn of the floor that took no time")
	}
}
