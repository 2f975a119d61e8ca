package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
)

// TestSyntheticTools checks that the synthetic snapshots are deterministic,
// have the size asked for, and that the generator accepts them.
func TestSyntheticTools(t *testing.T) {
	for _, n := range []int{1, 17, 64} {
		data := syntheticTools(n)
		if !bytes.Equal(data, syntheticTools(n)) {
			t.Fatalf("syntheticTools(%d) differs between calls", n)
		}
		var v struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Tools) != n {
			t.Fatalf("syntheticTools(%d) has %d tools", n, len(v.Tools))
		}
		dir := t.TempDir()
		snap := filepath.Join(dir, "tools.json")
		if err := os.WriteFile(snap, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := generator.Generate(generator.Config{Snapshot: snap, Options: generator.Options{Package: "synth"}})
		if err != nil {
			t.Fatalf("generating %d synthetic tools: %v", n, err)
		}
		if len(files) == 0 {
			t.Fatalf("generating %d synthetic tools wrote no files", n)
		}
	}
	if out := os.Getenv("MCPBENCH_WRITE_SYNTHETIC"); out != "" {
		os.WriteFile(out, syntheticTools(2000), 0o644)
	}
}

// TestKindWeights checks that the weights cover every kind and add up to a
// thousand, so that pickKind draws each kind at its stated rate.
func TestKindWeights(t *testing.T) {
	if len(kindWeights) != len(propertyKinds) {
		t.Fatalf("%d weights for %d property kinds", len(kindWeights), len(propertyKinds))
	}
	sum := 0
	for _, w := range kindWeights {
		sum += w
	}
	if sum != 1000 {
		t.Fatalf("the weights add up to %d, want 1000", sum)
	}
	counts := make([]int, len(propertyKinds))
	const n = 100000
	for i := range n {
		counts[pickKind(i/7, i%7)]++
	}
	for k, w := range kindWeights {
		got := float64(counts[k]) / n * 1000
		if got < float64(w)*0.7-2 || got > float64(w)*1.3+2 {
			t.Errorf("kind %d drawn %.1f times per thousand, want about %d", k, got, w)
		}
	}
}
