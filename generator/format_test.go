package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/textdiff"
)

// allParts are every part generate can write.
var allParts = ir.Parts

// checkGofmt fails unless every Go file is exactly what gofmt makes of
// it, and every data file is what checkData wants.
func checkGofmt(t *testing.T, label string, files []emit.File) {
	t.Helper()
	for _, f := range goFiles(t, files) {
		want, err := format.Source(f.Data)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", label, f.Name, err)
			continue
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s: %s is not gofmt's output:\n%s", label, f.Name, textdiff.FirstLine(string(want), string(f.Data)))
		}
	}
}

// TestLargeFileDocCommentHeading generates a types.go of more than 1 MiB
// whose doc comments hold a paragraph that gofmt turns into a heading
// ("# Returns the thing"). Such files were formatted with a single pass of
// go/format over jennifer's output, in which the declarations that follow
// their doc comments are indented, so the comments were not formatted as
// doc comments and the file was not what gofmt makes of it.
func TestLargeFileDocCommentHeading(t *testing.T) {
	tools := make([]json.RawMessage, 2500)
	for i := range tools {
		tools[i] = json.RawMessage(fmt.Sprintf(`{"name":"tool_%d","description":"Does thing %d.\n\nReturns the thing\n\nAnd more.",
			"inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"The a."},"b":{"type":"integer"}},"required":["a"]}}`, i, i))
	}
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Read("large.json", data)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(Config{From: snap, Options: Options{Package: "large", Parts: []string{ir.PartTypes}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name == "types.go" && len(f.Data) < 1<<20 {
			t.Fatalf("types.go has %d bytes, want more than 1 MiB", len(f.Data))
		}
	}
	checkGofmt(t, "large.json", files)
}

// TestGeneratedCodeIsGofmtOutput generates every part from every snapshot
// of the corpus (the golden cases, testdata/servers and 2,000 synthetic
// tools) and checks that each file is byte for byte what gofmt makes of
// it.
func TestGeneratedCodeIsGofmtOutput(t *testing.T) {
	servers, err := filepath.Glob("../testdata/servers/*.json")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob("../testdata/golden/*/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	servers = append(servers, cases...)
	servers = append(servers, "../testdata/homeassistant-tools-list.json", "../testdata/everything-tools.json",
		"../testdata/sdkserver-tools.json", "../testdata/schematable/tools.json", "../internal/testing/providertest/testdata/survey-tools.json")
	for _, path := range servers {
		if filepath.Base(path) == "package.json" || filepath.Base(path) == "package-lock.json" {
			continue
		}
		files, err := Generate(Config{Snapshot: path, Options: Options{Package: "p", Parts: allParts}})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		checkGofmt(t, path, files)
	}
	if testing.Short() {
		return
	}
	files, err := Generate(Config{From: syntheticSnapshot(t, 2000), Options: Options{Package: "big", Parts: allParts}})
	if err != nil {
		t.Fatal(err)
	}
	checkGofmt(t, "2000 synthetic tools", files)
}

// goFiles returns the Go files of files, after checking the others with
// checkData.
func goFiles(t *testing.T, files []emit.File) []emit.File {
	t.Helper()
	var out []emit.File
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".go") {
			out = append(out, f)
		} else {
			checkData(t, f)
		}
	}
	return out
}

// checkData fails unless f is a JSON Lines file as the generator writes
// them: DataHeader, then one JSON object a line, each line ended.
func checkData(t *testing.T, f emit.File) {
	t.Helper()
	if !strings.HasSuffix(f.Name, ".jsonl") {
		t.Errorf("%s is neither a Go file nor a JSON Lines file", f.Name)
		return
	}
	header, rest, ok := strings.Cut(string(f.Data), "\n")
	if !ok || header != emit.DataHeader {
		t.Errorf("%s starts with %.80q, want the line %s", f.Name, header, emit.DataHeader)
		return
	}
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		t.Errorf("%s does not end with a line feed", f.Name)
	}
	for i, line := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
		if rest == "" {
			break
		}
		if !strings.HasPrefix(line, "{") || !json.Valid([]byte(line)) {
			t.Errorf("%s: line %d is not a JSON object: %.120s", f.Name, i+2, line)
		}
	}
}
