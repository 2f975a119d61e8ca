package main

import (
	"bytes"
	"fmt"
	"math"
)

// chartMetrics are the bars of the chart: each client's figure divided by
// go-sdk's, oriented so that a shorter bar is always better.
var chartMetrics = []struct {
	title  string
	value  func(*clientResult) float64
	invert bool // the figure is higher-is-better: chart go-sdk / client
}{
	{"client CPU / call", func(r *clientResult) float64 { return r.CPUNs }, false},
	{"bytes / call", func(r *clientResult) float64 { return r.Bytes }, false},
	{"echo p50", func(r *clientResult) float64 { return r.P50Ns }, false},
	{"time / call, 32-way", func(r *clientResult) float64 { return r.CallsPerSec }, true},
	{"time / MiB, 1 MiB result", func(r *clientResult) float64 { return r.MBps }, true},
}

var chartColors = map[string]string{
	clientRuntime:     "#1f77b4",
	clientRuntimeOtel: "#9467bd",
	clientGoSDK:       "#7f7f7f",
	clientMCPGo:       "#ff7f0e",
	clientFloor:       "#2ca02c",
}

// chartSVG draws, for each transport, grouped horizontal bars of every
// client's cost relative to go-sdk (go-sdk = 1), on a logarithmic axis.
func chartSVG(results map[string]*clientResult) []byte {
	const (
		width    = 760
		left     = 190
		right    = 30
		barH     = 9
		groupGap = 12
		top      = 64
	)
	lo, hi := 0.001, 10.0 // the axis, in ratios to go-sdk
	ratio := func(name, tr string, i int) (float64, bool) {
		r, ref := results[name+"/"+tr], results[clientGoSDK+"/"+tr]
		if r == nil || ref == nil {
			return 0, false
		}
		m := chartMetrics[i]
		a, b := m.value(r), m.value(ref)
		if m.invert {
			a, b = b, a
		}
		if b == 0 || a == 0 {
			return 0, false
		}
		return a / b, true
	}
	groupH := len(clientNames)*barH + groupGap
	panelH := len(chartMetrics)*groupH + 40
	height := top + len(transportNames)*panelH + 30
	x := func(v float64) float64 {
		v = math.Min(math.Max(v, lo), hi)
		return left + (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*(width-left-right)
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">MCP clients against the same go-sdk server: cost relative to go-sdk (shorter is better, log scale)</text>`+"\n", 10)
	lx := left
	for _, name := range clientNames {
		fmt.Fprintf(&b, `<rect x="%d" y="32" width="12" height="10" fill="%s"/><text x="%d" y="41">%s</text>`+"\n", lx, chartColors[name], lx+16, name)
		lx += 100
	}
	for p, tr := range transportNames {
		y0 := top + p*panelH
		fmt.Fprintf(&b, `<text x="10" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", y0+12, transportTitle(tr))
		gy := y0 + 22
		axisTop, axisBottom := gy, gy+len(chartMetrics)*groupH
		for _, tick := range []float64{0.001, 0.01, 0.1, 1, 10} {
			tx := x(tick)
			stroke := "#ddd"
			if tick == 1 {
				stroke = "#555"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", tx, axisTop, tx, axisBottom, stroke)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%g×</text>`+"\n", tx, axisBottom+12, tick)
		}
		for i, m := range chartMetrics {
			y := gy + i*groupH
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+len(clientNames)*barH/2+4, m.title)
			for j, name := range clientNames {
				v, ok := ratio(name, tr, i)
				if !ok {
					continue
				}
				by := y + j*barH
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %.3g× go-sdk</title></rect>`+"\n",
					left, by, x(v)-left, barH-1, chartColors[name], name, m.title, v)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="8" fill="#333">%.3g×</text>`+"\n", x(v)+3, by+barH-1, v)
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}
