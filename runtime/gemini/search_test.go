package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// callReply is a model turn with one function call.
func callReply(id, name, args string) string {
	return `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "` + id + `", "name": "` + name + `", "args": ` + args + `}}]}, "finishReason": "STOP"}]}`
}

// declaredNames returns the function names a request body declares.
func declaredNames(t *testing.T, body []byte) []string {
	t.Helper()
	var names []string
	for _, tool := range decodeRequest(t, body).Tools {
		for _, d := range tool.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// TestChatSearchThenCallRealServer: over server-everything with only echo
// pinned, the model searches, the next request declares the tool found,
// the model calls it, the call reaches the server and its result goes back,
// with one model request more than a direct call takes.
func TestChatSearchThenCallRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectStdio(t, nil, nil, testenv.Everything(t, "stdio")...)
	ts, err := NewToolset(session, tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeGemini(t,
		callReply("s1", "search_tools", `{"query": "add two numbers and return the sum"}`),
		callReply("c1", "get-sum", `{"a": 2, "b": 3}`),
		textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "what is 2 + 3?"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	// A direct call takes two requests (the call, the answer); the search
	// adds one.
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if got := declaredNames(t, reqs[0]); !slices.Equal(got, []string{"echo", "search_tools"}) {
		t.Errorf("the first request declares %q, want echo and search_tools", got)
	}
	if got := declaredNames(t, reqs[1]); len(got) < 3 || got[0] != "echo" || got[len(got)-1] != "search_tools" || !slices.Contains(got, "get-sum") {
		t.Errorf("the request after the search declares %q, want echo, the tools found with get-sum, search_tools", got)
	}
	search := lastResponses(t, reqs[1])
	if len(search) != 1 || !strings.Contains(fmt.Sprint(search[0]["output"]), "get-sum") {
		t.Fatalf("the search's response = %v", search)
	}
	sum := lastResponses(t, reqs[2])
	if len(sum) != 1 || !strings.Contains(fmt.Sprint(sum[0]["output"]), "The sum of 2 and 3 is 5") {
		t.Fatalf("the call's response = %v", sum)
	}
	if got := declaredNames(t, reqs[2]); !slices.Contains(got, "get-sum") {
		t.Errorf("the last request no longer declares get-sum: %q", got)
	}
	if got := ts.Found(); !slices.Contains(got, "get-sum") {
		t.Errorf("Found = %q", got)
	}
}

// deviceSearchServer is a server with a pinned read-only tool and two
// deferred ones.
const deviceSearchServer = `[
	{"name": "read_state", "description": "Reads a device's state.", "inputSchema": {"type": "object", "properties": {"device": {"type": "string"}}}, "annotations": {"readOnlyHint": true}},
	{"name": "switch_on", "description": "Switches a device on.", "inputSchema": {"type": "object", "properties": {"device": {"type": "string", "minLength": 1}}, "required": ["device"]}},
	{"name": "set_colour", "description": "Sets the colour of a lamp.", "inputSchema": {"type": "object", "properties": {"colour": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}
]`

func deviceSearchToolset(t *testing.T) (*mcptest.Server, *Toolset) {
	t.Helper()
	srv := mcptest.Start(t, deviceSearchServer)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}})
	if err != nil {
		t.Fatal(err)
	}
	return srv, ts
}

// TestChatSearchFoundToolArgumentsChecked: a found tool's arguments are
// checked against its schema as a pinned tool's are; invalid ones never
// reach the server.
func TestChatSearchFoundToolArgumentsChecked(t *testing.T) {
	srv, ts := deviceSearchToolset(t)
	fake, client := newFakeGemini(t,
		callReply("s1", "search_tools", `{"query": "switch a device on"}`),
		callReply("c1", "switch_on", `{"device": ""}`),
		textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "heater on"); err != nil {
		t.Fatal(err)
	}
	resp := lastResponses(t, fake.requests()[2])
	if len(resp) != 1 || !strings.Contains(fmt.Sprint(resp[0]["error"]), "/device") {
		t.Fatalf("the response to invalid arguments = %v", resp)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("the server got %v", calls)
	}
}

// TestChatSearchFoundToolConfirmed: a found tool's call waits for the
// user's consent as a pinned tool's does; declined, it never reaches the
// server, and the search itself asks nothing.
func TestChatSearchFoundToolConfirmed(t *testing.T) {
	srv, ts := deviceSearchToolset(t)
	var asked []string
	if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, c runtime.ProposedCall) (bool, error) {
		asked = append(asked, c.Tool.Name)
		return false, nil
	}}); err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeGemini(t,
		callReply("s1", "search_tools", `{"query": "switch a device on"}`),
		callReply("c1", "switch_on", `{"device": "heater"}`),
		textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "heater on"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"switch_on"}) {
		t.Fatalf("asked about %q, want switch_on only", asked)
	}
	resp := lastResponses(t, fake.requests()[2])
	if len(resp) != 1 || !strings.Contains(fmt.Sprint(resp[0]["error"]), "declined") {
		t.Fatalf("the response to a declined call = %v", resp)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("the server got %v", calls)
	}
}

// TestChatSearchStepLimit: a search is a step like any call: with
// MaxSteps 2, the call of the tool found is not run.
func TestChatSearchStepLimit(t *testing.T) {
	srv, ts := deviceSearchToolset(t)
	fake, client := newFakeGemini(t,
		callReply("s1", "search_tools", `{"query": "switch a device on"}`),
		callReply("c1", "switch_on", `{"device": "heater"}`),
		textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts, MaxSteps: 2}
	if _, err := chat.Send(context.Background(), "heater on"); !errors.Is(err, ErrMaxSteps) {
		t.Fatalf("error = %v, want ErrMaxSteps", err)
	}
	if n := len(fake.requests()); n != 2 {
		t.Fatalf("%d model requests", n)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("the server got %v", calls)
	}
	last := chat.History[len(chat.History)-1].Parts[0].FunctionResponse
	if last.Name != "switch_on" || !strings.Contains(fmt.Sprint(last.Response["error"]), "limit of 2 model requests") {
		t.Fatalf("the history ends with %+v", last)
	}
}

// TestHandleSearchErrors: malformed search arguments get an error the
// model can read, and a toolset that is not deferred knows no search
// function.
func TestHandleSearchErrors(t *testing.T) {
	_, ts := deviceSearchToolset(t)
	for _, args := range []map[string]any{nil, {}, {"query": 3}, {"query": " "}} {
		resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "x", Name: "search_tools", Args: args})
		if msg, _ := resp.Response["error"].(string); !strings.Contains(msg, "query") || resp.ID != "x" {
			t.Errorf("args %v: response %+v", args, resp)
		}
	}
	if len(ts.Found()) != 0 {
		t.Errorf("malformed searches found %q", ts.Found())
	}
	plain, err := NewToolset(echoCaller(), testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := plain.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "light"}})
	if msg, _ := resp.Response["error"].(string); !strings.Contains(msg, "unknown function") {
		t.Errorf("search_tools on a toolset that is not deferred: %+v", resp)
	}
}

// TestToolsetSearchResetAndDeclarations: ResetFound goes back to the
// pinned tools; the JSON Schema form declares the search function's
// parameters in that form too.
func TestToolsetSearchResetAndDeclarations(t *testing.T) {
	ts, err := NewToolset(echoCaller(), testTools, &DeclarationOptions{JSONSchema: true, Search: &runtime.ToolSearch{Pinned: []string{"echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	resp := ts.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "turn a light on"}})
	out, _ := json.Marshal(resp.Response["output"])
	if !strings.Contains(string(out), `"light.turn_on"`) {
		t.Fatalf("search output = %s", out)
	}
	decls := ts.Declarations()
	if len(decls) < 3 || decls[0].Name != "echo" || decls[1].Name != "light.turn_on" || decls[len(decls)-1].Name != "search_tools" {
		t.Fatalf("declarations after the search: %v", names(decls))
	}
	if decls[len(decls)-1].ParametersJsonSchema == nil || decls[len(decls)-1].Parameters != nil {
		t.Errorf("the search function is not declared in the JSON Schema form")
	}
	ts.ResetFound()
	if got := names(ts.Declarations()); !slices.Equal(got, []string{"echo", "search_tools"}) {
		t.Errorf("after ResetFound: %q", got)
	}
	if _, err := NewToolset(echoCaller(), testTools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"nosuch"}}}); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("a pin matching nothing: %v", err)
	}
}

func names(decls []*genai.FunctionDeclaration) []string {
	out := make([]string, len(decls))
	for i, d := range decls {
		out[i] = d.Name
	}
	return out
}

// TestSearchDeclarationBudget measures, over ms365's 344 tools, the bytes
// of the declarations one request sends: all of them, against deferred
// mode with 3 pinned tools, which must send at most 10% of that.
func TestSearchDeclarationBudget(t *testing.T) {
	tools, err := providertest.LoadTools(filepath.Join(testenv.RepoRoot(), "testdata", "servers", "ms365.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := NewToolset(echoCaller(), tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	deferred, err := NewToolset(echoCaller(), tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"send-mail", "list-mail-messages", "list-calendar-events"}}})
	if err != nil {
		t.Fatal(err)
	}
	size := func(ts *Toolset) int {
		b, err := json.Marshal(ts.Tools())
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	all, first := size(full), size(deferred)
	deferred.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "schedule a meeting"}})
	afterSearch := size(deferred)
	t.Logf("gemini, ms365 (%d tools): all declared %d bytes; deferred with 3 pinned %d bytes (%.1f%%); after one search (%d found) %d bytes (%.1f%%)",
		len(tools), all, first, 100*float64(first)/float64(all), len(deferred.Found()), afterSearch, 100*float64(afterSearch)/float64(all))
	if first*10 > all {
		t.Errorf("deferred mode sends %d bytes, more than 10%% of %d", first, all)
	}
}

// TestSearchToolLimitPerRequest: without Search, a list over the limit is
// refused with an error naming deferred mode; with Search, the limit
// applies to what one request declares.
func TestSearchToolLimitPerRequest(t *testing.T) {
	tools := make([]runtime.Tool, MaxFunctionDeclarations+100)
	for i := range tools {
		tools[i] = runtime.Tool{Name: fmt.Sprintf("t%d", i), Description: fmt.Sprintf("Tool %d.", i), InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	_, err := NewToolset(echoCaller(), tools, nil)
	var tm *runtime.TooManyToolsError
	if !errors.As(err, &tm) || tm.Deferred || !strings.Contains(err.Error(), "runtime.ToolSearch") {
		t.Fatalf("NewToolset over the limit: %v", err)
	}
	ts, err := NewToolset(echoCaller(), tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"t1", "t2"}}})
	if err != nil {
		t.Fatalf("NewToolset in deferred mode: %v", err)
	}
	if n := len(ts.Declarations()); n != 3 {
		t.Errorf("the first request declares %d functions, want 3", n)
	}
	_, err = NewToolset(echoCaller(), tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"t*"}}})
	if !errors.As(err, &tm) || !tm.Deferred || tm.Tools != len(tools)+1 || !strings.Contains(err.Error(), "deferred mode") {
		t.Fatalf("NewToolset pinning every tool: %v", err)
	}
}

// TestSearchNotSeenByToolRunHook: the search is answered by the toolset, so
// the session's ToolRunHook sees the call of the tool found and not the
// search.
func TestSearchNotSeenByToolRunHook(t *testing.T) {
	srv := mcptest.Start(t, deviceSearchServer)
	var mu sync.Mutex
	var seen []string
	session, err := runtime.Connect(context.Background(), runtime.HTTP(srv.URL, nil), &runtime.Options{
		ToolRunHook: func(ctx context.Context, tool string) (context.Context, func(runtime.ToolRunOutcome)) {
			mu.Lock()
			seen = append(seen, tool)
			mu.Unlock()
			return ctx, func(runtime.ToolRunOutcome) {}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolset(session, tools, &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "switch on"}})
	resp := ts.Handle(context.Background(), &genai.FunctionCall{Name: "switch_on", Args: map[string]any{"device": "fan"}})
	if resp.Response["error"] != nil {
		t.Fatalf("switch_on: %v", resp.Response)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"switch_on"}) {
		t.Fatalf("the hook saw %q, want switch_on only", seen)
	}
	if len(srv.Calls()) != 1 {
		t.Fatalf("the server got %v", srv.Calls())
	}
}
