package runtime

import "sync"

// endpointMemory remembers a value per endpoint key (see endpointKey) for
// the life of the process: what a Streamable HTTP server showed of itself
// that later sessions to the same endpoint can rely on. It holds at most max
// endpoints; when it is full, a new endpoint replaces an arbitrary one,
// which costs that endpoint's next session what it would have saved. The
// empty key, of an endpoint that must be asked each time, is never
// remembered.
type endpointMemory[V any] struct {
	mu  sync.Mutex
	m   map[string]V
	max int
}

func newEndpointMemory[V any](max int) *endpointMemory[V] {
	return &endpointMemory[V]{m: make(map[string]V), max: max}
}

// get returns the value remembered for key.
func (e *endpointMemory[V]) get(key string) (V, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.m[key]
	return v, ok
}

// put remembers v for key.
func (e *endpointMemory[V]) put(key string, v V) {
	if key == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.m[key]; !ok && len(e.m) >= e.max {
		for k := range e.m {
			delete(e.m, k)
			break
		}
	}
	e.m[key] = v
}

// forget removes what is remembered for key.
func (e *endpointMemory[V]) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}
