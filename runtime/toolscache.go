package runtime

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Caching of tools/list results (2026-07-28): a result carries ttlMs, how
// long it stays fresh, and cacheScope, "public" when any client may share
// it and "private" when it holds for one authorization context only.
// ListTools serves a fresh listing again instead of asking the server; a
// notifications/tools/list_changed makes it stale at once.

// maxToolsTTL bounds how long a listing is served from the cache, whatever
// ttlMs says, so that a Session with no subscription to list changes still
// sees them within this time.
const maxToolsTTL = time.Hour

// toolsCache is a complete tool listing, every page of it, kept for reuse.
type toolsCache struct {
	tools   []Tool
	expires time.Time // when the first of its pages goes stale
	private bool      // some page's cacheScope is not "public"
	gen     uint64    // Session.toolsGen when the listing started
	authGen uint64    // the authorization context it was listed under
}

// pageCaching is what one tools/list page says of caching.
type pageCaching struct {
	ttl    time.Duration // 0: stale at once
	public bool
}

// decode reads the ttlMs or cacheScope member key of a result, of value v,
// into pc. A ttlMs that is absent, negative or not an integer leaves the page
// stale at once; one beyond maxToolsTTL counts as maxToolsTTL.
func (pc *pageCaching) decode(key string, v []byte) {
	switch key {
	case "ttlMs":
		ms, ok := jsonrpc.Int(v)
		if !ok {
			// Too many digits for an int64, or for a float64 (1e400), is
			// more than maxToolsTTL.
			if f, err := strconv.ParseFloat(string(v), 64); (err == nil || errors.Is(err, strconv.ErrRange)) && f >= float64(maxToolsTTL/time.Millisecond) {
				ms, ok = int64(maxToolsTTL/time.Millisecond), true
			}
		}
		switch {
		case !ok || ms <= 0:
			pc.ttl = 0
		case ms >= int64(maxToolsTTL/time.Millisecond):
			pc.ttl = maxToolsTTL
		default:
			pc.ttl = time.Duration(ms) * time.Millisecond
		}
	case "cacheScope":
		scope, err := jsonrpc.String(v)
		pc.public = err == nil && scope == "public"
	}
}

// authGeneration returns the authorization context of the connection's
// requests; 0 for a connection without credentials that change.
func (s *Session) authGeneration() uint64 {
	if s.cc.AuthGeneration == nil {
		return 0
	}
	return s.cc.AuthGeneration()
}

// cachedTools returns a copy of the cached listing while it is fresh, was
// not invalidated since, and, when private, was listed under the current
// authorization context.
func (s *Session) cachedTools() ([]Tool, bool) {
	c := s.toolsCache.Load()
	if c == nil || c.gen != s.toolsGen.Load() || !time.Now().Before(c.expires) ||
		c.private && c.authGen != s.authGeneration() {
		return nil, false
	}
	return slices.Clone(c.tools), true
}

// invalidateTools makes the cached listing stale, and any listing under way
// uncacheable. It also forgets which tools must run as tasks, which the next
// call that needs to know learns from a new listing.
func (s *Session) invalidateTools() {
	s.toolsGen.Add(1)
	s.toolsCache.Store(nil)
	s.taskSupport.Store(nil)
}
