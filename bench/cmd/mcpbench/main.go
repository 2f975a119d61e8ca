// Command mcpbench measures the mcpgen runtime against the official go-sdk
// client, the mcp-go client and a hand-written floor client, all talking to
// the same go-sdk server (internal/testing/sdkserver) over stdio and Streamable
// HTTP; it also measures the generator at scale and generated validation
// against JSON Schema validation, what the Gemini Live tool loop adds to
// a call, and the declarations one request sends over a server of 344
// tools, with every tool declared and in deferred mode. It prints Markdown tables, checks the performance targets, and
// writes an SVG chart.
//
// Usage, from the bench directory (make bench runs this):
//
//	go run ./cmd/mcpbench [-root ..] [-reps 3] [-md FILE] [-svg ../docs/bench.svg]
//
// Each client runs in a child process of its own ("mcpbench worker"), so that
// its CPU time and allocations are the client's alone; the server is always a
// separate process. Clients take turns (A B C D A B C D ...) and every figure
// is the median over the repetitions. Connect + tools/list, a latency of a
// few milliseconds, is timed in one more child process per transport
// ("mcpbench connects"), in which the clients take turns session by session.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpbench: ")
	if len(os.Args) > 1 && os.Args[1] == "connects" {
		if err := connectsMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "idle" {
		if err := idleMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "first" {
		if err := firstMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "rusage" {
		if err := rusageMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := workerMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := benchMain(os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func workerMain(args []string) error {
	fs := flag.NewFlagSet("mcpbench worker", flag.ContinueOnError)
	name := fs.String("client", "", "the client to measure: "+strings.Join(clientNames, ", "))
	transport := fs.String("transport", transportStdio, "stdio or http")
	command := fs.String("server", "", "the stdio server command")
	url := fs.String("url", "", "the Streamable HTTP endpoint")
	quick := fs.Bool("quick", false, "a small workload, to check that everything runs")
	legacy := fs.Bool("legacy", false, "over HTTP, pin the session to the 2025-11-25 era")
	sequential := fs.Int("sequential", 0, "override the number of sequential echo calls")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measurements to `FILE`")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the measurements to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	wl := defaultWorkload
	if *quick {
		wl = quickWorkload
	}
	if *sequential > 0 {
		wl.Sequential = *sequential
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		goruntime.MemProfileRate = 512
		defer func() {
			if f, err := os.Create(*memProfile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return runWorker(ctx, *name, target{transport: *transport, command: *command, url: *url, legacy: *legacy}, wl, os.Stdout)
}

// connectsMain runs measureConnects for the clients named by -clients and
// writes their results as a JSON array.
func connectsMain(args []string) error {
	fs := flag.NewFlagSet("mcpbench connects", flag.ContinueOnError)
	clients := fs.String("clients", strings.Join(clientNames, ","), "the clients to measure, comma-separated")
	transport := fs.String("transport", transportStdio, "stdio or http")
	command := fs.String("server", "", "the stdio server command")
	url := fs.String("url", "", "the Streamable HTTP endpoint")
	quick := fs.Bool("quick", false, "one session of each client, to check that everything runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	names, err := pick("-clients", *clients, clientNames)
	if err != nil {
		return err
	}
	n := defaultWorkload.Connects
	if *transport == transportHTTP {
		// An HTTP session costs a few milliseconds, not a process: more
		// of them make the median steadier.
		n = httpConnects
	}
	if *quick {
		n = quickWorkload.Connects
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := measureConnects(ctx, names, target{transport: *transport, command: *command, url: *url}, n)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// httpConnects is how many sessions of each client measureConnects times
// over HTTP.
const httpConnects = 200

// quickWorkload runs every measurement briefly.
var quickWorkload = workload{Connects: 1, Warmup: 5, Sequential: 50, Chunks: 2, Goroutines: 32, Concurrent: 2, BigCalls: 1, BigSize: 1 << 20}

type config struct {
	root         string
	reps         int
	svg          string
	quick        bool
	skip         map[string]bool
	clientsOf    []string
	transportsOf []string
}

// pick returns the comma-separated names of list, which must be among all;
// all when list is empty.
// benchParts are the parts of a run that -skip can leave out.
var benchParts = []string{"clients", "idle", "first", "scale", "synthetic", "validate", "live", "budget"}

func pick(flagName, list string, all []string) ([]string, error) {
	if list == "" {
		return all, nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("%s: unknown name %q; want some of %s", flagName, n, strings.Join(all, ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

func benchMain(args []string) error {
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	var cfg config
	fs.StringVar(&cfg.root, "root", "..", "the root of the mcpgen checkout")
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions of every measurement; figures are their medians")
	fs.StringVar(&cfg.svg, "svg", "", "where to write the chart (default ROOT/docs/bench.svg; \"-\" for none)")
	md := fs.String("md", "", "also write the tables to `FILE`")
	fs.BoolVar(&cfg.quick, "quick", false, "small workloads and sizes, to check that everything runs")
	skip := fs.String("skip", "", "comma-separated parts to skip: "+strings.Join(benchParts, ", ")+" (synthetic: the synthetic sizes of scale)")
	clients := fs.String("clients", "", "comma-separated clients to measure (default all): "+strings.Join(clientNames, ", "))
	transports := fs.String("transports", "", "comma-separated transports to measure (default all): "+strings.Join(transportNames, ", "))
	err := fs.Parse(args)
	if err != nil {
		return err
	}
	if cfg.reps < 1 {
		return fmt.Errorf("-reps %d: want at least 1", cfg.reps)
	}
	if cfg.clientsOf, err = pick("-clients", *clients, clientNames); err != nil {
		return err
	}
	if cfg.transportsOf, err = pick("-transports", *transports, transportNames); err != nil {
		return err
	}
	cfg.skip = map[string]bool{}
	if *skip != "" {
		parts, err := pick("-skip", *skip, benchParts)
		if err != nil {
			return err
		}
		for _, p := range parts {
			cfg.skip[p] = true
		}
	}
	root, err := filepath.Abs(cfg.root)
	if err != nil {
		return err
	}
	cfg.root = root
	if cfg.svg == "" {
		cfg.svg = filepath.Join(root, "docs", "bench.svg")
	}
	tmp, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var rep report
	rep.machine = describeMachine()
	if !cfg.skip["clients"] {
		if rep.clients, err = benchClients(cfg, tmp); err != nil {
			return err
		}
	}
	if !cfg.skip["idle"] || !cfg.skip["first"] {
		server, err := buildServer(cfg, tmp)
		if err != nil {
			return err
		}
		urls, stop, err := startServers(server)
		if err != nil {
			return err
		}
		if !cfg.skip["idle"] {
			rep.idle, err = benchIdle(cfg, server, urls)
		}
		if err == nil && !cfg.skip["first"] {
			rep.first, err = benchFirst(cfg, server, urls)
		}
		stop()
		if err != nil {
			return err
		}
	}
	if !cfg.skip["validate"] {
		rep.validation = benchValidation(cfg)
	}
	if !cfg.skip["live"] {
		if rep.live, err = benchLive(cfg); err != nil {
			return err
		}
	}
	if !cfg.skip["budget"] {
		if rep.budget, err = benchBudget(cfg); err != nil {
			return err
		}
	}
	if !cfg.skip["scale"] {
		if rep.scale, err = benchScale(cfg, tmp); err != nil {
			return err
		}
	}
	rep.print(os.Stdout)
	if *md != "" {
		var b bytes.Buffer
		rep.print(&b)
		if err := os.WriteFile(*md, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the tables: %w", err)
		}
	}
	if cfg.svg != "-" && len(rep.clients) > 0 {
		if err := os.MkdirAll(filepath.Dir(cfg.svg), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(cfg.svg, chartSVG(rep.clients), 0o644); err != nil {
			return fmt.Errorf("writing the chart: %w", err)
		}
		fmt.Printf("\nChart written to %s.\n", cfg.svg)
	}
	return nil
}

// goBuild builds the main package in dir into out.
func goBuild(dir, out string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", dir, err, b)
	}
	return nil
}

// benchClients builds the server, serves it over HTTP, and runs a worker
// for every client, transport and repetition, in turns.
func benchClients(cfg config, tmp string) (map[string]*clientResult, error) {
	server, err := buildServer(cfg, tmp)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	url, stop, err := serveHTTP(server)
	if err != nil {
		return nil, err
	}
	defer stop()

	runs := map[string][]*clientResult{}
	connects := map[string][]*clientResult{}
	for r := range cfg.reps {
		for _, tr := range cfg.transportsOf {
			for _, name := range cfg.clientsOf {
				log.Printf("repetition %d/%d: %s over %s", r+1, cfg.reps, name, tr)
				args := []string{"worker", "-client", name, "-transport", tr, "-server", server, "-url", url}
				if cfg.quick {
					args = append(args, "-quick")
				}
				var res clientResult
				if err := runChild(self, args, &res); err != nil {
					return nil, fmt.Errorf("worker for %s over %s: %w", name, tr, err)
				}
				key := name + "/" + tr
				runs[key] = append(runs[key], &res)
				if tr != transportHTTP || !legacyClients[name] {
					continue
				}
				// The same workload in the 2025-11-25 era, for the
				// bytes per call of both eras.
				log.Printf("repetition %d/%d: %s over %s in the 2025-11-25 era", r+1, cfg.reps, name, tr)
				var leg clientResult
				if err := runChild(self, append(args, "-legacy"), &leg); err != nil {
					return nil, fmt.Errorf("worker for %s over %s in the 2025-11-25 era: %w", name, tr, err)
				}
				runs[name+"/"+transportHTTPLegacy] = append(runs[name+"/"+transportHTTPLegacy], &leg)
			}
			log.Printf("repetition %d/%d: connect + tools/list of every client over %s, in turns", r+1, cfg.reps, tr)
			args := []string{"connects", "-clients", strings.Join(cfg.clientsOf, ","), "-transport", tr, "-server", server, "-url", url}
			if cfg.quick {
				args = append(args, "-quick")
			}
			var res []*clientResult
			if err := runChild(self, args, &res); err != nil {
				return nil, fmt.Errorf("timing connects over %s: %w", tr, err)
			}
			for _, c := range res {
				key := c.Client + "/" + tr
				connects[key] = append(connects[key], c)
			}
		}
	}
	out := map[string]*clientResult{}
	for key, rs := range runs {
		out[key] = medianResult(rs)
		if cs := connects[key]; len(cs) > 0 {
			c := medianResult(cs)
			out[key].ConnectNs, out[key].ConnectLegacyNs = c.ConnectNs, c.ConnectLegacyNs
		}
	}
	return out, nil
}

// runChild runs this program with args, its standard error going to
// ours, and decodes the JSON it writes into out.
func runChild(self string, args []string, out any) error {
	cmd := exec.Command(self, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("reading its result: %w", err)
	}
	return nil
}

// serveHTTP starts the server over stateless Streamable HTTP on a free
// loopback port and returns its URL.
// Extra arguments go to the server.
func serveHTTP(server string, extra ...string) (string, func(), error) {
	cmd := exec.Command(server, append([]string{"-http", "127.0.0.1:0"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting sdkserver: %w", err)
	}
	stop := func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("reading sdkserver's URL: %w", err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(line), stop, nil
}
