package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Root is a directory or file the client lets the server work in.
type Root struct {
	// URI is a file:// URI.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootsHandler returns the client's current roots (roots/list).
type RootsHandler func(ctx context.Context) ([]Root, error)

// listRoots runs the roots handler.
func (s *Session) listRoots(ctx context.Context) ([]byte, error) {
	roots, err := runHandler(ctx, s.opts.HandlerTimeout, "roots/list", s.opts.Roots)
	if err != nil {
		return nil, fmt.Errorf("roots handler: %w", err)
	}
	if roots == nil {
		roots = []Root{}
	}
	return json.Marshal(struct {
		Roots []Root `json:"roots"`
	}{roots})
}

// NotifyRootsChanged tells the server that the roots changed
// (notifications/roots/list_changed). It needs Options.Roots. In the
// 2026-07-28 era, which has no such notification, it does nothing: the roots
// are asked for with each call that needs them.
func (s *Session) NotifyRootsChanged(ctx context.Context) error {
	if s.opts.Roots == nil {
		return errors.New("notifying a roots change: Options.Roots is not set")
	}
	st := s.state.Load()
	if !st.legacy {
		return nil
	}
	return s.notify(ctx, st, "notifications/roots/list_changed", []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
}
