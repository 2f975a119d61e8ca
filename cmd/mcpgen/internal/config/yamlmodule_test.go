package config

import (
	"os/exec"
	"strings"
	"testing"
)

// TestYAMLParserModule checks that the YAML of mcpgen.yaml and of skill
// frontmatter is read with the maintained go.yaml.in/yaml/v3, and that
// nothing of the command or the runtime imports the archived
// gopkg.in/yaml.v3.
func TestYAMLParserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config", "github.com/mcpgen/mcpgen/runtime", "github.com/mcpgen/mcpgen/cmd/mcpgen"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		deps[line] = true
	}
	if !deps["go.yaml.in/yaml/v3"] {
		t.Error("go.yaml.in/yaml/v3 is not imported")
	}
	if deps["gopkg.in/yaml.v3"] {
		t.Error("the archived gopkg.in/yaml.v3 is imported")
	}
}
