package outputs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

type fakeCaller struct {
	name   string
	args   string
	result *runtime.Result
	err    error
}

func (f *fakeCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	data, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	f.name, f.args = name, string(data)
	return f.result, f.err
}

func TestTypedResults(t *testing.T) {
	ctx := context.Background()
	fc := &fakeCaller{result: &runtime.Result{StructuredContent: json.RawMessage(`{"sum":5}`)}}
	c := NewClient(fc)
	sum, err := c.Add(ctx, AddArgs{A: 2, B: 3})
	if err != nil || sum.Sum != 5 {
		t.Fatalf("Add = %+v, %v", sum, err)
	}
	if fc.name != "add" || fc.args != `{"a":2,"b":3}` {
		t.Errorf("sent %s %s", fc.name, fc.args)
	}

	fc.result = &runtime.Result{StructuredContent: json.RawMessage(`{"items":[{"name":"x","(default)":true}],"next":null}`)}
	look, err := c.Lookup(ctx, LookupArgs{ID: "1"})
	if err != nil || len(look.Items) != 1 || look.Items[0].Name != "x" || look.Items[0].Default == nil || !*look.Items[0].Default || look.Next != nil {
		t.Fatalf("Lookup = %+v, %v", look, err)
	}

	fc.result = &runtime.Result{StructuredContent: json.RawMessage(`{"kind":"rect","w":2,"h":3}`)}
	shape, err := c.Shape(ctx, ShapeArgs{})
	if err != nil || shape.Rect == nil || shape.Circle != nil || shape.Rect.W != 2 {
		t.Fatalf("Shape = %+v, %v", shape, err)
	}
	if data, err := json.Marshal(shape); err != nil || string(data) != `{"kind":"rect","w":2,"h":3}` {
		t.Errorf("re-encoding the shape gave %s, %v", data, err)
	}
}

func TestResultErrors(t *testing.T) {
	ctx := context.Background()
	fc := &fakeCaller{result: &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "5"}}}}
	c := NewClient(fc)
	if _, err := c.Add(ctx, AddArgs{A: 2, B: 3}); err == nil || !strings.Contains(err.Error(), "tool add returned no structured content") {
		t.Errorf("no structured content: %v", err)
	}
	fc.result = &runtime.Result{StructuredContent: json.RawMessage(`{"total":5}`)}
	if _, err := c.Add(ctx, AddArgs{A: 2, B: 3}); err == nil || !strings.Contains(err.Error(), "decoding the structured result of tool add") {
		t.Errorf("a result without its required property: %v", err)
	}
	fc.result = &runtime.Result{StructuredContent: json.RawMessage(`{"kind":"hexagon"}`)}
	if _, err := c.Shape(ctx, ShapeArgs{}); err == nil {
		t.Error("a shape matching no branch decoded")
	}
	fc.result = &runtime.Result{IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: "overflow"}}}
	var te *runtime.ToolError
	if _, err := c.Add(ctx, AddArgs{A: 2, B: 3}); !errors.As(err, &te) || te.Tool != "add" {
		t.Errorf("an isError result gave %v", err)
	}
	fc.result, fc.err = nil, errors.New("connection lost")
	if _, err := c.Add(ctx, AddArgs{A: 2, B: 3}); err == nil || err.Error() != "connection lost" {
		t.Errorf("a caller error gave %v", err)
	}
}

// TestRawChecks checks the search tool, whose if/then only the tool's own
// schema can check: Validate runs it, so a since without a sort is refused
// before anything is sent.
func TestRawChecks(t *testing.T) {
	fc := &fakeCaller{result: &runtime.Result{}}
	c := NewClient(fc)
	since := "2024-05-01T10:00:00Z"
	_, err := c.Search(context.Background(), SearchArgs{Query: "q", Since: &since})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Tool != "search" || fc.name != "" {
		t.Fatalf("search with since and no sort: %v (sent %q)", err, fc.name)
	}
	asc := SearchSortAsc
	if _, err := c.Search(context.Background(), SearchArgs{Query: "q", Since: &since, Sort: &asc}); err != nil {
		t.Fatal(err)
	}
	if fc.args != `{"query":"q","sort":"asc","since":"2024-05-01T10:00:00Z"}` {
		t.Errorf("sent %s", fc.args)
	}
	bad := "yesterday"
	if _, err := c.Search(context.Background(), SearchArgs{Query: "q", Since: &bad, Sort: &asc}); !errors.As(err, &ve) || ve.Pointer != "/since" {
		t.Errorf("a since that is not a date-time: %v", err)
	}
	if _, err := c.Search(context.Background(), SearchArgs{Query: ""}); !errors.As(err, &ve) || ve.Pointer != "/query" {
		t.Errorf("an empty query: %v", err)
	}
	if _, err := c.Lookup(context.Background(), LookupArgs{ID: "1"}); err == nil {
		t.Error("Lookup returned no error for a result without structured content")
	}
}

// TestDecodeErrorsNameToolAndPointer checks that a structured result that
// does not decode is reported with the tool and the JSON pointer of the
// value, through the client too.
func TestDecodeErrorsNameToolAndPointer(t *testing.T) {
	var lookup LookupResult
	err := json.Unmarshal([]byte(`{"items":[{"name":"a"},{"name":"b","(default)":"yes"}]}`), &lookup)
	if want := "invalid result of lookup at /items/1/(default): must be a boolean, not a string"; err == nil || err.Error() != want {
		t.Errorf("LookupResult: got %v, want %s", err, want)
	}
	var shape ShapeResult
	err = json.Unmarshal([]byte(`{"kind":"circle","r":"big"}`), &shape)
	if want := "invalid result of shape at /r: must be a number, not a string"; err == nil || err.Error() != want {
		t.Errorf("ShapeResult: got %v, want %s", err, want)
	}
	fc := &fakeCaller{result: &runtime.Result{StructuredContent: json.RawMessage(`{"items":[{"name":7}]}`)}}
	_, err = NewClient(fc).Lookup(context.Background(), LookupArgs{ID: "x"})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Tool != "lookup" || ve.Pointer != "/items/0/name" {
		t.Errorf("Lookup: got %v, want a *runtime.ValidationError for lookup at /items/0/name", err)
	}
}
