package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"time"
)

// firstSamples is how many fresh processes time each client's first
// connect, per transport. One process's time varies by a fifth or more
// with the machine's state, and a median of 21 moved the ratios by ±15%
// between runs of one binary; 101 take about two minutes in all.
const firstSamples = 101

// firstClients are the clients of the first-connect rows; the "legacy"
// ones are pinned to the 2025-11-25 era (HTTP only).
var firstClients = []string{clientRuntime, clientRuntime + modernSuffix, clientRuntime + legacySuffix, clientGoSDK, clientMCPGo, clientFloor, clientFloor + probeSuffix, clientFloor + legacySuffix}

// legacySuffix marks a client pinned to the 2025-11-25 era, modernSuffix
// mcpgen pinned to 2026-07-28, the era the floor assumes, and probeSuffix
// the floor that, over stdio, sends server/discover before its first
// request, as the stdio transport asks a client of the 2026-07-28 era to,
// and waits for the answer before it lists. mcpgen pinned to 2026-07-28
// sends the same two requests, the listing right behind the probe.
const (
	legacySuffix = " (2025-11-25)"
	modernSuffix = " (" + modernVersion + ")"
	probeSuffix  = " (probe)"

	// modernVersion is the version the floor speaks, and mcpgen's
	// modernSuffix session is pinned to.
	modernVersion = "2026-07-28"
)

// firstResult is the first connect + initialize + tools/list of a fresh
// process: its time and the bytes it allocated.
type firstResult struct {
	Client    string  `json:"client"`
	Transport string  `json:"transport"`
	Ns        float64 `json:"ns"`
	Bytes     float64 `json:"bytes"`
	// samples are the times of each turn, in turn order, for the median
	// of the ratios of turns (see pairedRatio).
	samples []float64
}

// firstMain times the first session of this fresh process.
func firstMain(args []string) error {
	fs := flag.NewFlagSet("mcpbench first", flag.ContinueOnError)
	name := fs.String("client", clientRuntime, "the client to measure")
	transport := fs.String("transport", idleStdio, "stdio, http-stateful or http-stateless")
	command := fs.String("server", "", "the stdio server command")
	url := fs.String("url", "", "the Streamable HTTP endpoint")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the first connect to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *memProfile != "" {
		goruntime.MemProfileRate = 1
		defer func() {
			if f, err := os.Create(*memProfile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	t := target{transport: transportStdio, command: *command, url: *url}
	if *transport != idleStdio {
		t.transport = transportHTTP
	}
	t.stateful = *transport == idleStateful
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dial := func() (benchClient, error) { return connect(ctx, *name, t) }
	if base, ok := cutSuffix(*name, legacySuffix); ok {
		dial = func() (benchClient, error) { return connectLegacy(ctx, base, t) }
	}
	if _, ok := cutSuffix(*name, probeSuffix); ok {
		if t.transport != transportStdio {
			return fmt.Errorf("%s: only over stdio", *name)
		}
		dial = func() (benchClient, error) { return dialFloorStdioProbe(ctx, t.command) }
	}
	if _, ok := cutSuffix(*name, modernSuffix); ok {
		dial = func() (benchClient, error) { return connectRuntimePinned(ctx, t, modernVersion) }
	}
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	d, err := connectAndList(ctx, dial)
	if err != nil {
		return fmt.Errorf("%s over %s: %w", *name, *transport, err)
	}
	goruntime.ReadMemStats(&m1)
	return json.NewEncoder(os.Stdout).Encode(firstResult{Client: *name, Transport: *transport, Ns: float64(d), Bytes: float64(m1.TotalAlloc - m0.TotalAlloc)})
}

// splitFirstClient splits the name of a first-connect client into the
// client it runs and whether it is pinned to the legacy era or probes.
func splitFirstClient(name string) (base string, legacy, probe bool) {
	base, legacy = cutSuffix(name, legacySuffix)
	base, _ = cutSuffix(base, modernSuffix)
	base, probe = cutSuffix(base, probeSuffix)
	return base, legacy, probe
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// benchFirst times the first connect of a fresh process, firstSamples
// times for each client and transport, the clients taking turns sample by
// sample, each turn started by the next client.
func benchFirst(cfg config, server string, urls map[string]string) ([]*firstResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	samples := firstSamples
	if cfg.quick {
		samples = 1
	}
	var out []*firstResult
	for _, tr := range idleTransports {
		var names []string
		for _, name := range firstClients {
			base, legacy, probe := splitFirstClient(name)
			if !isPicked(cfg.clientsOf, base) || (probe && tr != idleStdio) {
				continue
			}
			if tr == idleStateful && !legacy && (base == clientRuntime || base == clientFloor) {
				// The stateful server speaks only the 2025-11-25 era.
				continue
			}
			names = append(names, name)
		}
		log.Printf("first connect of a fresh process over %s: %d samples of %d clients", tr, samples, len(names))
		ns := make([][]float64, len(names))
		bytes := make([][]float64, len(names))
		for k := range samples {
			// Each turn starts with the next client, so that no client
			// always follows the same one (whose server process may still
			// be exiting) or always comes first.
			for j := range names {
				i := (j + k) % len(names)
				name := names[i]
				var res firstResult
				args := []string{"first", "-client", name, "-transport", tr, "-server", server, "-url", urls[tr]}
				if err := runChild(self, args, &res); err != nil {
					return nil, fmt.Errorf("first connect of %s over %s: %w", name, tr, err)
				}
				ns[i] = append(ns[i], res.Ns)
				bytes[i] = append(bytes[i], res.Bytes)
			}
		}
		for i, name := range names {
			out = append(out, &firstResult{Client: name, Transport: tr, Ns: medianFloat(ns[i]), Bytes: medianFloat(bytes[i]), samples: ns[i]})
		}
	}
	return out, nil
}

func printFirst(w io.Writer, rs []*firstResult, clients map[string]*clientResult) {
	fmt.Fprintf(w, "\n## First connect of a fresh process\n\n")
	fmt.Fprintf(w, "Connect + initialize (or discovery) + tools/list as the first session of a new process: the median of %d processes, clients in turns, each turn started by the next client; the ratio of that median to the floor's, and the median of the ratios of each turn with the 95%% interval of that median, which says how far the ratio could move between runs; then the bytes that session allocated, and the in-process median of many sessions (Clients tables) for comparison.\n\n", firstSamples)
	fmt.Fprintf(w, "| transport | client | first connect | ratio to floor | ratio of turns (95%% interval) | floor compared with | bytes allocated | in-process median |\n|---|---|---:|---:|---:|---|---:|---:|\n")
	for _, r := range rs {
		floor := floorOf(rs, r)
		ratio, turns, against := "–", "–", "–"
		if floor != nil && floor.Ns > 0 && floor != r {
			ratio, against = fmt.Sprintf("%.2f×", r.Ns/floor.Ns), floor.Client
			if m, lo, hi, ok := pairedRatio(r.samples, floor.samples); ok {
				turns = fmt.Sprintf("%.2f× (%.2f–%.2f)", m, lo, hi)
			}
		}
		inproc := "–"
		base, legacy, probe := splitFirstClient(r.Client)
		tr := transportStdio
		if r.Transport != idleStdio {
			tr = transportHTTP
		}
		// The in-process median is measured for no probing client, and for
		// no client of the stateful server.
		if c := clients[base+"/"+tr]; c != nil && !probe && r.Transport != idleStateful {
			v := c.ConnectNs
			if legacy {
				v = c.ConnectLegacyNs
			}
			if v > 0 {
				inproc = fmtDuration(v)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Transport, r.Client, fmtDuration(r.Ns), ratio, turns, against, fmtBytes(r.Bytes), inproc)
	}
	fmt.Fprint(w, firstNotes)
}

// firstNotes says why the first connect of a fresh process and the
// in-process median of many sessions disagree.
const firstNotes = `
Why the first connect of a fresh process and the in-process median disagree:

- **Package init**, before main. Importing mcpgen's runtime runs the init of
  santhosh-tekuri/jsonschema/v6 (behind runtime.Schema), which compiles its draft
  meta-schemas: 1.7 MB in 21,000 allocations, 29–46 ms of the 51–92 ms that all of
  runtime's imports took under GODEBUG=inittrace=1 on a loaded 2-core machine. It is
  the library's own init (draft.go), not a package-level variable of mcpgen's:
  runtime.Schema already compiles a tool's schema on first use, and no other init of
  runtime's imports allocates more than 30 KB. A copy of the library with that init
  moved behind a sync.Once cut a program that only imports runtime from 69 to 27 ms
  of init and from 1.8 MB to 131 KB (medians of 21 runs each, alternated, on a loaded
  machine); short of such a change upstream or a fork, Go runs it in every program
  that imports runtime. These rows cannot show it: one binary links every client, so
  each pays every library's init before its timer starts. A harness with a binary
  per client sees it.
- **What a process remembers.** Later sessions to an endpoint reuse its remembered era
  (no server/discover) and its remembered 405 to the GET stream. The first session of
  a process has neither: unpinned, it probes first (two round trips where the floor,
  which knows its era, takes one; over stdio the spec asks a client that speaks both
  eras to probe before anything else). Over HTTP, pinned to 2026-07-28 it lists at
  once, with the probe alongside when something needs it, like a remembered
  endpoint, and is compared with the floor. Over stdio, whose server is a new
  process each time, Connect waits for the probe's answer, so that a session it
  returns has a server that speaks the pinned version, and is compared with the
  floor (probe), which sends server/discover first and waits for it too. Pinned to
  2025-11-25, mcpgen sends initialize at once over every transport, as the floor
  (2025-11-25) does.
- **First use.** net/http's 32 KiB pooled copy buffer for the first request body (the
  floor pays it too), and mcpgen's pools filled for the first time. The 202 to
  notifications/initialized no longer takes io.Discard's 8 KiB buffer: an empty body
  is closed without being copied.
- **Connections.** A server such as go-sdk's answers each POST with an SSE stream
  that it ends right after the response. A request sent while that stream is still
  being read to its end finds its connection busy and opens another. The
  handshake's notifications/initialized waits (at most 20 ms) for the end of
  initialize's stream, and the GET stream waits for the end of the first answer's,
  so the first legacy listing of a process with a session id takes one connection,
  as the floor's does (the floor reads each answer to its end before it sends
  again). Later requests do not wait: freeing the connection before every next
  request cost more on the busy path than it saved here (docs/performance.md).
- **notifications/initialized without a session id.** A stateless server cannot
  hold a client's requests until its notification arrives, so mcpgen sends it
  beside the first listing instead of waiting for its 202: the listing saves
  that round trip, and the notification takes a second connection (the floor
  waits, as a client of a stateful server must).
- **First use of encoding/json.** A process builds encoding/json's field cache of a
  struct type the first time it decodes into it. mcpgen reads the initialize and
  server/discover results and the capabilities with its own scanner, as it reads
  a listing's tools; the floor decodes its requests and answers with encoding/json
  and pays that cache.
- **The GET stream, 2025-11-25.** It goes out once the event stream of the first
  request after the handshake has ended, stateful server or not, so it costs that
  request neither a round trip nor a connection opened beside it, and its goroutine
  yields before it starts, so that the answer reaches its caller first. The first GET of a
  process to an endpoint takes the idle connection of the requests; later ones, to
  an endpoint that answered with a stream, a connection of the stream client, with
  small buffers. A process that has seen the server answer 405 sends none, and
  Close waits for a GET about to go out.
  With a session id, a request that could make the server send on that stream (a
  tool call, say) sends the GET at once and waits for its answer, at most 3 s,
  because a server drops what it sends there while the stream is not open; a
  listing or a ping does not wait.
- **Timeouts and a reader of its own.** mcpgen's session starts a reader's
  goroutine in Connect and a pump per event stream, and its dialer has a 30 s
  timeout; the floor has none of them. A build without all three (the answer
  read on the caller's goroutine, the floor's transport) moved the 2026-07-28
  session over the stateless server between 0.4% away from the floor and 2.4%
  towards it, in two sets of 801 fresh processes whose committed builds
  differed by 1.2%: what a fresh process pays for beyond the floor is code and
  tables run for the first time, spread over the session (docs/performance.md,
  "The first connect, sixteenth round").
- **The same requests.** The floor sends what mcpgen sends, in each era
  (TestFloorSendsTheRuntimesRequests). Until run 29 of docs/bench.md its
  2026-07-28 requests left out the clientInfo and the capabilities that
  mcpgen's carry, which made it 2.5–3.3% faster in a fresh process.
- **Stdio.** Most of a stdio first connect is the server's own start, which
  every client waits for. The server/discover probe, the server's first request
  of its life, costs the floor (probe) 3–8% over the floor; mcpgen pinned to
  2026-07-28 makes it too, and is compared with the floor (probe). Beyond the
  probe, mcpgen pays 2–9% over a floor doing the same work, in either era,
  1–1.5 ms. Timed in phases (41 fresh processes each, alternated), it is CPU
  that the client spends while the server starts: 3.5–4 ms from the start of
  Connect to the first answer, against the floor's 2 ms, on a 2-core machine
  where the server's start needs the same cores. A profile of those windows
  finds it in code and tables run for the first time in the process: page
  faults, the first stacks of the goroutines that read the server's standard
  error and read while the session is idle, the threads woken for them.
  Neither the process group nor the pipe of standard error changes the time
  (docs/performance.md, "The first connect, fifth round").
- **The stateful handshake, 2025-11-25.** Timed step by step in fresh
  processes, mcpgen's first session spends about 60 µs more than the floor
  before its first request (26 µs of it starting the Session's reader)
  and about 85 µs more reading initialize's answer, which passes through the
  pump of its event stream and the Session's reader; the same steps for the
  listing cost a third as much. In sets of 801 processes the row is 1.03–1.05×
  (docs/performance.md, "The first connect, seventeenth round").
- **How far a ratio moves.** One process's time varies by a fifth or more, and
  a median of 101 moves the ratio of two clients by several percent from run to
  run. The median of the turns' ratios and its 95% interval, beside the ratio of
  medians, say how far: a row whose interval holds 1.0 cannot be told from the
  floor by this run.
`

// floorOf returns the floor's result of r's transport and era that r is
// compared with: over stdio, mcpgen in the 2026-07-28 era sends the
// server/discover probe before its first request, as the floor (probe)
// does, and is compared with it.
func floorOf(rs []*firstResult, r *firstResult) *firstResult {
	want := clientFloor
	if _, legacy := cutSuffix(r.Client, legacySuffix); legacy {
		want += legacySuffix
	} else if r.Transport == idleStdio && (r.Client == clientRuntime || r.Client == clientRuntime+modernSuffix) {
		want += probeSuffix
	}
	for _, f := range rs {
		if f.Client == want && f.Transport == r.Transport {
			return f
		}
	}
	return nil
}

// pairedRatio returns the median of the ratios a[k]/b[k] of the turns
// both clients took, and the 95% confidence interval of that median: the
// order statistics of the sorted ratios at n/2 ∓ 0.98√n (the normal
// approximation of the binomial distribution of how many ratios fall
// below the true median), which assumes nothing about how the ratios
// are distributed. ok is false for fewer than 20 turns, too few for that
// approximation, and for a turn of b that took no time.
func pairedRatio(a, b []float64) (median, lo, hi float64, ok bool) {
	n := min(len(a), len(b))
	if n < 20 {
		return 0, 0, 0, false
	}
	r := make([]float64, 0, n)
	for k := range n {
		if b[k] <= 0 {
			return 0, 0, 0, false
		}
		r = append(r, a[k]/b[k])
	}
	slices.Sort(r)
	half := 0.98 * math.Sqrt(float64(n))
	// Ranks from 1: the floor of n/2 − half and the ceiling of
	// n/2 + half + 1.
	i := max(int(math.Floor(float64(n)/2-half))-1, 0)
	j := min(int(math.Ceil(float64(n)/2+half+1))-1, n-1)
	return r[n/2], r[i], r[j], true
}

func firstTargets(rs []*firstResult) []targetCheck {
	var ts []targetCheck
	for _, r := range rs {
		// The floor knows its era: mcpgen is compared pinned to the same
		// one. Unpinned, it pays the discovery probe that tells it the
		// era (see docs/bench.md).
		if r.Client != clientRuntime+legacySuffix && r.Client != clientRuntime+modernSuffix {
			continue
		}
		f := floorOf(rs, r)
		if f == nil || f.Ns == 0 {
			continue
		}
		ratio := r.Ns / f.Ns
		got := fmt.Sprintf("%.2f×", ratio)
		if m, lo, hi, ok := pairedRatio(r.samples, f.samples); ok {
			got += fmt.Sprintf(" (turns %.2f×, 95%% %.2f–%.2f)", m, lo, hi)
		}
		ts = append(ts, targetCheck{fmt.Sprintf("first connect of a fresh process ≤ 1.0× %s (%s, %s)", f.Client, r.Transport, r.Client), got, ratio <= 1})
	}
	return ts
}
