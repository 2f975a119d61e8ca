package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/livetest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// liveMessageKind returns the top-level key of a client message.
func liveMessageKind(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		t.Fatalf("client message %s (%v)", raw, err)
	}
	for k := range m {
		return k
	}
	return ""
}

// contextUpdateNames returns the function names a contextUpdate declares.
func contextUpdateNames(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var u struct {
		ContextUpdate struct {
			Tools struct {
				Tools []struct {
					FunctionDeclarations []struct {
						Name string `json:"name"`
					} `json:"functionDeclarations"`
				} `json:"tools"`
			} `json:"tools"`
		} `json:"contextUpdate"`
	}
	if err := json.Unmarshal(raw, &u); err != nil || len(u.ContextUpdate.Tools.Tools) != 1 {
		t.Fatalf("context update %s (%v)", raw, err)
	}
	var names []string
	for _, d := range u.ContextUpdate.Tools.Tools[0].FunctionDeclarations {
		names = append(names, d.Name)
	}
	return names
}

// TestLiveSearchSendsFoundTools: in a Live session in deferred mode over
// server-everything, the setup declares the pinned tool and search_tools;
// a search sends the tools found with one contextUpdate before its
// response; the found tool's call reaches the server; a search that finds
// nothing new sends no update.
func TestLiveSearchSendsFoundTools(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectStdio(t, nil, nil, testenv.Everything(t, "stdio")...)
	ts, err := NewToolset(session, tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	var setup struct {
		Setup struct {
			Tools []struct {
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
		} `json:"setup"`
	}
	if err := json.Unmarshal(r.conn.Setup, &setup); err != nil || len(setup.Setup.Tools) != 1 {
		t.Fatalf("setup %s (%v)", r.conn.Setup, err)
	}
	var declared []string
	for _, d := range setup.Setup.Tools[0].FunctionDeclarations {
		declared = append(declared, d.Name)
	}
	if !slices.Equal(declared, []string{"echo", "search_tools"}) {
		t.Fatalf("the setup declares %q, want echo and search_tools", declared)
	}

	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"s1","name":"search_tools","args":{"query":"sum of two numbers"}}]}}`)
	first := r.conn.Next(t)
	if kind := liveMessageKind(t, first); kind != "contextUpdate" {
		t.Fatalf("after the search the client sent %s first, want the contextUpdate", first)
	}
	if names := contextUpdateNames(t, first); names[0] != "echo" || names[len(names)-1] != "search_tools" || !slices.Contains(names, "get-sum") {
		t.Errorf("the context update declares %q", names)
	}
	if w := decodeResponse(t, r.conn.Next(t)); w.ID != "s1" || !strings.Contains(w.text(), "get-sum") {
		t.Fatalf("the search's response = %+v", w)
	}

	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c1","name":"get-sum","args":{"a":2,"b":3}}]}}`)
	if w := decodeResponse(t, r.conn.Next(t)); w.ID != "c1" || !strings.Contains(w.text(), "The sum of 2 and 3 is 5") {
		t.Fatalf("the call's response = %+v", w)
	}

	// The same search again finds nothing new: no update, the response
	// comes next.
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"s2","name":"search_tools","args":{"query":"sum of two numbers"}}]}}`)
	if next := r.conn.Next(t); liveMessageKind(t, next) != "toolResponse" {
		t.Fatalf("after a search that found nothing new the client sent %s", next)
	}
	r.conn.Close()
	r.wait(t)
}

// TestLiveUpdateKeepsFoundTools: a tool found in a deferred Live session is
// declared with its Live behavior; Update with a toolset from a new listing
// keeps it found while the server still has it, and drops it once it is
// gone.
func TestLiveUpdateKeepsFoundTools(t *testing.T) {
	conn := newMemLiveConn()
	search := &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"switch_on"}}}
	ts, err := NewToolset(memServer{&runtime.Result{}}, loopTools, search)
	if err != nil {
		t.Fatal(err)
	}
	live, err := newLive(conn, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), nil) }()
	defer func() {
		conn.Close()
		<-done
	}()
	conn.in <- toolCall(&genai.FunctionCall{ID: "s", Name: "search_tools", Args: map[string]any{"query": "long job"}})
	if r := conn.next(t); r.ID != "s" {
		t.Fatalf("response %+v", r)
	}
	// The update went out before the response.
	if len(conn.updates) != 1 {
		t.Fatalf("%d context updates, want 1", len(conn.updates))
	}
	decls := conn.updates[0].Tools.Tools[0].FunctionDeclarations
	if got := names(decls); !slices.Equal(got, []string{"switch_on", "long_job", "search_tools"}) {
		t.Fatalf("the update declares %q", got)
	}
	if decls[1].Behavior != genai.BehaviorNonBlocking {
		t.Errorf("long_job, whose tasks are required, is declared %q", decls[1].Behavior)
	}

	relisted, err := NewToolset(memServer{&runtime.Result{}}, append(slices.Clone(loopTools), runtime.Tool{Name: "other"}), search)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := live.Update(relisted); err != nil || sent {
		t.Fatalf("Update with the same declarations: sent %v, %v", sent, err)
	}
	if got := relisted.Found(); !slices.Equal(got, []string{"long_job"}) {
		t.Fatalf("the new toolset found %q", got)
	}
	gone, err := NewToolset(memServer{&runtime.Result{}}, loopTools[:1], search)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := live.Update(gone); err != nil || !sent {
		t.Fatalf("Update without long_job: sent %v, %v", sent, err)
	}
	if got := names(conn.updates[1].Tools.Tools[0].FunctionDeclarations); !slices.Equal(got, []string{"switch_on", "search_tools"}) {
		t.Fatalf("the update declares %q", got)
	}
}

// gatedUpdates is an in-memory Live session whose first context update
// waits for release, after saying so on held.
type gatedUpdates struct {
	*memLiveConn
	held, release chan struct{}
	once          sync.Once
	mu            sync.Mutex
	sent          [][]string // the names each update declares
}

func (c *gatedUpdates) SendContextUpdate(u genai.LiveClientContextUpdate) error {
	c.once.Do(func() {
		close(c.held)
		<-c.release
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, names(u.Tools.Tools[0].FunctionDeclarations))
	return nil
}

// TestLiveSearchDuringUpdateKeepsFind: a search that runs on the toolset
// Update is replacing, while Update sends the new declarations, finds a
// tool the new toolset has too: the new toolset keeps it found, and the
// model gets it declared before the search's response says it is.
func TestLiveSearchDuringUpdateKeepsFind(t *testing.T) {
	conn := &gatedUpdates{memLiveConn: newMemLiveConn(), held: make(chan struct{}), release: make(chan struct{})}
	search := &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"switch_on"}}}
	old, err := NewToolset(memServer{&runtime.Result{}}, loopTools, search)
	if err != nil {
		t.Fatal(err)
	}
	live, err := newLive(conn, old, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), nil) }()
	defer func() {
		conn.Close()
		<-done
	}()

	// The new listing describes switch_on, so Update has declarations to
	// send; it waits while sending them.
	relisted := slices.Clone(loopTools)
	relisted[0].Description = "Switches a device on."
	next, err := NewToolset(memServer{&runtime.Result{}}, relisted, search)
	if err != nil {
		t.Fatal(err)
	}
	updated := make(chan error, 1)
	go func() {
		_, err := live.Update(next)
		updated <- err
	}()
	<-conn.held

	conn.in <- toolCall(&genai.FunctionCall{ID: "s", Name: "search_tools", Args: map[string]any{"query": "long job"}})
	for deadline := time.Now().Add(testenv.WaitLimit(t)); !slices.Contains(old.Found(), "long_job"); {
		if time.Now().After(deadline) {
			t.Fatal("the search found nothing")
		}
		time.Sleep(time.Millisecond)
	}
	close(conn.release)
	if err := <-updated; err != nil {
		t.Fatal(err)
	}
	if r := conn.next(t); r.ID != "s" || !strings.Contains(fmt.Sprint(r.Response), "long_job") {
		t.Fatalf("the search's response = %+v", r)
	}
	if got := next.Found(); !slices.Equal(got, []string{"long_job"}) {
		t.Errorf("the new toolset found %q, want long_job", got)
	}
	conn.mu.Lock()
	last := conn.sent[len(conn.sent)-1]
	conn.mu.Unlock()
	if !slices.Contains(last, "long_job") {
		t.Errorf("the model's declarations are %q, without long_job, which the search's response says is declared", last)
	}
}
