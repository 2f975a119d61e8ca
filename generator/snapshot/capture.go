package snapshot

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// Capture lists what the server of s offers and returns it as a snapshot
// with the header of a canonical one: the tools, and its prompts and its
// resource templates, every page of each, listed when the server declares
// the prompts or resources capability and empty otherwise. A server that declares a
// capability but answers that it has no such list method lists none.
// source is the capture command or URL, which must already have its
// secrets removed.
func Capture(ctx context.Context, s *runtime.Session, source string) (*Snapshot, error) {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the tools of %s: %w", source, err)
	}
	info := s.ServerInfo()
	snap := FromRuntime(Server{Name: info.Name, Version: info.Version}, s.ProtocolVersion(), source, tools)
	// The lists are recorded even when empty, so that a snapshot without
	// them is one taken before mcpgen captured them.
	snap.Prompts, snap.ResourceTemplates = []Prompt{}, []ResourceTemplate{}
	caps := s.Capabilities()
	if caps.Prompts {
		prompts, err := s.ListPrompts(ctx)
		if err != nil && !isMethodNotFound(err) {
			return nil, fmt.Errorf("listing the prompts of %s: %w", source, err)
		}
		for _, p := range prompts {
			snap.Prompts = append(snap.Prompts, Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments, Raw: p.Raw})
		}
	}
	if caps.Resources {
		templates, err := s.ListResourceTemplates(ctx)
		if err != nil && !isMethodNotFound(err) {
			return nil, fmt.Errorf("listing the resource templates of %s: %w", source, err)
		}
		for _, t := range templates {
			snap.ResourceTemplates = append(snap.ResourceTemplates, ResourceTemplate{Name: t.Name, Title: t.Title, Description: t.Description,
				URITemplate: t.URITemplate, MIMEType: t.MIMEType, Raw: t.Raw})
		}
	}
	return snap, nil
}

func isMethodNotFound(err error) bool {
	var rpc *runtime.RPCError
	return errors.As(err, &rpc) && rpc.Code == runtime.CodeMethodNotFound
}
