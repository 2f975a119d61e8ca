package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
)

// checkTools parses --tools and --exclude-tools into g.filter. A malformed
// glob is a usage error naming its flag.
func (g *genFlags) checkTools() error {
	g.filter = runtime.ToolFilter{Include: splitGlobs(g.tools), Exclude: splitGlobs(g.excludeTools)}
	if err := g.filter.Check(); err != nil {
		flagName := "--tools"
		var pe *runtime.ToolPatternError
		if errors.As(err, &pe) && pe.Kind == "exclude" {
			flagName = "--exclude-tools"
		}
		return usagef("generate: %s: %v", flagName, err)
	}
	g.pinnedGlobs = splitGlobs(g.pinned)
	if err := ir.CheckPinned(g.pinnedGlobs); err != nil {
		return usagef("generate: --pinned: %v", err)
	}
	return nil
}

// splitGlobs splits a comma-separated list of globs, dropping blanks.
func splitGlobs(list string) []string {
	var out []string
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// configWarn returns the warning printer for server s of the config file at
// path: a warning about one of its tools patterns names the pattern's line.
func configWarn(e *env, path string, s *config.Server) func(generator.Warning) {
	return func(w generator.Warning) {
		fmt.Fprint(e.stderr, "mcpgen: warning: ")
		if w.Pattern != nil {
			if line := s.Tools.Line(w.Pattern.Kind, w.Pattern.Pattern); line > 0 {
				fmt.Fprintf(e.stderr, "%s:%d: ", path, line)
			}
		}
		fmt.Fprintf(e.stderr, "server %s: %s\n", s.Name, w.Msg)
	}
}
