package runtime

// ServerTools are the tools of one server of a Multi, such as a generated
// package's MCPTools(), under the server's name in the Multi.
type ServerTools struct {
	Server string
	Tools  []Tool
}

// CombineTools names the tools of several servers for one model the way a
// Multi names them: a tool keeps its own name unless another server has a
// tool of the same name, or another tool is exposed under that name, and is
// then "<server>__<tool>". So the packages
// generated for different servers can make one toolset, with a Multi over
// the same servers as its Caller (see ExposedTools). A Multi reaches a
// prefixed name on its server even when its own listing finds no clash; a
// name left unprefixed reaches its tool as long as no other server lists a
// tool of that name, which holds while the snapshots match the servers.
// A tool a server lists twice is taken once, as first listed. The server
// names follow the rules of Server.Name.
func CombineTools(servers ...ServerTools) []MultiTool {
	// A server that lists a name twice has one tool of that name, the
	// first, which is the one a call reaches.
	var all []MultiTool
	count := make(map[string]int)
	for _, s := range servers {
		seen := make(map[string]bool, len(s.Tools))
		for _, t := range s.Tools {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			count[t.Name]++
			all = append(all, MultiTool{Tool: t, Server: s.Server, Exposed: t.Name})
		}
	}
	for i := range all {
		if mt := &all[i]; count[mt.Name] > 1 {
			mt.Exposed = mt.Server + MultiSeparator + mt.Name
		}
	}
	// A prefixed name may be another tool's own name ("b__x" beside
	// server b's clashing x): that tool is prefixed too. Prefixed names
	// never clash with one another, since no server name holds the
	// separator or ends in "_" (ConnectMulti refuses them), so each round
	// prefixes at least one more tool until no name is exposed twice.
	for {
		exposed := make(map[string]int, len(all))
		for i := range all {
			exposed[all[i].Exposed]++
		}
		changed := false
		for i := range all {
			if mt := &all[i]; mt.Exposed == mt.Name && exposed[mt.Exposed] > 1 {
				mt.Exposed = mt.Server + MultiSeparator + mt.Name
				changed = true
			}
		}
		if !changed {
			return all
		}
	}
}

// ExposedTools returns the tools under the names a Multi calls them by
// (MultiTool.Exposed), ready for a provider toolset whose Caller is the
// Multi:
//
//	toolset, err := gemini.NewToolset(multi, runtime.ExposedTools(multi.Tools()), nil)
//
// A Confirmation on such a toolset names tools by these names too.
func ExposedTools(tools []MultiTool) []Tool {
	out := make([]Tool, len(tools))
	for i, mt := range tools {
		out[i] = mt.Tool
		out[i].Name = mt.Exposed
	}
	return out
}
