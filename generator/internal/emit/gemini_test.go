package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	"github.com/mcpgen/mcpgen/runtime/mcpimpl"
)

// TestDeclarationTextsReadBack checks, for every tool of the corpus (the
// real servers, the golden cases and the other snapshots in testdata) in
// both forms, that the JSON text the generator writes for a Gemini
// declaration is, byte for byte, encoding/json's text of the
// genai.FunctionDeclaration runtime/gemini.Declarations makes of the tool,
// and that it decodes, as the generated FunctionDeclarations decodes it,
// to a declaration that encodes to the same text: the generated code
// returns what a program would make at run time. Generation itself no
// longer checks this for every declaration.
func TestDeclarationTextsReadBack(t *testing.T) {
	paths, err := filepath.Glob("../../../testdata/servers/*.json")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob("../../../testdata/golden/*/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, cases...)
	paths = append(paths, "../../../testdata/homeassistant-tools-list.json", "../../../testdata/everything-tools.json",
		"../../../testdata/sdkserver-tools.json", "../../../testdata/schematable/tools.json", "../../../internal/testing/providertest/testdata/survey-tools.json")
	checked := 0
	for _, path := range paths {
		if b := filepath.Base(path); b == "package.json" || b == "package-lock.json" {
			continue
		}
		snap, err := snapshot.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, jsonForm := range []bool{false, true} {
			decls, _, err := gemini.Declarations(snap.RuntimeTools(), &gemini.DeclarationOptions{JSONSchema: jsonForm})
			made := makeGeminiDecls(snap.RuntimeTools(), snap.Inputs(), jsonForm)
			if (err == nil) != (made.err == nil) || err != nil && err.Error() != made.err.Error() {
				t.Errorf("%s (json form %v): the generator's declarations fail with %v, runtime/gemini's with %v", path, jsonForm, made.err, err)
			}
			if err != nil {
				// A server whose declarations cannot be made is not
				// generated either.
				continue
			}
			for i, d := range decls {
				want, err := declarationText(d)
				if err != nil {
					t.Errorf("%s: %s: %v", path, d.Name, err)
					continue
				}
				text := made.texts[i]
				if text != want {
					t.Errorf("%s (json form %v): the generator's text of %s is not encoding/json's:\n%s\n%s", path, jsonForm, d.Name, text, want)
					continue
				}
				if err := readsBack(text); err != nil {
					t.Errorf("%s (json form %v): %v", path, jsonForm, err)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("checked %d declarations, want the corpus's thousands", checked)
	}
}

// TestReadsBackRejectsALossyText checks that readsBack finds a text that
// does not decode to itself.
func TestReadsBackRejectsALossyText(t *testing.T) {
	// An unknown field is dropped by the decoder, so the text comes back
	// without it.
	if err := readsBack(`{"name":"f","unknownField":1}`); err == nil {
		t.Fatal("readsBack accepted a text with a field the declaration does not have")
	}
	if err := readsBack(`{"name":"f"}`); err != nil {
		t.Fatal(err)
	}
}

// declarationText encodes d as encoding/json does, compactly, leaving <, >
// and & as they are: the text the generator must write for d.
func declarationText(d *genai.FunctionDeclaration) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// readsBack checks that text decodes, as the generated code decodes it, to
// a declaration that encodes to text again.
func readsBack(text string) error {
	var back genai.FunctionDeclaration
	if err := mcpimpl.DecodeLiteral(text, &back); err != nil {
		return err
	}
	again, err := declarationText(&back)
	if err != nil {
		return err
	}
	if again != text {
		return fmt.Errorf("the declaration of %q does not decode back to itself:\n%s\n%s", back.Name, text, again)
	}
	return nil
}

// TestEarlyGeminiIsTakenOnlyForTheSameTools checks that the declarations
// StartGemini begins before the IR's build are taken when the package holds
// the same tools, and not when a tool was left out or the form differs,
// and that the files are the same either way.
func TestEarlyGeminiIsTakenOnlyForTheSameTools(t *testing.T) {
	good := `{"name":"%s","description":"D %s.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	// An enum without values is one draft-07's meta-schema rejects, so
	// the tool is left out of the package with a warning.
	bad := `{"name":"broken","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"m":{"enum":[]}},"required":["m"]}}`
	all := fmt.Sprintf(`{"tools":[%s,%s,%s]}`, fmt.Sprintf(good, "zeta", "zeta"), bad, fmt.Sprintf(good, "alpha", "alpha"))
	cases := []struct {
		name, snapshot string
		form           string
		taken          bool
	}{
		{"same tools", fmt.Sprintf(`{"tools":[%s,%s]}`, fmt.Sprintf(good, "zeta", "zeta"), fmt.Sprintf(good, "alpha", "alpha")), ir.GeminiTyped, true},
		{"same tools, json form", fmt.Sprintf(`{"tools":[%s,%s]}`, fmt.Sprintf(good, "zeta", "zeta"), fmt.Sprintf(good, "alpha", "alpha")), ir.GeminiJSON, true},
		{"a tool left out", all, ir.GeminiTyped, false},
	}
	for _, c := range cases {
		snap, err := snapshot.Read("t.json", []byte(c.snapshot))
		if err != nil {
			t.Fatal(err)
		}
		opts := ir.Options{Package: "p", Gemini: c.form}
		early := StartGemini(snap.RuntimeTools(), snap.Inputs(), opts)
		if early == nil {
			t.Fatalf("%s: StartGemini began nothing for the default parts", c.name)
		}
		pkg, err := ir.BuildOptions(snap.Tools, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := early.of(pkg.Tools, c.form == ir.GeminiJSON); got != c.taken {
			t.Errorf("%s: early declarations taken = %v, want %v", c.name, got, c.taken)
		}
		if early.of(pkg.Tools, c.form != ir.GeminiJSON) {
			t.Errorf("%s: early declarations taken for the other form", c.name)
		}
		with, err := RenderWith(pkg, opts, early)
		if err != nil {
			t.Fatal(err)
		}
		without, err := Render(pkg, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(with) != len(without) {
			t.Fatalf("%s: %d files with the early declarations, %d without", c.name, len(with), len(without))
		}
		for i := range with {
			if with[i].Name != without[i].Name || string(with[i].Data) != string(without[i].Data) {
				t.Errorf("%s: %s differs with the early declarations", c.name, with[i].Name)
			}
		}
	}
	if StartGemini(nil, nil, ir.Options{Package: "p", Parts: []string{ir.PartTypes}}) != nil {
		t.Error("StartGemini began declarations for a package without the gemini part")
	}
}
