package runtime

import (
	"sync"
	"time"
)

// A server that offers no stream for server-initiated messages answers the
// GET that would open it with 405 Method Not Allowed, whatever the session:
// it is a property of the endpoint. noGetStream remembers, per endpoint
// key (see endpointKey), when a server last answered so, and the legacy
// sessions that connect to the endpoint within noGetStreamTTL of that do
// not send the GET: a request the server would refuse, which costs it work
// alongside the session's first requests and, for a server that gives
// session ids, a round trip before them. After noGetStreamTTL a session
// asks again, so that a server that starts offering the stream is heard.
var noGetStream = struct {
	mu sync.Mutex
	m  map[string]time.Time // endpoint key → when the server last answered 405
}{m: make(map[string]time.Time)}

// noGetStreamTTL is how long a 405 to the GET is believed.
const noGetStreamTTL = 5 * time.Minute

// maxNoGetStream bounds the endpoints noGetStream remembers; when it is
// full, a new endpoint replaces an arbitrary one, whose next session sends
// the GET once more.
const maxNoGetStream = 1024

// offersNoGetStream reports whether the endpoint key answered the GET with
// 405 within noGetStreamTTL.
func offersNoGetStream(key string) bool {
	if key == "" {
		return false
	}
	noGetStream.mu.Lock()
	defer noGetStream.mu.Unlock()
	at, ok := noGetStream.m[key]
	if ok && time.Since(at) >= noGetStreamTTL {
		delete(noGetStream.m, key)
		return false
	}
	return ok
}

// rememberNoGetStream records that the endpoint key answered the GET with
// 405.
func rememberNoGetStream(key string) {
	if key == "" {
		return
	}
	noGetStream.mu.Lock()
	defer noGetStream.mu.Unlock()
	putBounded(noGetStream.m, key, time.Now(), maxNoGetStream)
}

// forgetNoGetStream removes what noGetStream remembers about the endpoint
// key, once its server opened the stream after all.
func forgetNoGetStream(key string) {
	if key == "" {
		return
	}
	noGetStream.mu.Lock()
	defer noGetStream.mu.Unlock()
	delete(noGetStream.m, key)
}
