package cli

import (
	"strings"
	"testing"
)

// TestHelpTopics prints the help command's own usage for "help help", and
// refuses an unknown topic with a usage error that names it and lists the
// commands.
func TestHelpTopics(t *testing.T) {
	code, stdout, stderr := runCLI(t, "help", "help")
	if code != 0 || !strings.Contains(stdout, "Usage: mcpgen help [COMMAND]") || stderr != "" {
		t.Errorf("help help: exit %d, stdout %q, stderr %q; want exit 0 and the help command's usage", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "help", "nosuchcommand")
	if code != 2 || stdout != "" || !strings.Contains(stderr, `unknown command "nosuchcommand"`) {
		t.Errorf("help nosuchcommand: exit %d, stdout %q, stderr %q; want exit 2 naming the command", code, stdout, stderr)
	}
	for _, c := range commands {
		if !strings.Contains(stderr, "\t"+c.name+" ") {
			t.Errorf("help nosuchcommand does not list %s:\n%s", c.name, stderr)
		}
	}
}
