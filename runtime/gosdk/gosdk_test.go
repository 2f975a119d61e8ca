package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetIn struct {
	Name string `json:"name"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// stepsHandled receives a value each time TestProgress handles a progress
// notification of the steps tool, which answers once it has two.
var stepsHandled = make(chan struct{}, 2)

// connect runs an SDK server in memory and returns a Caller on an SDK client
// session connected to it.
func connect(t *testing.T) *Caller {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets."}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
		return nil, greetOut{Greeting: "hello " + in.Name}, nil
	})
	server.AddTool(&mcp.Tool{Name: "picture", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			&mcp.ResourceLink{URI: "file:///x", Name: "x"},
		}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "steps", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 2; i++ {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2, Message: "step"})
			if err != nil {
				return nil, err
			}
		}
		// The SDK client handles notifications concurrently with the
		// result; progress handled after the call returned is dropped.
		// Answer once the test has seen both notifications.
		for range 2 {
			select {
			case <-stepsHandled:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: HandleProgress})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return New(cs)
}

func TestCallTool(t *testing.T) {
	c := connect(t)
	ctx := context.Background()
	for _, args := range []any{
		map[string]string{"name": "ann"},
		json.RawMessage(`{"name":"ann"}`),
		[]byte(`{"name":"ann"}`),
		greetIn{Name: "ann"},
	} {
		res, err := c.CallTool(ctx, "greet", args)
		if err != nil {
			t.Fatalf("greet(%T): %v", args, err)
		}
		var out greetOut
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.Greeting != "hello ann" {
			t.Errorf("greet(%T): structured content %s (%v)", args, res.StructuredContent, err)
		}
	}

	res, err := c.CallTool(ctx, "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 || res.Content[0].Type != runtime.ContentImage || string(res.Content[0].Data) != "\x01\x02\x03" ||
		res.Content[1].Type != runtime.ContentResourceLink || res.Content[1].URI != "file:///x" {
		t.Errorf("picture: %+v", res.Content)
	}

	_, err = c.CallTool(ctx, "broken", nil)
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Result.Text() != "it broke" {
		t.Errorf("broken: %v, want a *runtime.ToolError", err)
	}

	_, err = c.CallTool(ctx, "missing", nil)
	var re *runtime.RPCError
	if !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams {
		t.Errorf("missing: %v, want a *runtime.RPCError -32602", err)
	}
}

func TestListTools(t *testing.T) {
	tools, err := connect(t).ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
		if len(tool.Raw) == 0 || len(tool.InputSchema) == 0 {
			t.Errorf("tool %s lacks raw bytes or a schema", tool.Name)
		}
	}
	if len(tools) != 4 || !names["greet"] || !names["picture"] || !names["broken"] || !names["steps"] {
		t.Errorf("tools: %v", names)
	}
}

func TestProgress(t *testing.T) {
	c := connect(t)
	var mu sync.Mutex
	var got []runtime.Progress
	ctx := runtime.WithProgress(context.Background(), func(p runtime.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		stepsHandled <- struct{}{}
	})
	res, err := c.CallTool(ctx, "steps", nil)
	if err != nil || res.Text() != "done" {
		t.Fatalf("steps: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[1] != (runtime.Progress{Progress: 2, Total: 2, Message: "step"}) {
		t.Errorf("progress = %+v", got)
	}
}

// A server whose pages never end is listed up to runtime.DefaultMaxTools
// tools, as a runtime.Session lists it, and no further.
func TestListToolsBounded(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{PageSize: 1000})
	for i := range runtime.DefaultMaxTools + 1 {
		server.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%05d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	tools, err := New(cs).ListTools(ctx)
	if err == nil || !strings.Contains(err.Error(), "more than 10000 tools") {
		t.Fatalf("ListTools of %d tools = %d tools, %v; want an error naming the limit", runtime.DefaultMaxTools+1, len(tools), err)
	}
}
