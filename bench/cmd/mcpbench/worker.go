package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// workload sizes one worker's measurements.
type workload struct {
	Connects   int // connect + handshake + tools/list, each on a new session (see measureConnects)
	Warmup     int // echo calls before measuring
	Sequential int // echo calls measured one after the other
	Chunks     int // parts of Sequential measured apart for CPU and allocations
	Goroutines int // concurrent callers for the throughput run
	Concurrent int // echo calls per goroutine
	BigCalls   int // calls of the big tool
	BigSize    int // bytes of text each big call returns
}

var defaultWorkload = workload{
	Connects:   25,
	Warmup:     300,
	Sequential: 3000,
	Chunks:     6,
	Goroutines: 32,
	Concurrent: 120,
	BigCalls:   15,
	BigSize:    1 << 20,
}

// clientResult is what one worker measured for one client over one
// transport. Times are in nanoseconds.
type clientResult struct {
	Client    string  `json:"client"`
	Transport string  `json:"transport"`
	ConnectNs float64 `json:"connectNs"` // connect + handshake + tools/list, from measureConnects
	// ConnectLegacyNs is connect + tools/list in the legacy era (the
	// 2025-11-25 initialize handshake), over HTTP, for the clients that
	// can be pinned to it; 0 for the others.
	ConnectLegacyNs float64 `json:"connectLegacyNs"`
	P50Ns           float64 `json:"p50Ns"`       // sequential echo latency
	P99Ns           float64 `json:"p99Ns"`       //
	CPUNs           float64 `json:"cpuNs"`       // client CPU (user+system) per sequential echo call
	SysNs           float64 `json:"sysNs"`       // the system part of CPUNs
	Allocs          float64 `json:"allocs"`      // heap allocations per sequential echo call
	Bytes           float64 `json:"bytes"`       // heap bytes per sequential echo call
	CallsPerSec     float64 `json:"callsPerSec"` // echo calls per second, Goroutines at once on one session
	MBps            float64 `json:"mbps"`        // MiB of big results per second, of the median call
	BigCPUNs        float64 `json:"bigCpuNs"`    // client CPU per big call
}

// cpuTime returns the user plus system CPU time this process has used, and
// the system part. The server is another process, so its CPU never counts.
func cpuTime() (total, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), time.Duration(ru.Stime.Nano())
}

// measureConnects times connect + tools/list on n fresh sessions of each
// of the named clients, and over HTTP in the legacy era for legacyClients
// too. The clients take turns session by session (A B C D A B C D ...),
// so that a figure of a few milliseconds compares the clients under the
// same load from the rest of the machine, which separate worker processes
// minutes apart do not see alike. Each figure is the median of its n.
func measureConnects(ctx context.Context, names []string, t target, n int) ([]*clientResult, error) {
	modern := make([][]time.Duration, len(names))
	legacy := make([][]time.Duration, len(names))
	for range n {
		for i, name := range names {
			d, err := connectAndList(ctx, func() (benchClient, error) { return connect(ctx, name, t) })
			if err != nil {
				return nil, fmt.Errorf("%s over %s: %w", name, t.transport, err)
			}
			modern[i] = append(modern[i], d)
			if t.transport != transportHTTP || !legacyClients[name] {
				continue
			}
			d, err = connectAndList(ctx, func() (benchClient, error) { return connectLegacy(ctx, name, t) })
			if err != nil {
				return nil, fmt.Errorf("%s over %s in the legacy era: %w", name, t.transport, err)
			}
			legacy[i] = append(legacy[i], d)
		}
	}
	out := make([]*clientResult, len(names))
	for i, name := range names {
		out[i] = &clientResult{Client: name, Transport: t.transport, ConnectNs: float64(median(modern[i]))}
		if len(legacy[i]) > 0 {
			out[i].ConnectLegacyNs = float64(median(legacy[i]))
		}
	}
	return out, nil
}

// runWorker measures one client against the server in t and writes the
// result as JSON to w.
func runWorker(ctx context.Context, name string, t target, wl workload, w io.Writer) error {
	res, err := measure(ctx, name, t, wl)
	if err != nil {
		return fmt.Errorf("%s over %s: %w", name, t.transport, err)
	}
	return json.NewEncoder(w).Encode(res)
}

func measure(ctx context.Context, name string, t target, wl workload) (*clientResult, error) {
	res := &clientResult{Client: name, Transport: t.transport}

	dial := connect
	if t.legacy {
		dial = connectLegacy
	}
	c, err := dial(ctx, name, t)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer c.close()
	args := echoArgs{Message: "hello"}
	echo := func() error {
		text, err := c.call(ctx, "echo", args)
		if err != nil {
			return err
		}
		if text != "hello" {
			return fmt.Errorf("echo returned %q", text)
		}
		return nil
	}
	for range wl.Warmup {
		if err := echo(); err != nil {
			return nil, err
		}
	}

	// Sequential echo: latency, CPU and allocations per call. The calls run
	// in chunks, and CPU and allocations per call are the medians over the
	// chunks, so that a burst of load from elsewhere on the machine skews
	// one chunk rather than the figure.
	lat := make([]time.Duration, 0, wl.Sequential)
	chunks := max(1, wl.Chunks)
	perChunk := max(1, wl.Sequential/chunks)
	cpus := make([]float64, 0, chunks)
	syss := make([]float64, 0, chunks)
	allocs := make([]float64, 0, chunks)
	bytes := make([]float64, 0, chunks)
	var before, after goruntime.MemStats
	for range chunks {
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		cpu0, sys0 := cpuTime()
		for range perChunk {
			start := time.Now()
			if err := echo(); err != nil {
				return nil, err
			}
			lat = append(lat, time.Since(start))
		}
		cpu1, sys1 := cpuTime()
		goruntime.ReadMemStats(&after)
		n := float64(perChunk)
		cpus = append(cpus, float64(cpu1-cpu0)/n)
		syss = append(syss, float64(sys1-sys0)/n)
		allocs = append(allocs, float64(after.Mallocs-before.Mallocs)/n)
		bytes = append(bytes, float64(after.TotalAlloc-before.TotalAlloc)/n)
	}
	res.CPUNs, res.SysNs = medianFloat(cpus), medianFloat(syss)
	res.Allocs, res.Bytes = medianFloat(allocs), medianFloat(bytes)
	slices.Sort(lat)
	res.P50Ns = float64(lat[len(lat)/2])
	res.P99Ns = float64(lat[len(lat)*99/100])

	// Throughput: many goroutines on the one session.
	if d, ok := c.(interface{ startDemux() }); ok {
		d.startDemux()
	}
	var wg sync.WaitGroup
	errs := make(chan error, wl.Goroutines)
	start := time.Now()
	for range wl.Goroutines {
		wg.Go(func() {
			for range wl.Concurrent {
				if err := echo(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, fmt.Errorf("concurrent echo: %w", err)
	}
	res.CallsPerSec = float64(wl.Goroutines*wl.Concurrent) / elapsed.Seconds()

	// Large results.
	big := bigArgs{N: wl.BigSize}
	if _, err := c.call(ctx, "big", big); err != nil {
		return nil, err
	}
	bigCPU0, _ := cpuTime()
	bigTimes := make([]time.Duration, 0, wl.BigCalls)
	for range wl.BigCalls {
		start := time.Now()
		text, err := c.call(ctx, "big", big)
		if err != nil {
			return nil, err
		}
		bigTimes = append(bigTimes, time.Since(start))
		if len(text) != wl.BigSize || strings.Trim(text[:16], "x") != "" {
			return nil, fmt.Errorf("big returned %d bytes, want %d", len(text), wl.BigSize)
		}
	}
	bigCPU1, _ := cpuTime()
	// The median call, so that one call slowed by load elsewhere does not
	// set the figure.
	res.MBps = float64(wl.BigSize) / (1 << 20) / median(bigTimes).Seconds()
	res.BigCPUNs = float64(bigCPU1-bigCPU0) / float64(wl.BigCalls)
	return res, nil
}

// connectAndList times dial and a tools/list on the session it opens, then
// closes the session.
func connectAndList(ctx context.Context, dial func() (benchClient, error)) (time.Duration, error) {
	start := time.Now()
	c, err := dial()
	if err != nil {
		return 0, fmt.Errorf("connecting: %w", err)
	}
	n, err := c.listTools(ctx)
	if err != nil {
		c.close()
		return 0, fmt.Errorf("listing tools: %w", err)
	}
	d := time.Since(start)
	if n == 0 {
		c.close()
		return 0, fmt.Errorf("listing tools: the server listed none")
	}
	if err := c.close(); err != nil {
		return 0, fmt.Errorf("closing: %w", err)
	}
	return d, nil
}

func medianFloat(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
