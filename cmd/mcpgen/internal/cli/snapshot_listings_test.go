package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// TestSnapshotListsPromptsAndTemplates captures server-everything with
// mcpgen snapshot, which records its prompts and resource templates, and
// checks the server against a copy that lists a prompt the server does not
// have and lacks one of its templates: check fails on the removed prompt
// and reports the template as added.
func TestSnapshotListsPromptsAndTemplates(t *testing.T) {
	useEverything(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "everything.json")
	if code, _, stderr := runCLI(t, append([]string{"snapshot", "--out", path}, everythingCommand...)...); code != 0 {
		t.Fatalf("capture: status %d, stderr %q", code, stderr)
	}
	snap, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		var out []string
		for _, p := range snap.Prompts {
			out = append(out, p.Name)
		}
		for _, r := range snap.ResourceTemplates {
			out = append(out, r.URITemplate)
		}
		return strings.Join(out, " ")
	}
	if got, want := names(), "args-prompt completable-prompt resource-prompt simple-prompt demo://resource/dynamic/blob/{resourceId} demo://resource/dynamic/text/{resourceId}"; got != want {
		t.Fatalf("captured %q, want %q", got, want)
	}

	snap.Prompts = append(snap.Prompts, snapshot.Prompt{Name: "retired-prompt"})
	snap.ResourceTemplates = snap.ResourceTemplates[:1]
	data, err := snapshot.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "edited.json")
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, append([]string{"check", "--snapshot", edited}, everythingCommand...)...)
	if code != 1 {
		t.Errorf("check: status %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"prompt retired-prompt\n  ERR  GO_API prompt: prompt retired-prompt removed",
		"resource template Dynamic Text Resource\n  INFO        resourceTemplate: resource template Dynamic Text Resource added",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, stdout)
		}
	}
}
