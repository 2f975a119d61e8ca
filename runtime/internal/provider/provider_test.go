package provider

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

type echoCaller struct{ calls atomic.Int32 }

func (c *echoCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	c.calls.Add(1)
	return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: name}}}, nil
}

// TestToolsNames checks both directions of the name map, the entry's
// schema, and the message for an undeclared name.
func TestToolsNames(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "light.on", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		{Name: "noschema"},
	}
	ts := NewTools(&echoCaller{}, tools, map[string]string{"light_on": "light.on", "noschema": "noschema"})
	if n, ok := ts.MCPName("light_on"); !ok || n != "light.on" {
		t.Errorf("MCPName(light_on) = %q, %v", n, ok)
	}
	if d, ok := ts.DeclaredName("light.on"); !ok || d != "light_on" {
		t.Errorf("DeclaredName(light.on) = %q, %v", d, ok)
	}
	if _, ok := ts.MCPName("light.on"); ok {
		t.Error("MCPName found an MCP name given as a declared one")
	}
	if e, _ := ts.Lookup("light_on"); e == nil || e.Schema == nil {
		t.Error("light_on has no schema")
	}
	if e, _ := ts.Lookup("noschema"); e == nil || e.Schema != nil {
		t.Error("noschema has a schema or no entry")
	}
	if msg := ts.Unknown("function", "x"); msg != `unknown function "x"; the functions are: light_on, noschema` {
		t.Errorf("Unknown = %q", msg)
	}
}

// TestToolsRunValidatesAndConfirms runs calls: invalid arguments never reach
// the caller, and a declined confirmation stops the call; a confirmation
// naming an unknown tool is refused and changes nothing.
func TestToolsRunValidatesAndConfirms(t *testing.T) {
	c := &echoCaller{}
	tools := []runtime.Tool{{Name: "del", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}}
	ts := NewTools(c, tools, map[string]string{"del": "del"})
	e, _ := ts.Lookup("del")
	if out := ts.Run(context.Background(), e, []byte(`{"n":"x"}`), nil); out.Called || !strings.Contains(out.Error, "/n") {
		t.Errorf("invalid arguments: %+v", out)
	}
	if err := ts.Confirm(&runtime.Confirmation{Policy: runtime.ConfirmListed, Tools: []string{"nope"}, Ask: func(context.Context, runtime.ProposedCall) (bool, error) { return true, nil }}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Confirm of an unknown tool: %v", err)
	}
	if out := ts.Run(context.Background(), e, []byte(`{"n":1}`), nil); !out.Called || out.Text != "del" {
		t.Errorf("call after a refused Confirm: %+v", out)
	}
	if err := ts.Confirm(&runtime.Confirmation{Policy: runtime.ConfirmEvery, Ask: func(context.Context, runtime.ProposedCall) (bool, error) { return false, nil }}); err != nil {
		t.Fatal(err)
	}
	if out := ts.Run(context.Background(), e, []byte(`{"n":1}`), nil); out.Called || !strings.Contains(out.Error, "declined") {
		t.Errorf("declined call: %+v", out)
	}
	if n := c.calls.Load(); n != 1 {
		t.Errorf("%d calls reached the caller, want 1", n)
	}
}

// TestHandleAllKeepsOrderAndRunsConcurrently runs calls that finish in the
// reverse order they were given: the results keep the calls' order, and
// every call is in flight at once.
func TestHandleAllKeepsOrderAndRunsConcurrently(t *testing.T) {
	const n = 4
	var started atomic.Int32
	all := make(chan struct{})
	got := HandleAll(context.Background(), []int{0, 1, 2, 3}, func(ctx context.Context, i int) string {
		if started.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(time.Minute):
			return "not concurrent"
		}
		return strings.Repeat("x", i)
	})
	if want := []string{"", "x", "xx", "xxx"}; !slices.Equal(got, want) {
		t.Errorf("HandleAll = %q, want %q", got, want)
	}
}

// TestSample checks the shared steps of a sampling request: a request
// convert refuses is neither shown for approval nor sent.
func TestSample(t *testing.T) {
	req := &runtime.SamplingRequest{}
	convert := func() (string, error) { return "converted", nil }
	send := func(_ context.Context, p string) (Answer, error) {
		if p != "converted" {
			return Answer{}, errors.New("sent " + p)
		}
		return Answer{Text: "hi", StopReason: "endTurn"}, nil
	}
	if _, err := Sample(context.Background(), req, false, "p sampler: Client and Model must be set", nil, "m", convert, send); err == nil || err.Error() != "p sampler: Client and Model must be set" {
		t.Errorf("not ready: %v", err)
	}
	deny := runtime.SamplingApproval(func(context.Context, *runtime.SamplingRequest) (bool, error) { return false, nil })
	if _, err := Sample(context.Background(), req, true, "", deny, "m", convert, send); !errors.Is(err, runtime.ErrDeclined) {
		t.Errorf("declined: %v, want ErrDeclined", err)
	}
	res, err := Sample(context.Background(), req, true, "", nil, "m", convert, send)
	if err != nil || res.Model != "m" || res.StopReason != "endTurn" || len(res.Content) != 1 || res.Content[0].Text != "hi" {
		t.Errorf("Sample = %+v, %v", res, err)
	}
	boom := errors.New("boom")
	if _, err := Sample(context.Background(), req, true, "", nil, "m", convert, func(context.Context, string) (Answer, error) { return Answer{}, boom }); !errors.Is(err, boom) {
		t.Errorf("send error: %v", err)
	}
	asked, sent := false, false
	ask := runtime.SamplingApproval(func(context.Context, *runtime.SamplingRequest) (bool, error) { asked = true; return true, nil })
	refuse := func() (string, error) { return "", boom }
	_, err = Sample(context.Background(), req, true, "", ask, "m", refuse, func(context.Context, string) (Answer, error) { sent = true; return Answer{}, nil })
	if !errors.Is(err, boom) || asked || sent {
		t.Errorf("refused by convert: error %v, asked %v, sent %v; want boom, neither asked nor sent", err, asked, sent)
	}
}
