package openai

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// appTools are the tools an application declares itself beside a
// toolset's: a custom tool and a function of its own.
func appResponsesTools() []responses.ToolUnionParam {
	return []responses.ToolUnionParam{
		{OfCustom: &responses.CustomToolParam{Name: "sql"}},
		{OfFunction: &responses.FunctionToolParam{Name: "lookup", Strict: openai.Bool(true), Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []string{"q"}, "additionalProperties": false}}},
	}
}

func customCallItem(callID, name, input string) string {
	return `{"type":"custom_tool_call","id":"ctc_` + callID + `","call_id":"` + callID + `","name":"` + name + `","input":"` + input + `","status":"completed"}`
}

var appCallsWant = []NotRunCall{{Type: "custom_tool_call", Name: "sql", CallID: "call_c", Input: "SELECT 1"}, {Type: "function_call", Name: "lookup", CallID: "call_a", Input: `{"q":"x"}`}}

// withoutItems returns calls without their Item, which checkItems checks.
func withoutItems(t *testing.T, calls []NotRunCall) []NotRunCall {
	t.Helper()
	out := make([]NotRunCall, len(calls))
	for i, c := range calls {
		var item struct {
			ID     string `json:"id"`
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(c.Item, &item); err != nil || (item.ID != c.CallID && item.CallID != c.CallID) {
			t.Errorf("call %d: Item %s is not the call %s (%v)", i, c.Item, c.CallID, err)
		}
		c.Item = nil
		out[i] = c
	}
	return out
}

// TestResponsesLeavesTheApplicationsCallsToIt: the calls of tools the
// application declared itself in Params.Tools are not the toolset's to
// run. Run runs the toolset's call of the same turn, then stops with a
// *CallsNotRunError naming the others, before asking the model again with
// a history the API would refuse; once the application answers them, Run
// goes on. Before, the custom call got no output at all and the next
// request failed, and the application's function was answered as unknown.
func TestResponsesLeavesTheApplicationsCallsToIt(t *testing.T) {
	_, ts := deviceToolset(t)
	fake, client := newFakeResponses(t, nil,
		fixed(responseBody("resp_1", "completed",
			functionCallItem("call_r", "read_state", `{"device":"heater"}`),
			customCallItem("call_c", "sql", "SELECT 1"),
			functionCallItem("call_a", "lookup", `{"q":"x"}`))),
		fixed(responseBody("resp_2", "completed", messageItem("The heater is on."))))
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, Params: &responses.ResponseNewParams{Tools: appResponsesTools()}}
	_, err := conv.Send(context.Background(), "is the heater on?")
	var nr *CallsNotRunError
	if !errors.As(err, &nr) || !reflect.DeepEqual(withoutItems(t, nr.Calls), appCallsWant) {
		t.Fatalf("Send = %v; want a *CallsNotRunError for %+v", err, appCallsWant)
	}
	if n := len(fake.requests()); n != 1 {
		t.Fatalf("the model was asked %d times, want once", n)
	}
	last := conv.History[len(conv.History)-1]
	if id, text := outputOf(last); id != "call_r" || text == "" {
		t.Fatalf("the history ends with %+v, want the toolset's output for call_r", last)
	}

	conv.History = append(conv.History,
		responses.ResponseInputItemParamOfCustomToolCallOutput("call_c", "1"),
		functionCallOutput("call_a", `{"hits":0}`))
	answer, err := conv.Run(context.Background())
	if err != nil || answer != "The heater is on." {
		t.Fatalf("Run = %q, %v", answer, err)
	}
}

// TestResponsesOnlyApplicationCalls: a turn that calls nothing but the
// application's tools ends Run at once; before, Run returned "" as if the
// model had answered.
func TestResponsesOnlyApplicationCalls(t *testing.T) {
	_, ts := deviceToolset(t)
	_, client := newFakeResponses(t, nil, fixed(responseBody("resp_1", "completed", customCallItem("call_c", "sql", "SELECT 1"))))
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, Params: &responses.ResponseNewParams{Tools: appResponsesTools()}}
	answer, err := conv.Send(context.Background(), "count the rows")
	var nr *CallsNotRunError
	if !errors.As(err, &nr) || len(nr.Calls) != 1 || nr.Calls[0].CallID != "call_c" {
		t.Fatalf("Send = %q, %v; want a *CallsNotRunError for call_c", answer, err)
	}
	const want = `openai responses: the model called the application's own tools, which the conversation does not run: custom_tool_call "sql" ("call_c"); answer each in History and call Run again`
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant\n%s", err, want)
	}
}

// TestResponsesApplicationCallsAtMaxSteps: a turn with the application's
// calls ends the run without another request, so at the step limit the
// toolset's calls of that turn still run, and the error is only about the
// application's calls.
func TestResponsesApplicationCallsAtMaxSteps(t *testing.T) {
	_, ts := deviceToolset(t)
	_, client := newFakeResponses(t, nil, fixed(responseBody("resp_1", "completed",
		functionCallItem("call_r", "read_state", `{"device":"heater"}`),
		customCallItem("call_c", "sql", "SELECT 1"))))
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, MaxSteps: 1, Params: &responses.ResponseNewParams{Tools: appResponsesTools()}}
	_, err := conv.Send(context.Background(), "go")
	var nr *CallsNotRunError
	if errors.Is(err, ErrMaxSteps) || !errors.As(err, &nr) {
		t.Fatalf("Send = %v; want a *CallsNotRunError alone", err)
	}
	if id, text := outputOf(conv.History[len(conv.History)-1]); id != "call_r" || text != "done read_state" {
		t.Errorf("the history ends with the output %s %q, want the toolset's for call_r", id, text)
	}
}

// TestChatLeavesTheApplicationsCallsToIt is the Chat Completions side:
// custom tools and functions the application declared in Params.Tools.
// Before, they were answered "not supported" and "unknown function", and
// the application never saw them.
func TestChatLeavesTheApplicationsCallsToIt(t *testing.T) {
	_, ts := deviceToolset(t)
	custom := `{"id":"call_c","type":"custom","custom":{"name":"sql","input":"SELECT 1"}}`
	lookup := `{"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}}`
	fake, client := newFakeCompletions(t, nil, toolCallsReply(readStateCall, custom, lookup), answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts, Params: &openai.ChatCompletionNewParams{Tools: []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{Name: "sql"}),
		openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "lookup"}),
	}}}
	_, err := chat.Send(context.Background(), "go")
	var nr *CallsNotRunError
	want := []NotRunCall{{Type: "custom", Name: "sql", CallID: "call_c", Input: "SELECT 1"}, {Type: "function", Name: "lookup", CallID: "call_a", Input: `{"q":"x"}`}}
	if !errors.As(err, &nr) || !reflect.DeepEqual(withoutItems(t, nr.Calls), want) {
		t.Fatalf("Send = %v; want a *CallsNotRunError for %+v", err, want)
	}
	if n := len(fake.requests()); n != 1 {
		t.Fatalf("the model was asked %d times, want once", n)
	}
	if last := chat.History[len(chat.History)-1]; last.OfTool == nil || last.OfTool.ToolCallID != "call_r" {
		t.Fatalf("the history ends with %+v, want the toolset's tool message for call_r", last)
	}
	chat.History = append(chat.History, openai.ToolMessage("1", "call_c"), openai.ToolMessage("0 hits", "call_a"))
	if answer, err := chat.Run(context.Background()); err != nil || answer != "The heater is on." {
		t.Fatalf("Run = %q, %v", answer, err)
	}
	msgs := requestMessages(t, fake.requests()[1])
	if len(msgs) != 5 || msgs[3].ToolCallID != "call_c" || msgs[4].ToolCallID != "call_a" {
		t.Errorf("second request: %+v", msgs)
	}
}
