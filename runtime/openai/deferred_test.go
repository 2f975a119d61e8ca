package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// connectEverything starts server-everything over stdio and returns a
// session to it with the tools it lists.
func connectEverything(t *testing.T) (*runtime.Session, []runtime.Tool) {
	t.Helper()
	argv := testenv.Everything(t, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := runtime.Connect(ctx, runtime.NewCommandTransport(argv[0], argv[1:]...), nil)
	if err != nil {
		t.Fatalf("connecting to server-everything: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	return s, tools
}

// declaredFunctions returns the names of the functions a Responses request
// declares, with "(deferred)" after those with defer_loading, and
// "tool_search" for the search tool.
func declaredFunctions(req fakeRequest) []string {
	var names []string
	for _, t := range req.Tools {
		switch {
		case t.OfFunction != nil && t.OfFunction.DeferLoading.Value:
			names = append(names, t.OfFunction.Name+" (deferred)")
		case t.OfFunction != nil:
			names = append(names, t.OfFunction.Name)
		case t.OfToolSearch != nil:
			names = append(names, "tool_search")
		}
	}
	return names
}

// nativeSearchReply answers as the Responses API does when the model runs
// its hosted tool search and then calls what it found, in one response: a
// tool_search_call, the tool_search_output loading the deferred functions
// named found (copied from the request, as declared), and a function call.
func nativeSearchReply(query string, found []string, call string) responsesReply {
	return func(req fakeRequest) string {
		var loaded []string
		for _, name := range found {
			for _, t := range req.Tools {
				if f := t.OfFunction; f != nil && f.Name == name && f.DeferLoading.Value {
					b, _ := json.Marshal(f)
					loaded = append(loaded, string(b))
				}
			}
		}
		q, _ := json.Marshal(query)
		return responseBody("resp_ts", "completed",
			`{"type":"tool_search_call","id":"tsc_1","call_id":"ts_1","arguments":{"query":`+string(q)+`},"execution":"server","status":"completed"}`,
			`{"type":"tool_search_output","id":"tso_1","call_id":"ts_1","execution":"server","status":"completed","tools":[`+strings.Join(loaded, ",")+`]}`,
			call)
	}
}

// TestDeferredFindsAndCallsRealTool: over server-everything with only echo
// pinned, the fake model searches, then calls get-sum, which the search
// found; the call reaches the server and its result goes back. With
// mcpgen's search (Chat and Responses) get-sum is declared from the request
// after the search on, at the cost of one more model request; with the
// Responses API's tool_search, every other tool is declared deferred and
// the search and the call come in one response, as the hosted search runs
// within it.
func TestDeferredFindsAndCallsRealTool(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectEverything(t)
	const sumResult = "The sum of 2 and 3 is 5."
	newToolset := func(t *testing.T, native bool) *Toolset {
		ts, err := NewToolset(session, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"echo"}, Native: native}})
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}

	t.Run("responses", func(t *testing.T) {
		ts := newToolset(t, false)
		fake, client := newFakeResponses(t, nil,
			fixed(responseBody("resp_1", "completed", functionCallItem("call_q", "search_tools", `{"query":"sum of two numbers"}`))),
			fixed(responseBody("resp_2", "completed", functionCallItem("call_sum", "get-sum", `{"a":2,"b":3}`))),
			fixed(responseBody("resp_3", "completed", messageItem("5"))))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		if answer, err := conv.Send(context.Background(), "add 2 and 3"); err != nil || answer != "5" {
			t.Fatalf("answer %q, error %v", answer, err)
		}
		reqs := fake.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model requests, want 3 (one more than without search)", len(reqs))
		}
		if got := strings.Join(declaredFunctions(reqs[0]), " "); got != "echo search_tools" {
			t.Errorf("the first request declares %s", got)
		}
		if got := declaredFunctions(reqs[1]); len(got) < 3 || got[0] != "echo" || got[len(got)-1] != "search_tools" || !contains(got, "get-sum") {
			t.Errorf("the request after the search declares %v, want echo, the found tools with get-sum, search_tools", got)
		}
		_, searchText := outputOf(inputs(reqs[1])[2])
		if !strings.Contains(searchText, `"name":"get-sum"`) {
			t.Errorf("the search answered %s", searchText)
		}
		if _, text := outputOf(inputs(reqs[2])[4]); text != sumResult {
			t.Errorf("get-sum is answered with %q, want the server's %q", text, sumResult)
		}
		t.Logf("own search: %d model requests; the search returned %s", len(reqs), searchText)
		fake.setReplies(fixed(responseBody("resp_4", "completed", messageItem("ok"))))
		if _, err := conv.Send(context.Background(), "thanks"); err != nil {
			t.Fatal(err)
		}
		reqs = fake.requests()
		if got := declaredFunctions(reqs[3]); !contains(got, "get-sum") || len(inputs(reqs[3])) != 7 {
			t.Errorf("the next turn declares %v with %d input items; want get-sum still declared and the whole history", got, len(inputs(reqs[3])))
		}
	})

	t.Run("chat", func(t *testing.T) {
		ts := newToolset(t, false)
		fake, client := newFakeCompletions(t, nil,
			toolCallsReply(`{"id":"call_q","type":"function","function":{"name":"search_tools","arguments":"{\"query\":\"sum of two numbers\"}"}}`),
			toolCallsReply(`{"id":"call_sum","type":"function","function":{"name":"get-sum","arguments":"{\"a\":2,\"b\":3}"}}`),
			answerReply)
		chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
		if _, err := chat.Send(context.Background(), "add 2 and 3"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model requests, want 3", len(reqs))
		}
		first, second := chatFunctions(t, reqs[0]), chatFunctions(t, reqs[1])
		if strings.Join(first, " ") != "echo search_tools" || !contains(second, "get-sum") || second[len(second)-1] != "search_tools" {
			t.Errorf("the requests declare %v, then %v", first, second)
		}
		if msgs := requestMessages(t, reqs[2]); len(msgs) != 5 || msgs[4].Content != sumResult {
			t.Errorf("the last request's messages: %+v", msgs)
		}
	})

	t.Run("native", func(t *testing.T) {
		ts := newToolset(t, true)
		fake, client := newFakeResponses(t, nil,
			nativeSearchReply("sum of two numbers", []string{"get-sum"}, functionCallItem("call_sum", "get-sum", `{"a":2,"b":3}`)),
			fixed(responseBody("resp_3", "completed", messageItem("5"))))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		if answer, err := conv.Send(context.Background(), "add 2 and 3"); err != nil || answer != "5" {
			t.Fatalf("answer %q, error %v", answer, err)
		}
		reqs := fake.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2 (the hosted search runs within a response)", len(reqs))
		}
		got := declaredFunctions(reqs[0])
		if len(got) != len(tools)+1 || !contains(got, "echo") || !contains(got, "get-sum (deferred)") || got[len(got)-1] != "tool_search" {
			t.Errorf("the first request declares %v", got)
		}
		in := inputs(reqs[1])
		if len(in) != 5 || in[1].OfToolSearchCall == nil || in[2].OfToolSearchOutput == nil || in[3].OfFunctionCall == nil {
			t.Fatalf("the second request's input: %s", fake.rawRequests()[1])
		}
		out, raw := fake.outputItems(t, 0), fake.rawInputs(t, 1)
		for i := range out {
			if got, want := compactJSON(t, raw[1+i]), compactJSON(t, out[i]); got != want {
				t.Errorf("output item %d is sent back as\n%s\nwant it as the API returned it\n%s", i, got, want)
			}
		}
		if tools := in[2].OfToolSearchOutput.Tools; len(tools) != 1 || tools[0].OfFunction.Name != "get-sum" {
			t.Errorf("the tool search output sent back loads %+v", tools)
		}
		if id, text := outputOf(in[4]); id != "call_sum" || text != sumResult {
			t.Errorf("get-sum is answered with %q %q, want the server's %q", id, text, sumResult)
		}
	})
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// chatFunctions returns the names of the functions a Chat Completions
// request declares.
func chatFunctions(t *testing.T, body []byte) []string {
	t.Helper()
	var p openai.ChatCompletionNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	var names []string
	for _, tool := range p.Tools {
		if tool.OfFunction == nil {
			t.Fatalf("request %s: a tool that is not a function", body)
		}
		names = append(names, tool.OfFunction.Function.Name)
	}
	return names
}

// fillerTools are n tools that a search for a device does not find, and
// the two device tools.
func fillerTools(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		fmt.Fprintf(&b, `{"name":"report_%03d","description":"Builds quarterly finance report number %d.","inputSchema":{"type":"object","properties":{"quarter":{"type":"string"}}}},`, i, i)
	}
	b.WriteString(strings.TrimPrefix(strings.TrimSuffix(mcptest.DeviceTools, "]"), "["))
	b.WriteString("]")
	return b.String()
}

// deferredDeviceToolset serves 150 filler tools and the device tools, with
// read_state pinned: switch_on is found by search.
func deferredDeviceToolset(t *testing.T) (*mcptest.Server, *Toolset) {
	t.Helper()
	srv := mcptest.Start(t, fillerTools(150))
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}})
	if err != nil {
		t.Fatal(err)
	}
	return srv, ts
}

var (
	searchDeviceReply = fixed(responseBody("resp_q", "completed", functionCallItem("call_q", "search_tools", `{"query":"switch a device on"}`)))
)

// TestDeferredFoundToolsAreChecked: a found tool's call is checked against
// its schema, needs the user's confirmation and counts against the step
// limit, exactly as a pinned tool's.
func TestDeferredFoundToolsAreChecked(t *testing.T) {
	t.Run("arguments", func(t *testing.T) {
		srv, ts := deferredDeviceToolset(t)
		fake, client := newFakeResponses(t, nil, searchDeviceReply,
			fixed(responseBody("resp_s", "completed", functionCallItem("call_s", "switch_on", `{"device":7}`))), heaterAnswer)
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		if _, err := conv.Send(context.Background(), "warm the room"); err != nil {
			t.Fatal(err)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("the server got %v", calls)
		}
		if _, text := outputOf(inputs(fake.requests()[2])[4]); !strings.HasPrefix(text, "Error: invalid arguments for switch_on at /device") {
			t.Errorf("the call with bad arguments is answered with %q", text)
		}
	})
	t.Run("confirmation", func(t *testing.T) {
		srv, ts := deferredDeviceToolset(t)
		var asked []string
		if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
			asked = append(asked, call.Tool.Name)
			return false, nil
		}}); err != nil {
			t.Fatal(err)
		}
		fake, client := newFakeResponses(t, nil, searchDeviceReply,
			fixed(responseBody("resp_s", "completed", switchOnItem)), heaterAnswer)
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		if _, err := conv.Send(context.Background(), "warm the room"); err != nil {
			t.Fatal(err)
		}
		if len(asked) != 1 || asked[0] != "switch_on" || len(srv.Calls()) != 0 {
			t.Errorf("asked about %v; the server got %v", asked, srv.Calls())
		}
		if _, text := outputOf(inputs(fake.requests()[2])[4]); text != "Error: the user declined the call to switch_on; it was not run" {
			t.Errorf("the declined call is answered with %q", text)
		}
	})
	t.Run("step limit", func(t *testing.T) {
		srv, ts := deferredDeviceToolset(t)
		_, client := newFakeResponses(t, nil, searchDeviceReply, fixed(responseBody("resp_s", "completed", switchOnItem)))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, MaxSteps: 2}
		if _, err := conv.Send(context.Background(), "warm the room"); !errors.Is(err, ErrMaxSteps) {
			t.Errorf("error = %v, want ErrMaxSteps", err)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("the server got %v past the step limit", calls)
		}
	})
}

// TestDeferredSearchFindsNothing: a search without a hit says so, declares
// nothing more, and a malformed search call is answered with an error the
// model can act on; neither reaches the server.
func TestDeferredSearchFindsNothing(t *testing.T) {
	srv, ts := deferredDeviceToolset(t)
	fake, client := newFakeResponses(t, nil,
		fixed(responseBody("resp_q", "completed",
			functionCallItem("call_q", "search_tools", `{"query":"zzzz qqqq"}`),
			functionCallItem("call_bad", "search_tools", `{"q":1}`))),
		heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := conv.Send(context.Background(), "do something odd"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if got := strings.Join(declaredFunctions(reqs[1]), " "); got != "read_state search_tools" {
		t.Errorf("the request after a search without a hit declares %s", got)
	}
	in := inputs(reqs[1])
	if _, text := outputOf(in[3]); !strings.Contains(text, `"tools":[]`) || !strings.Contains(text, "No tool matches") {
		t.Errorf("the search without a hit is answered with %s", text)
	}
	if _, text := outputOf(in[4]); text != `Error: search_tools needs a "query": a few words on what the tool should do` {
		t.Errorf("the malformed search is answered with %q", text)
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("the server got %v", srv.Calls())
	}
}

// TestChatRefusesNativeSearch: Chat Completions has no tool search of its
// own, so a toolset that asks for it is refused before any request.
func TestChatRefusesNativeSearch(t *testing.T) {
	srv := mcptest.Start(t, fillerTools(3))
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true}})
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeCompletions(t, nil, answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
	_, err = chat.Send(context.Background(), "hello")
	if err == nil || !strings.Contains(err.Error(), "runtime.ToolSearch.Native") || !strings.Contains(err.Error(), "openai.Responses") {
		t.Errorf("error = %v", err)
	}
	if n := len(fake.requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// TestNativeUnknownNamesToolSearch checks that a call of an undeclared
// function in native mode is told to search with the Responses API's
// tool_search, which is declared, and not with search_tools, which is not.
func TestNativeUnknownNamesToolSearch(t *testing.T) {
	srv := mcptest.Start(t, fillerTools(3))
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true}})
	if err != nil {
		t.Fatal(err)
	}
	item := ts.HandleFunctionCall(context.Background(), responses.ResponseFunctionToolCall{CallID: "call_1", Name: "no_such_tool", Arguments: "{}"})
	out := item.OfFunctionCallOutput
	if out == nil {
		t.Fatalf("no function_call_output: %+v", item)
	}
	text := out.Output.OfString.Value
	if !strings.HasSuffix(text, "search for other tools with tool_search") {
		t.Errorf("output = %q, want it to name tool_search", text)
	}
}
