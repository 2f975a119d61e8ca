package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// A Connect to a Streamable HTTP endpoint in the 2026-07-28 era waited for
// the server/discover round trip before it returned, every time, although
// the era is a property of the server: a second Session to the same
// endpoint took two round trips to list the tools where a client that
// knows the era takes one. Now the era is remembered per endpoint, and the
// second Session sends tools/list without the probe, which goes out when
// the capabilities are asked for; they and the server info come from the
// probe's answer, and a tools/call waits for it.
func TestCachedModernEraListsWithoutWaitingForDiscover(t *testing.T) {
	modern := newStreamableServer(t, true, false)
	var second atomic.Bool
	listed := make(chan struct{})
	var listedOnce sync.Once
	var answeredAfterList atomic.Bool
	var discoverAnswered, callArrived atomic.Int64 // Unix nanoseconds
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if second.Load() {
			switch r.Header.Get("Mcp-Method") {
			case "tools/list":
				listedOnce.Do(func() { close(listed) })
			case "server/discover":
				// Answer the probe only once tools/list has arrived,
				// or after 30 s when the client waits for the probe
				// (a loaded machine may take seconds to send the
				// listing); then a little later, so that a tools/call
				// that does not wait for the answer would come first.
				select {
				case <-listed:
					answeredAfterList.Store(true)
				case <-time.After(30 * time.Second):
				}
				time.Sleep(200 * time.Millisecond)
				discoverAnswered.Store(time.Now().UnixNano())
			case "tools/call":
				callArrived.Store(time.Now().UnixNano())
			}
		}
		modern.serve(w, r)
	})
	url := srv.URL + "/mcp"
	t.Cleanup(func() { eras.forget(endpointKey(url)) })

	rememberEraOf(t, url, checkEcho)

	second.Store(true)
	n := len(postMethods(srv))
	ctx := testenv.Context(t)
	start := time.Now()
	s := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 1 {
		t.Fatalf("ListTools = %d tools, %v", len(tools), err)
	}
	elapsed := time.Since(start)
	if caps := s.Capabilities(); !caps.Tools {
		t.Errorf("Capabilities = %+v, want the tools capability of the server/discover result", caps)
	}
	if !answeredAfterList.Load() {
		t.Errorf("tools/list waited for the answer to server/discover (connect and list took %v); want it sent alongside the probe", elapsed)
	}
	if info := s.ServerInfo(); info.Name != "modern-test" {
		t.Errorf("ServerInfo = %+v, want the server/discover result's", info)
	}
	if v := s.ProtocolVersion(); v != "2026-07-28" {
		t.Errorf("ProtocolVersion = %q, want 2026-07-28", v)
	}
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil || res.Text() != "Echo: hi" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	methods := postMethods(srv)[n:]
	want := map[string]int{"server/discover": 1, "tools/list": 1, "tools/call": 1}
	got := map[string]int{}
	for _, m := range methods {
		got[m]++
	}
	for m, k := range want {
		if got[m] != k {
			t.Errorf("the second Session POSTed %v; want %s %d time(s)", methods, m, k)
		}
	}
	if callArrived.Load() < discoverAnswered.Load() {
		t.Errorf("tools/call arrived %v before the answer to server/discover; want it to wait for the answer",
			time.Duration(discoverAnswered.Load()-callArrived.Load()))
	}
}

// A server remembered as modern that has become a legacy one (the same URL
// now served by an older release) refuses the listing sent under the
// remembered era. The probe sent alongside it finds the server is not
// modern: the Session forgets the endpoint's era, runs the initialize
// handshake, and lists the tools again under the legacy era; the next
// Session probes before its first request.
func TestWrongCachedEraProbesAgain(t *testing.T) {
	srv, url, isLegacy := eraSwitchingServer(t)

	rememberEraOf(t, url, checkEcho)

	isLegacy.Store(true)
	n, np := len(srv.requests()), len(postMethods(srv))
	s := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	checkEcho(t, s)
	if v := s.ProtocolVersion(); v != "2025-06-18" {
		t.Errorf("ProtocolVersion = %q, want the legacy server's 2025-06-18", v)
	}
	reqs := srv.requests()[n:]
	methods := postMethods(srv)[np:]
	var modernList, legacyList, initialize bool
	for _, r := range reqs {
		switch methodOf(r.Body) {
		case "tools/list":
			if r.Header.Get("Mcp-Protocol-Version") == "2026-07-28" {
				modernList = true
			} else if r.Header.Get("Mcp-Session-Id") != "" {
				legacyList = true
			}
		case "initialize":
			initialize = true
		}
	}
	if !modernList {
		t.Errorf("the second Session POSTed %v; want a tools/list under the remembered era first", methods)
	}
	if !initialize || !legacyList {
		t.Errorf("the second Session POSTed %v; want the handshake, then tools/list in its session", methods)
	}
	if v := cachedEra(endpointKey(url)); v != "" {
		t.Errorf("the era remembered after the probe found a legacy server is %q, want none", v)
	}
	s.Close()

	np = len(postMethods(srv))
	third := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	checkEcho(t, third)
	if methods := postMethods(srv)[np:]; len(methods) == 0 || methods[0] != "server/discover" {
		t.Errorf("the third Session POSTed %v; want the server/discover probe first", methods)
	}
}

// A Session closed while its era check's probe was still unanswered, as one
// that lists the tools and closes at once may be, made the process forget
// the endpoint's era: the next Session probed first again. Closing tells
// nothing about the server, and now the era stays remembered.
func TestClosingDuringEraCheckKeepsEra(t *testing.T) {
	modern := newStreamableServer(t, true, false)
	var hold atomic.Bool
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() && r.Header.Get("Mcp-Method") == "server/discover" {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(3 * time.Second):
			}
		}
		modern.serve(w, r)
	})
	url := srv.URL + "/mcp"
	key := endpointKey(url)
	t.Cleanup(func() { eras.forget(key) })

	rememberEraOf(t, url, nil)
	hold.Store(true)
	s := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	ctx := testenv.Context(t)
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	s.Close()
	if v := cachedEra(key); v != "2026-07-28" {
		t.Errorf("the era remembered after a Session closed during its probe is %q, want 2026-07-28", v)
	}
}

// With the era remembered, listings go out without the probe; a Session
// that asks for the capabilities, or calls a tool, sends it then and waits
// for its answer, which would otherwise never come.
func TestCachedModernEraProbesForWhatNeedsIt(t *testing.T) {
	srv := newStreamableServer(t, true, false)
	url := srv.URL + "/mcp"
	t.Cleanup(func() { eras.forget(endpointKey(url)) })
	rememberEraOf(t, url, nil)

	s := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	done := make(chan ServerCapabilities, 1)
	go func() { done <- s.Capabilities() }()
	select {
	case caps := <-done:
		if !caps.Tools {
			t.Errorf("Capabilities = %+v, want the tools capability of the server/discover result", caps)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("Capabilities did not return: the probe was never sent")
	}
	s.Close()

	n := len(postMethods(srv.httpServer))
	s = connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	ctx := testenv.Context(t)
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil || res.Text() != "Echo: hi" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	methods := postMethods(srv.httpServer)[n:]
	discover, call := -1, -1
	for i, m := range methods {
		switch m {
		case "server/discover":
			discover = i
		case "tools/call":
			call = i
		}
	}
	if discover < 0 || call < discover {
		t.Errorf("a Session calling a tool first POSTed %v; want server/discover before tools/call", methods)
	}
}

// A Session whose endpoint was remembered as modern, but now serves a
// legacy server, and whose first act was a tools/call, listed the tools
// first to learn their x-mcp-header annotations; the listing, sent again
// after the fallback to the handshake, left the Session in the legacy era
// with no annotations learnt, and the call dereferenced the missing table
// and panicked. Now the call goes out without Mcp-Param-* headers, as in
// the legacy era.
func TestWrongCachedEraCallFirst(t *testing.T) {
	_, url, isLegacy := eraSwitchingServer(t)
	rememberEraOf(t, url, nil)

	isLegacy.Store(true)
	s := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	ctx := testenv.Context(t)
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil || res.Text() != "Echo: hi" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	if v := s.ProtocolVersion(); v != "2025-06-18" {
		t.Errorf("ProtocolVersion = %q, want the legacy server's 2025-06-18", v)
	}
}

// Every server that testenv starts for these tests begins with nothing
// remembered of its origin.
func init() {
	testenv.OnServe = forgetErasOf
}

// forgetErasOf removes what the process remembers of every endpoint of the
// server at serverURL, whatever its path. A test server may get the port
// of one an earlier test closed, whose era would otherwise apply to it.
func forgetErasOf(serverURL string) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return
	}
	origin := endpointKey(u.Scheme + "://" + u.Host)
	forgetUnder(eras, origin)
	forgetUnder(noGetStream, origin)
	forgetUnder(getStreamOffered, origin)
}

// forgetUnder removes what e remembers of the endpoint origin and of the
// endpoints below it.
func forgetUnder[V any](e *endpointMemory[V], origin string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := range e.m {
		if k == origin || strings.HasPrefix(k, origin+"/") {
			delete(e.m, k)
		}
	}
}

// eraSwitchingServer serves a 2026-07-28 server at url until
// isLegacy is set, and a legacy one after, as an endpoint whose server was
// replaced by an older release would. What the process remembers of the
// endpoint is forgotten when the test ends.
func eraSwitchingServer(t *testing.T) (srv *httpServer, url string, isLegacy *atomic.Bool) {
	modern := newStreamableServer(t, true, false)
	legacy := newStreamableServer(t, false, false)
	isLegacy = new(atomic.Bool)
	srv = newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if isLegacy.Load() {
			legacy.serve(w, r)
			return
		}
		modern.serve(w, r)
	})
	url = srv.URL + "/mcp"
	t.Cleanup(func() { eras.forget(endpointKey(url)) })
	return srv, url, isLegacy
}

// rememberEraOf connects a first Session to the modern server at url, hands
// it to use unless use is nil, closes it, and checks that the endpoint's
// era is remembered.
func rememberEraOf(t *testing.T, url string, use func(*testing.T, *Session)) {
	t.Helper()
	first := connectHTTP(t, StreamableHTTP(url, testHTTPOptions(t)))
	if use != nil {
		use(t, first)
	}
	first.Close()
	if v := cachedEra(endpointKey(url)); v != "2026-07-28" {
		t.Fatalf("the era remembered after the first Session is %q, want 2026-07-28", v)
	}
}

// A Session pinned to 2026-07-28, to an endpoint not remembered (the first
// Session of a fresh process), waited for the server/discover round trip
// before its first listing, where a client that knows the era lists at
// once: the pin says what the probe would confirm. Now its first request
// is the listing, and the probe goes out when something needs its answer.
func TestPinnedModernEraListsFirst(t *testing.T) {
	srv := newStreamableServer(t, true, false)
	url := srv.URL + "/mcp"
	eras.forget(endpointKey(url))
	t.Cleanup(func() { eras.forget(endpointKey(url)) })
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(url, testHTTPOptions(t)), &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if tools, err := s.ListTools(ctx); err != nil || len(tools) != 1 {
		t.Fatalf("ListTools = %d tools, %v", len(tools), err)
	}
	if got := postMethods(srv.httpServer); len(got) != 1 || got[0] != "tools/list" {
		t.Fatalf("requests before and with the first listing: %v; want only tools/list", got)
	}
	if v := s.ProtocolVersion(); v != "2026-07-28" || !s.Capabilities().Tools {
		t.Errorf("after the probe: version %q, capabilities %+v", v, s.Capabilities())
	}
	if got := postMethods(srv.httpServer); len(got) != 2 || got[1] != "server/discover" {
		t.Errorf("requests: %v; want the probe after the listing", got)
	}
}

// TestPinnedModernEraListsAllFirst checks what Connect's doc promises of
// every listing, not tools/list alone: a Session pinned to 2026-07-28 sends
// prompts/list, resources/list and resources/templates/list without waiting
// for the server/discover probe. They waited for its answer before.
func TestPinnedModernEraListsAllFirst(t *testing.T) {
	results := map[string]string{
		"prompts/list":             `{"resultType":"complete","prompts":[{"name":"p"}]}`,
		"resources/list":           `{"resultType":"complete","resources":[{"uri":"file:///a","name":"a"}]}`,
		"resources/templates/list": `{"resultType":"complete","resourceTemplates":[{"uriTemplate":"file:///{x}","name":"t"}]}`,
		"server/discover":          `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"prompts":{},"resources":{}}}`,
	}
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		res, ok := results[m.Method]
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
	})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p, err := s.ListPrompts(ctx); err != nil || len(p) != 1 {
		t.Fatalf("ListPrompts = %v, %v", p, err)
	}
	if r, err := s.ListResources(ctx); err != nil || len(r) != 1 {
		t.Fatalf("ListResources = %v, %v", r, err)
	}
	if r, err := s.ListResourceTemplates(ctx); err != nil || len(r) != 1 {
		t.Fatalf("ListResourceTemplates = %v, %v", r, err)
	}
	want := []string{"prompts/list", "resources/list", "resources/templates/list"}
	if got := postMethods(srv); !slices.Equal(got, want) {
		t.Errorf("requests: %v; want %v, with no probe before them", got, want)
	}
}
