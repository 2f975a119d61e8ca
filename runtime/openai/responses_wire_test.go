package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
)

// fakeResponses is a stand-in for the Responses API's POST /responses. It
// decodes every request into the SDK's own param types, rejecting an input
// item or tool the SDK does not know or that lacks a required field, and
// answers the n-th request with replies[n] (the last one repeats), after
// checking that the reply decodes into the SDK's response types with the
// required fields of each output item.
type fakeResponses struct {
	t       *testing.T
	mu      sync.Mutex
	replies []responsesReply
	bodies  [][]byte
	reqs    []fakeRequest
	replied []string
}

// fakeRequest is a request as the stand-in decoded it: the SDK's params,
// and the input items each decoded into the SDK's input item union.
type fakeRequest struct {
	responses.ResponseNewParams
	Input []responses.ResponseInputItemUnionParam
}

// A responsesReply returns the body that answers a request, which it may
// read: a native tool search answers from the request's deferred tools.
type responsesReply func(req fakeRequest) string

// fixed is a reply that does not depend on the request.
func fixed(body string) responsesReply {
	return func(fakeRequest) string { return body }
}

func newFakeResponses(t *testing.T, httpClient *http.Client, replies ...responsesReply) (*fakeResponses, *openai.Client) {
	t.Helper()
	f := &fakeResponses{t: t, replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := []option.RequestOption{option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0)}
	if httpClient != nil {
		opts = append(opts, option.WithHTTPClient(httpClient))
	}
	client := openai.NewClient(opts...)
	return f, &client
}

func (f *fakeResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/responses" {
		f.t.Errorf("the stand-in got %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		f.t.Errorf("request %s: %v", body, err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.reqs = append(f.reqs, req)
	reply := f.replies[min(len(f.bodies)-1, len(f.replies)-1)]
	f.mu.Unlock()
	out := reply(req)
	if err := checkResponse(out); err != nil {
		f.t.Errorf("the stand-in's reply %s: %v", out, err)
	}
	if err := checkCallsDeclared(req, out); err != nil {
		f.t.Errorf("the stand-in's reply %s: %v", out, err)
	}
	f.mu.Lock()
	f.replied = append(f.replied, out)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, out)
}

// outputItems returns the raw output items of the n-th reply.
func (f *fakeResponses) outputItems(t *testing.T, n int) []json.RawMessage {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var r struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal([]byte(f.replied[n]), &r); err != nil {
		t.Fatal(err)
	}
	return r.Output
}

// rawInputs returns the raw input items of the n-th request.
func (f *fakeResponses) rawInputs(t *testing.T, n int) []json.RawMessage {
	t.Helper()
	var r struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(f.rawRequests()[n], &r); err != nil {
		t.Fatal(err)
	}
	return r.Input
}

func (f *fakeResponses) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.reqs...)
}

func (f *fakeResponses) rawRequests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

func (f *fakeResponses) setReplies(replies ...responsesReply) {
	f.mu.Lock()
	f.replies = replies
	f.mu.Unlock()
}

// decodeRequest decodes and checks a request as the API would: a model,
// an input list whose items are each of a type the SDK knows, with their
// required fields (a message may leave out its type, as EasyInputMessage
// allows), and tools likewise.
func decodeRequest(body []byte) (fakeRequest, error) {
	var req fakeRequest
	if err := json.Unmarshal(body, &req.ResponseNewParams); err != nil {
		return req, err
	}
	var raw struct {
		Input []json.RawMessage `json:"input"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return req, fmt.Errorf("input is not a list: %v", err)
	}
	if req.Model == "" {
		return req, fmt.Errorf("no model")
	}
	if len(raw.Input) == 0 {
		return req, fmt.Errorf("no input")
	}
	for i, item := range raw.Input {
		var u responses.ResponseInputItemUnionParam
		var typed struct {
			Type *string `json:"type"`
		}
		json.Unmarshal(item, &typed)
		var err error
		if typed.Type == nil {
			u.OfMessage = &responses.EasyInputMessageParam{}
			err = json.Unmarshal(item, u.OfMessage)
		} else {
			err = json.Unmarshal(item, &u)
		}
		if err == nil {
			err = checkInputItem(u)
		}
		if err != nil {
			return req, fmt.Errorf("input item %d %s: %v", i, item, err)
		}
		req.Input = append(req.Input, u)
	}
	if err := checkCallsAnswered(req.Input); err != nil {
		return req, err
	}
	if len(req.Tools) != len(raw.Tools) {
		return req, fmt.Errorf("%d tools, %d decoded", len(raw.Tools), len(req.Tools))
	}
	var functions []json.RawMessage
	for i, tool := range raw.Tools {
		var u responses.ToolUnionParam
		if err := json.Unmarshal(tool, &u); err != nil {
			return req, fmt.Errorf("tool %d %s: %v", i, tool, err)
		}
		switch {
		case u.OfFunction != nil:
			if u.OfFunction.Name == "" || u.OfFunction.Parameters == nil || !u.OfFunction.Strict.Valid() {
				return req, fmt.Errorf("function %d lacks its name, parameters or strict flag: %s", i, tool)
			}
			functions = append(functions, tool)
		case u.OfToolSearch != nil:
		case u.OfCustom != nil:
			if u.OfCustom.Name == "" {
				return req, fmt.Errorf("custom tool %d lacks its name: %s", i, tool)
			}
		default:
			return req, fmt.Errorf("tool %d is of an unexpected type: %s", i, tool)
		}
	}
	list, _ := json.Marshal(functions)
	if errs := providertest.CheckOpenAI(list); len(errs) > 0 {
		return req, errors.Join(errs...)
	}
	return req, nil
}

func checkInputItem(u responses.ResponseInputItemUnionParam) error {
	switch {
	case u.OfMessage != nil:
		if u.OfMessage.Role == "" {
			return fmt.Errorf("a message without a role")
		}
	case u.OfFunctionCall != nil:
		c := u.OfFunctionCall
		if c.CallID == "" || c.Name == "" || !json.Valid([]byte(c.Arguments)) {
			return fmt.Errorf("a function call without its call_id, name or JSON arguments")
		}
	case u.OfFunctionCallOutput != nil:
		o := u.OfFunctionCallOutput
		if !o.CallID.Valid() || o.CallID.Value == "" || !o.Output.OfString.Valid() {
			return fmt.Errorf("a function call output without its call_id or text output")
		}
	case u.OfCustomToolCall != nil:
		c := u.OfCustomToolCall
		if c.CallID == "" || c.Name == "" {
			return fmt.Errorf("a custom tool call without its call_id or name")
		}
	case u.OfCustomToolCallOutput != nil:
		o := u.OfCustomToolCallOutput
		if o.CallID == "" || !o.Output.OfString.Valid() {
			return fmt.Errorf("a custom tool call output without its call_id or text output")
		}
	case u.OfToolSearchCall != nil:
		if u.OfToolSearchCall.Arguments == nil {
			return fmt.Errorf("a tool search call without arguments")
		}
	case u.OfToolSearchOutput != nil:
		for _, t := range u.OfToolSearchOutput.Tools {
			if t.OfFunction == nil || t.OfFunction.Name == "" {
				return fmt.Errorf("a tool search output with a tool other than a named function")
			}
		}
	case u.OfReasoning != nil:
		if u.OfReasoning.ID == "" {
			return fmt.Errorf("a reasoning item without an id")
		}
	default:
		return fmt.Errorf("an item of an unexpected type")
	}
	return nil
}

// checkResponse checks that a reply decodes into responses.Response with
// the fields the API always sends.
func checkResponse(body string) error {
	var resp responses.Response
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		return err
	}
	if !resp.JSON.ID.Valid() || !resp.JSON.Status.Valid() || !resp.JSON.Output.Valid() || resp.Object != "response" {
		return fmt.Errorf("the response lacks its id, status, output or object")
	}
	for i, item := range resp.Output {
		var missing bool
		switch item.Type {
		case "message":
			m := item.AsMessage()
			missing = !m.JSON.ID.Valid() || !m.JSON.Status.Valid() || !m.JSON.Content.Valid()
		case "function_call":
			c := item.AsFunctionCall()
			missing = !c.JSON.CallID.Valid() || !c.JSON.Name.Valid() || !c.JSON.Arguments.Valid() || !c.JSON.ID.Valid()
		case "custom_tool_call":
			c := item.AsCustomToolCall()
			missing = !c.JSON.CallID.Valid() || !c.JSON.Name.Valid() || !c.JSON.Input.Valid()
		case "tool_search_call":
			c := item.AsToolSearchCall()
			missing = !c.JSON.ID.Valid() || !c.JSON.CallID.Valid() || !c.JSON.Arguments.Valid() || !c.JSON.Execution.Valid() || !c.JSON.Status.Valid()
		case "tool_search_output":
			o := item.AsToolSearchOutput()
			missing = !o.JSON.ID.Valid() || !o.JSON.CallID.Valid() || !o.JSON.Tools.Valid() || !o.JSON.Execution.Valid() || !o.JSON.Status.Valid()
		case "reasoning":
			missing = !item.AsReasoning().JSON.Summary.Valid()
		default:
			return fmt.Errorf("output item %d has the unexpected type %q", i, item.Type)
		}
		if missing {
			return fmt.Errorf("output item %d (%s) lacks a required field", i, item.Type)
		}
	}
	return nil
}

// checkCallsAnswered checks, as the API does, that the input answers every
// function and custom tool call it holds with an output item of that call
// ID after it.
func checkCallsAnswered(input []responses.ResponseInputItemUnionParam) error {
	open := map[string]bool{}
	var order []string
	for _, u := range input {
		switch {
		case u.OfFunctionCall != nil:
			open[u.OfFunctionCall.CallID] = true
			order = append(order, u.OfFunctionCall.CallID)
		case u.OfCustomToolCall != nil:
			open[u.OfCustomToolCall.CallID] = true
			order = append(order, u.OfCustomToolCall.CallID)
		case u.OfFunctionCallOutput != nil:
			delete(open, u.OfFunctionCallOutput.CallID.Value)
		case u.OfCustomToolCallOutput != nil:
			delete(open, u.OfCustomToolCallOutput.CallID)
		}
	}
	for _, id := range order {
		if open[id] {
			return fmt.Errorf("no tool output found for the call %s", id)
		}
	}
	return nil
}

// responseBody is a complete response with status and output items.
func responseBody(id, status string, items ...string) string {
	return `{"id":"` + id + `","object":"response","created_at":1,"status":"` + status + `","model":"gpt-test","output":[` +
		strings.Join(items, ",") + `],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"temperature":1,"top_p":1}`
}

// functionCallItem is a function_call output item.
func functionCallItem(callID, name, args string) string {
	a, _ := json.Marshal(args)
	return `{"type":"function_call","id":"fc_` + callID + `","call_id":"` + callID + `","name":"` + name + `","arguments":` + string(a) + `,"status":"completed"}`
}

// messageItem is an assistant message output item with one text part.
func messageItem(text string) string {
	t, _ := json.Marshal(text)
	return `{"type":"message","id":"msg_1","role":"assistant","status":"completed","phase":"final_answer","content":[{"type":"output_text","text":` + string(t) + `,"annotations":[]}]}`
}

// inputs returns the input items of a request.
func inputs(req fakeRequest) []responses.ResponseInputItemUnionParam {
	return req.Input
}

// outputOf returns the call_id and text of a function_call_output item,
// or empty strings when item is not one.
func outputOf(item responses.ResponseInputItemUnionParam) (callID, text string) {
	if o := item.OfFunctionCallOutput; o != nil {
		return o.CallID.Value, o.Output.OfString.Value
	}
	return "", ""
}

// checkCallsDeclared checks that a reply calls only functions the model
// can see, as a real model would: those the request declares without
// defer_loading, and deferred ones loaded by a tool search output, in the
// request's input or earlier in the reply.
func checkCallsDeclared(req fakeRequest, body string) error {
	loaded, custom := map[string]bool{}, map[string]bool{}
	for _, t := range req.Tools {
		if f := t.OfFunction; f != nil && !(f.DeferLoading.Valid() && f.DeferLoading.Value) {
			loaded[f.Name] = true
		}
		if c := t.OfCustom; c != nil {
			custom[c.Name] = true
		}
	}
	for _, item := range req.Input {
		if o := item.OfToolSearchOutput; o != nil {
			for _, t := range o.Tools {
				loaded[t.OfFunction.Name] = true
			}
		}
	}
	var resp responses.Response
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		return err
	}
	for _, item := range resp.Output {
		switch item.Type {
		case "tool_search_output":
			for _, t := range item.AsToolSearchOutput().Tools {
				loaded[t.Name] = true
			}
		case "function_call":
			if name := item.AsFunctionCall().Name; !loaded[name] {
				return fmt.Errorf("it calls %s, which the model cannot see", name)
			}
		case "custom_tool_call":
			if name := item.AsCustomToolCall().Name; !custom[name] {
				return fmt.Errorf("it calls the custom tool %s, which the request does not declare", name)
			}
		}
	}
	return nil
}
