package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"time"
)

// The transports of the idle-session and first-connect rows: stdio, and
// Streamable HTTP to a stateful and to a stateless server.
const (
	idleStdio     = "stdio"
	idleStateful  = "http-stateful"
	idleStateless = "http-stateless"
)

var idleTransports = []string{idleStdio, idleStateful, idleStateless}

// idleClients are the clients the idle-session rows compare.
var idleClients = []string{clientRuntime, clientGoSDK, clientMCPGo}

// idleSessions is how many sessions each idle row holds.
var idleSessions = map[string]int{idleStdio: 200, idleStateful: 1000, idleStateless: 1000}

// manyIdle is the number of stateless HTTP sessions the "many idle
// sessions" row holds in one process.
const manyIdle = 10000

// idleResult is what one "mcpbench idle" child measured: the heap,
// goroutines and file descriptors that each session held while idle.
type idleResult struct {
	Client     string  `json:"client"`
	Transport  string  `json:"transport"`
	N          int     `json:"n"`
	HeapPer    float64 `json:"heapPer"`    // (HeapInuse(N) − HeapInuse(1)) / (N − 1), bytes
	Goroutines float64 `json:"goroutines"` // per session, the same way
	FDs        float64 `json:"fds"`        // per session, the same way
	HeapTotal  float64 `json:"heapTotal"`  // HeapInuse with N sessions, bytes
}

// idleMain opens -n sessions of one client, each initialized and listed
// once, and writes what each costs while it waits as an idleResult.
func idleMain(args []string) error {
	fs := flag.NewFlagSet("mcpbench idle", flag.ContinueOnError)
	name := fs.String("client", clientRuntime, "the client to measure")
	transport := fs.String("transport", idleStdio, "stdio, http-stateful or http-stateless")
	command := fs.String("server", "", "the stdio server command")
	url := fs.String("url", "", "the Streamable HTTP endpoint")
	n := fs.Int("n", 200, "the sessions to hold")
	stacks := fs.String("stacks", "", "write the goroutines held with N sessions, grouped by stack, to `FILE`")
	heapProfile := fs.String("heapprofile", "", "write a heap profile with N sessions to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *heapProfile != "" {
		goruntime.MemProfileRate = 1
	}
	if *n < 2 {
		return fmt.Errorf("-n %d: want at least 2", *n)
	}
	t := target{transport: transportStdio, command: *command, url: *url}
	if *transport != idleStdio {
		t.transport = transportHTTP
	}
	t.stateful = *transport == idleStateful
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var open []benchClient
	defer func() {
		for _, c := range open {
			c.close()
		}
	}()
	add := func() error {
		c, err := connect(ctx, *name, t)
		if err != nil {
			return fmt.Errorf("%s over %s, session %d: %w", *name, *transport, len(open)+1, err)
		}
		open = append(open, c)
		if _, err := c.listTools(ctx); err != nil {
			return fmt.Errorf("%s over %s, session %d: listing tools: %w", *name, *transport, len(open), err)
		}
		return nil
	}
	if err := add(); err != nil {
		return err
	}
	h1, g1, f1 := idleSample()
	for len(open) < *n {
		if err := add(); err != nil {
			return err
		}
	}
	hn, gn, fn := idleSample()
	for _, p := range []struct{ file, name string }{{*stacks, "goroutine"}, {*heapProfile, "heap"}} {
		if p.file == "" {
			continue
		}
		f, err := os.Create(p.file)
		if err != nil {
			return err
		}
		debug := 1
		if p.name == "heap" {
			debug = 0
		}
		pprof.Lookup(p.name).WriteTo(f, debug)
		f.Close()
	}
	per := float64(*n - 1)
	return json.NewEncoder(os.Stdout).Encode(idleResult{
		Client: *name, Transport: *transport, N: *n,
		HeapPer:    float64(hn-h1) / per,
		Goroutines: float64(gn-g1) / per,
		FDs:        float64(fn-f1) / per,
		HeapTotal:  float64(hn),
	})
}

// idleSample lets the sessions settle, collects garbage and returns
// HeapInuse, the number of goroutines and of open file descriptors.
func idleSample() (heap uint64, goroutines, fds int) {
	// Let streams that open after a handshake open, and goroutines that
	// end after one settle: wait until the count holds still.
	last := -1
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		g := goruntime.NumGoroutine()
		if g == last {
			break
		}
		last = g
	}
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	entries, _ := os.ReadDir("/proc/self/fd")
	return ms.HeapInuse, goruntime.NumGoroutine(), len(entries)
}

// benchIdle runs the idle-session rows: every client over every transport,
// in turns, cfg.reps times, and the many-sessions row of mcpgen.
func benchIdle(cfg config, server string, urls map[string]string) ([]*idleResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	runs := map[string][]*idleResult{}
	var order []string
	for r := range cfg.reps {
		for _, tr := range idleTransports {
			for _, name := range idleClients {
				if !isPicked(cfg.clientsOf, name) {
					continue
				}
				n := idleSessions[tr]
				if cfg.quick {
					n = 5
				}
				log.Printf("repetition %d/%d: %d idle %s sessions over %s", r+1, cfg.reps, n, name, tr)
				var res idleResult
				args := []string{"idle", "-client", name, "-transport", tr, "-server", server, "-url", urls[tr], "-n", fmt.Sprint(n)}
				if err := runChild(self, args, &res); err != nil {
					return nil, fmt.Errorf("idle sessions of %s over %s: %w", name, tr, err)
				}
				key := name + "/" + tr
				if r == 0 {
					order = append(order, key)
				}
				runs[key] = append(runs[key], &res)
			}
		}
	}
	var out []*idleResult
	for _, key := range order {
		out = append(out, medianIdle(runs[key]))
	}
	n := manyIdle
	if cfg.quick {
		n = 20
	}
	log.Printf("%d idle mcpgen sessions over %s in one process", n, idleStateless)
	var many idleResult
	args := []string{"idle", "-client", clientRuntime, "-transport", idleStateless, "-url", urls[idleStateless], "-n", fmt.Sprint(n)}
	if err := runChild(self, args, &many); err != nil {
		return nil, fmt.Errorf("%d idle sessions: %w", n, err)
	}
	many.Client = clientRuntime + " ×" + fmt.Sprint(n)
	out = append(out, &many)
	return out, nil
}

func isPicked(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

// medianIdle takes each figure's median over the repetitions.
func medianIdle(rs []*idleResult) *idleResult {
	m := func(f func(*idleResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return medianFloat(v)
	}
	return &idleResult{
		Client: rs[0].Client, Transport: rs[0].Transport, N: rs[0].N,
		HeapPer:    m(func(r *idleResult) float64 { return r.HeapPer }),
		Goroutines: m(func(r *idleResult) float64 { return r.Goroutines }),
		FDs:        m(func(r *idleResult) float64 { return r.FDs }),
		HeapTotal:  m(func(r *idleResult) float64 { return r.HeapTotal }),
	}
}

func printIdle(w io.Writer, rs []*idleResult) {
	fmt.Fprintf(w, "\n## Idle sessions\n\n")
	fmt.Fprintf(w, "Each session initialized and listed once, then held. Per session: (X(N) − X(1)) / (N − 1) after GC, the median of the repetitions.\n\n")
	fmt.Fprintf(w, "| transport | client | N | heap / session | goroutines / session | fds / session | heap in use |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %.2f | %.2f | %s |\n", r.Transport, r.Client, r.N, fmtBytes(r.HeapPer), r.Goroutines, r.FDs, fmtBytes(r.HeapTotal))
	}
}

func idleTargets(rs []*idleResult) []targetCheck {
	get := func(name, tr string) *idleResult {
		for _, r := range rs {
			if r.Client == name && r.Transport == tr {
				return r
			}
		}
		return nil
	}
	var ts []targetCheck
	for _, tr := range idleTransports {
		rt, sdk, mg := get(clientRuntime, tr), get(clientGoSDK, tr), get(clientMCPGo, tr)
		if rt == nil || sdk == nil || mg == nil {
			continue
		}
		ref, refName, maxG := min(sdk.HeapPer, mg.HeapPer), "the lighter peer", 2.0
		switch tr {
		case idleStateful:
			ref, refName, maxG = sdk.HeapPer, "go-sdk", sdk.Goroutines
		case idleStateless:
			maxG = 1
		}
		ts = append(ts,
			targetCheck{fmt.Sprintf("idle %s heap/session ≤ %s", tr, refName), fmt.Sprintf("%s (%s)", fmtBytes(rt.HeapPer), fmtBytes(ref)), rt.HeapPer <= ref},
			targetCheck{fmt.Sprintf("idle %s goroutines/session ≤ %.0f", tr, maxG), fmt.Sprintf("%.2f", rt.Goroutines), rt.Goroutines <= maxG+0.01})
	}
	for _, r := range rs {
		if strings.HasPrefix(r.Client, clientRuntime+" ×") {
			ts = append(ts, targetCheck{fmt.Sprintf("%d idle stateless HTTP sessions < 150 MiB heap", r.N), fmtBytes(r.HeapTotal), r.HeapTotal < 150<<20})
		}
	}
	return ts
}

// startServers serves server over stateless and stateful Streamable HTTP,
// and returns the URL for each idle transport.
func startServers(server string) (map[string]string, func(), error) {
	stateless, stop1, err := serveHTTP(server)
	if err != nil {
		return nil, nil, err
	}
	stateful, stop2, err := serveHTTP(server, "-stateful")
	if err != nil {
		stop1()
		return nil, nil, err
	}
	return map[string]string{idleStateless: stateless, idleStateful: stateful}, func() { stop1(); stop2() }, nil
}

// buildServer builds internal/testing/sdkserver into tmp.
func buildServer(cfg config, tmp string) (string, error) {
	server := filepath.Join(tmp, "sdkserver")
	if _, err := os.Stat(server); err == nil {
		return server, nil
	}
	log.Printf("building internal/testing/sdkserver")
	return server, goBuild(filepath.Join(cfg.root, "internal", "testing", "sdkserver"), server)
}
