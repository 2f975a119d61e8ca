package emit

import (
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	"github.com/mcpgen/mcpgen/runtime/mcpimpl"
)

// TestDeclarationTextsReadBack checks, for every tool of the corpus (the
// real servers, the golden cases and the other snapshots in testdata) in
// both forms, that the JSON text the generator writes for a Gemini
// declaration decodes, as the generated FunctionDeclarations decodes it,
// to a declaration that encodes to the same text: the generated code
// returns what the generator made. Generation itself no longer checks this
// for every declaration.
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
			if err != nil {
				// A server whose declarations cannot be made is not
				// generated either.
				continue
			}
			for _, d := range decls {
				text, err := declarationText(d)
				if err != nil {
					t.Errorf("%s: %s: %v", path, d.Name, err)
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
