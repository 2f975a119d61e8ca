package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// scaleResult is what generating one snapshot cost.
type scaleResult struct {
	name       string
	tools      int
	genNs      float64 // wall time of mcpgen generate, median
	cpuNs      float64 // its user+system CPU time, median
	maxRSS     int64   // its peak resident set, bytes, the largest seen
	lines      int     // lines of Go written
	compileNs  float64 // wall time of go build of the generated package, median
	compileCPU float64 // its user+system CPU time (go and the compiler), median
	real       bool    // a real server's snapshot, not a synthetic one
	compileOK  bool
	compileMsg string
	// refCompileNs is, for the real snapshot's package, the median wall
	// time of compiling the runtime package in the same turns: the
	// reference that makes the figure comparable across machines.
	refCompileNs float64
	// genReps is how many generations genNs and cpuNs are the medians of.
	genReps int
	// compileReps is how many builds compileNs is the median of.
	compileReps int
}

var scaleSizes = []int{100, 500, 2000}

// The targets for generating the largest synthetic snapshot: its wall time
// (the median of the repetitions) and its peak resident set (the largest
// of the repetitions, from the child's rusage).
const (
	maxGenNs  = 0.5e9
	maxGenRSS = 150 << 20
)

// realPkg is the package generated from the largest real snapshot.
const realPkg = "realsnapshot"

// Targets for the package generated from the largest real snapshot: how
// much code each tool costs, how long the package takes to compile (the
// median of at least realCompileReps builds) and how long generating it
// takes.
const (
	maxLinesPerTool = 200
	maxCompileNs    = 1.5e9
	realCompileReps = 5
	maxRealGenNs    = 0.4e9
	// genReps is how many generations of each input the generation
	// figures are the medians of, at least: a run on this kind of machine
	// varies by a fifth from one to the next, and the targets are judged on
	// these medians.
	genReps = 7
)

// benchScale builds cmd/mcpgen, then generates synthetic snapshots of each
// size and the largest real snapshot in testdata, in turns, and compiles
// each generated package once.
func benchScale(cfg config, tmp string) ([]scaleResult, error) {
	mcpgen := filepath.Join(tmp, "mcpgen")
	log.Printf("building cmd/mcpgen")
	if err := goBuild(filepath.Join(cfg.root, "cmd", "mcpgen"), mcpgen); err != nil {
		return nil, err
	}
	sizes := scaleSizes
	if cfg.quick {
		sizes = []int{10, 40}
	}
	if cfg.skip["synthetic"] {
		sizes = nil
	}
	type input struct {
		name, snapshot, pkg string
		tools               int
	}
	var inputs []input
	for _, n := range sizes {
		p := filepath.Join(tmp, fmt.Sprintf("synthetic-%d.json", n))
		if err := os.WriteFile(p, syntheticTools(n), 0o644); err != nil {
			return nil, err
		}
		inputs = append(inputs, input{fmt.Sprintf("synthetic %d", n), p, fmt.Sprintf("synth%d", n), n})
	}
	if real, err := largestSnapshot(cfg.root); err != nil {
		return nil, err
	} else if real != "" {
		n, err := countTools(real)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(cfg.root, real)
		inputs = append(inputs, input{rel, real, realPkg, n})
	}

	results := make([]scaleResult, len(inputs))
	walls := make([][]time.Duration, len(inputs))
	cpus := make([][]time.Duration, len(inputs))
	reps := cfg.reps
	if !cfg.quick {
		reps = max(reps, genReps)
	}
	for r := range reps {
		for i, in := range inputs {
			log.Printf("repetition %d/%d: generating %s", r+1, reps, in.name)
			out := filepath.Join(tmp, "gen", in.pkg)
			os.RemoveAll(out)
			// measureCommand, not exec here: see there why.
			u, err := measureCommand(mcpgen, "generate", "--snapshot", in.snapshot, "--package", in.pkg, "--out", out)
			if err != nil {
				return nil, fmt.Errorf("generating %s: %w", in.name, err)
			}
			walls[i] = append(walls[i], u.Wall)
			cpus[i] = append(cpus[i], u.CPU)
			results[i].maxRSS = max(results[i].maxRSS, u.MaxRSS)
		}
	}

	// Compile each generated package, inside this module so that it
	// resolves the runtime and genai. The dependencies come from the build
	// cache, as in a developer's repeated builds; a new stamp file before
	// every build makes the cache miss for the package itself, so each
	// build is a real compile of the generated code and nothing else. The
	// figures are the medians over the repetitions: the wall time, and the
	// CPU time of go build and the compiler it runs, which a busy machine
	// inflates less.
	work, err := os.MkdirTemp(".", "scaletmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	for i, in := range inputs {
		res := &results[i]
		res.name, res.tools, res.real = in.name, in.tools, in.pkg == realPkg
		res.genNs = float64(median(walls[i]))
		res.genReps = len(walls[i])
		res.cpuNs = float64(median(cpus[i]))
		src := filepath.Join(tmp, "gen", in.pkg)
		dst := filepath.Join(work, in.pkg)
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return nil, err
		}
		res.lines = countLines(dst)
		var cwalls, ccpus, refs []time.Duration
		res.compileOK = true
		reps := cfg.reps
		if res.real && !cfg.quick {
			reps = max(reps, realCompileReps)
		}
		for r := range reps {
			stamp := fmt.Sprintf("package %s\n\nconst buildStamp = %q\n", in.pkg, strconv.FormatInt(time.Now().UnixNano(), 10))
			if err := os.WriteFile(filepath.Join(dst, "zz_stamp.go"), []byte(stamp), 0o644); err != nil {
				return nil, err
			}
			log.Printf("repetition %d/%d: compiling the package generated from %s", r+1, reps, in.name)
			cmd := exec.Command("go", "build", "-o", os.DevNull, "./"+filepath.ToSlash(dst))
			start := time.Now()
			out, err := cmd.CombinedOutput()
			cwalls = append(cwalls, time.Since(start))
			if err != nil {
				res.compileOK = false
				res.compileMsg = firstLine(string(out))
				break
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			ccpus = append(ccpus, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
			if res.real {
				log.Printf("repetition %d/%d: compiling the runtime package, for reference", r+1, reps)
				d, err := compileRuntime(cfg.root, work)
				if err != nil {
					return nil, err
				}
				refs = append(refs, d)
			}
		}
		res.compileNs = float64(median(cwalls))
		res.compileReps = len(cwalls)
		if len(refs) > 0 {
			res.refCompileNs = float64(median(refs))
		}
		if len(ccpus) > 0 {
			res.compileCPU = float64(median(ccpus))
		}
	}
	return results, nil
}

// compileRuntime compiles the runtime package once and returns the wall
// time. An overlay adds a file of a new constant to the package, so that
// the build cache misses for it and nothing else, without writing into the
// source tree.
func compileRuntime(root, work string) (time.Duration, error) {
	dir, err := filepath.Abs(filepath.Join(root, "runtime"))
	if err != nil {
		return 0, err
	}
	stampFile, err := filepath.Abs(filepath.Join(work, "runtime_stamp.go"))
	if err != nil {
		return 0, err
	}
	stamp := fmt.Sprintf("package runtime\n\nconst benchBuildStamp = %q\n", strconv.FormatInt(time.Now().UnixNano(), 10))
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return 0, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(dir, "zz_bench_stamp.go"): stampFile}})
	if err != nil {
		return 0, err
	}
	overlayFile := filepath.Join(work, "runtime_overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return 0, err
	}
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "-o", os.DevNull, "github.com/mcpgen/mcpgen/runtime")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("compiling the runtime package: %v: %s", err, firstLine(string(out)))
	}
	return time.Since(start), nil
}

// largestSnapshot returns the largest JSON file in testdata and
// testdata/servers that lists tools.
func largestSnapshot(root string) (string, error) {
	var best string
	var bestSize int64
	for _, dir := range []string{"testdata", filepath.Join("testdata", "servers")} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			p := filepath.Join(root, dir, e.Name())
			info, err := e.Info()
			if err != nil {
				return "", err
			}
			if n, err := countTools(p); err == nil && n > 0 && info.Size() > bestSize {
				best, bestSize = p, info.Size()
			}
		}
	}
	return best, nil
}

// countTools counts the tools of a snapshot in any of the forms mcpgen
// reads: a JSON-RPC response, its result, or a bare array.
func countTools(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var v struct {
		Tools  []any `json:"tools"`
		Result struct {
			Tools []any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		var arr []any
		if err := json.Unmarshal(data, &arr); err != nil {
			return 0, fmt.Errorf("reading snapshot %s: %w", path, err)
		}
		return len(arr), nil
	}
	return len(v.Tools) + len(v.Result.Tools), nil
}

func countLines(dir string) int {
	n := 0
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			n += strings.Count(string(data), "\n")
		}
	}
	return n
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func printScale(w io.Writer, rs []scaleResult) {
	fmt.Fprintf(w, "\n## Generator scale (mcpgen generate, all parts)\n\n")
	fmt.Fprintf(w, "| snapshot | tools | generate | per tool | CPU | peak RSS | lines | lines/tool | go build | build CPU | per tool |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		build := fmtDuration(r.compileNs)
		if !r.compileOK {
			build = "fails: " + r.compileMsg
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d | %.0f | %s | %s | %s |\n", r.name, r.tools, fmtDuration(r.genNs),
			fmtDuration(r.genNs/float64(r.tools)), fmtDuration(r.cpuNs), fmtBytes(float64(r.maxRSS)), r.lines,
			float64(r.lines)/float64(r.tools), build, fmtDuration(r.compileCPU), fmtDuration(r.compileNs/float64(r.tools)))
	}
	if len(rs) > 0 && rs[0].genReps > 0 {
		fmt.Fprintf(w, "\nGenerate and CPU are the medians of %d generations of each snapshot, the snapshots in turns; peak RSS is the largest.\n", rs[0].genReps)
	}
	for _, r := range rs {
		if r.real && r.refCompileNs > 0 {
			fmt.Fprintf(w, "\nThe package generated from %s compiles in %s, the median of %d builds; the runtime package, compiled in the same turns, in %s: %.2f× as long.\n",
				r.name, fmtDuration(r.compileNs), r.compileReps, fmtDuration(r.refCompileNs), r.compileNs/r.refCompileNs)
		}
	}
}

// compileFigure is the compile time of r, with the runtime package's in
// the same run when measured.
func compileFigure(r scaleResult) string {
	if r.refCompileNs <= 0 {
		return fmtDuration(r.compileNs)
	}
	return fmt.Sprintf("%s, median of %d; runtime package %s (%.2f×)", fmtDuration(r.compileNs), r.compileReps, fmtDuration(r.refCompileNs), r.compileNs/r.refCompileNs)
}

// scaleTargets checks the generation targets on the synthetic sizes: the
// largest generated in under half a second with a peak resident set under
// 150 MiB, growth no worse than linear (with 10% slack for noise) from the
// smallest and from the middle size, and every package compiling.
func scaleTargets(rs []scaleResult) []targetCheck {
	var synth []scaleResult
	var ts []targetCheck
	for _, r := range rs {
		if strings.HasPrefix(r.name, "synthetic ") {
			synth = append(synth, r)
		}
		if r.real {
			perTool := float64(r.lines) / float64(r.tools)
			ts = append(ts,
				targetCheck{fmt.Sprintf("%s: ≤ %d generated lines per tool", r.name, maxLinesPerTool), fmt.Sprintf("%.0f", perTool), perTool <= maxLinesPerTool},
				targetCheck{fmt.Sprintf("%s: package compiles in ≤ %s (median of %d)", r.name, fmtDuration(maxCompileNs), realCompileReps), compileFigure(r), r.compileOK && r.compileNs <= maxCompileNs},
				targetCheck{fmt.Sprintf("%s: generated in ≤ %s", r.name, fmtDuration(maxRealGenNs)), fmt.Sprintf("%s (CPU %s)", fmtDuration(r.genNs), fmtDuration(r.cpuNs)), r.genNs <= maxRealGenNs})
		}
	}
	if len(synth) >= 2 {
		slices.SortFunc(synth, func(a, b scaleResult) int { return a.tools - b.tools })
		big := synth[len(synth)-1]
		ts = append(ts,
			targetCheck{fmt.Sprintf("%d tools generated in < %s", big.tools, fmtDuration(maxGenNs)),
				fmt.Sprintf("%s, %.2f× the target (CPU %s)", fmtDuration(big.genNs), big.genNs/maxGenNs, fmtDuration(big.cpuNs)), big.genNs < maxGenNs},
			targetCheck{fmt.Sprintf("peak RSS generating %d tools < %s", big.tools, fmtBytes(maxGenRSS)),
				fmt.Sprintf("%s, %.2f× the target", fmtBytes(float64(big.maxRSS)), float64(big.maxRSS)/maxGenRSS), big.maxRSS > 0 && float64(big.maxRSS) < maxGenRSS})
		for _, small := range synth[:len(synth)-1] {
			linear := float64(big.tools) / float64(small.tools)
			got := big.genNs / small.genNs
			ts = append(ts, targetCheck{fmt.Sprintf("generation time %d→%d tools grows ≤ linearly (≤ %.0f×)", small.tools, big.tools, linear),
				fmt.Sprintf("%.1f×", got), got <= linear*1.1})
		}
	}
	if len(rs) == 0 {
		return ts
	}
	ok, msg := true, "all compile"
	for _, r := range rs {
		if !r.compileOK {
			ok, msg = false, r.name+": "+r.compileMsg
		}
	}
	return append(ts, targetCheck{"every generated package compiles", msg, ok})
}
