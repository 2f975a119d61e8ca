package outputs

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// stdioEnv makes the test binary serve NewServer(&adder{}) over stdio
// instead of running tests.
const stdioEnv = "MCPGEN_OUTPUTS_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(stdioEnv) != "" {
		s, err := NewServer(&adder{}, nil)
		if err == nil {
			err = s.Serve(context.Background(), os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// adder implements only add and shape, one with a typed result each; the
// other tools answer as a server without them does.
type adder struct {
	UnimplementedHandler
	got []AddArgs
}

func (a *adder) Add(_ context.Context, args AddArgs) (*AddResult, error) {
	a.got = append(a.got, args)
	if args.A < 0 {
		return nil, errors.New("negative numbers are not supported")
	}
	return &AddResult{Sum: args.A + args.B}, nil
}

func (a *adder) Shape(context.Context, ShapeArgs) (*ShapeResult, error) {
	// A result the output schema refuses: neither branch of its oneOf.
	return &ShapeResult{}, nil
}

// The generated fake serves the typed handler in both eras: typed
// arguments and results through the generated Client, isError from a
// handler's error, the unknown-tool error for unimplemented tools, and the
// input schema's checks on raw arguments.
func TestFakeServesTheHandlerInBothEras(t *testing.T) {
	ctx := context.Background()
	for _, pin := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(pin, func(t *testing.T) {
			h := &adder{}
			sess, err := NewFake(h, &runtime.Options{ProtocolVersion: pin})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if got := sess.ProtocolVersion(); got != pin {
				t.Fatalf("negotiated %s", got)
			}
			c := NewClient(sess)

			sum, err := c.Add(ctx, AddArgs{A: 2, B: 3})
			if err != nil || sum.Sum != 5 {
				t.Fatalf("Add = %+v, %v", sum, err)
			}
			if len(h.got) != 1 || !reflect.DeepEqual(h.got[0], AddArgs{A: 2, B: 3}) {
				t.Fatalf("the handler got %+v", h.got)
			}

			_, err = c.Add(ctx, AddArgs{A: -1, B: 3})
			var te *runtime.ToolError
			if !errors.As(err, &te) || !te.Result.IsError || te.Result.Text() != "negative numbers are not supported" {
				t.Fatalf("Add(-1) = %v", err)
			}

			_, err = c.Lookup(ctx, LookupArgs{ID: "x"})
			var rpc *runtime.RPCError
			if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInvalidParams || rpc.Message != "Unknown tool: lookup" {
				t.Fatalf("Lookup (unimplemented) = %v", err)
			}

			// The generated Client validates before sending; raw
			// arguments reach the fake, which checks them as a real
			// server does, and never calls the handler.
			res, err := sess.CallTool(ctx, "add", map[string]any{"a": "two", "b": 3})
			if !errors.As(err, &te) || !res.IsError || !strings.Contains(res.Text(), "/a") {
				t.Fatalf("add with a string = %+v, %v", res, err)
			}
			if len(h.got) != 2 {
				t.Fatalf("the handler ran on arguments the schema refuses: %+v", h.got)
			}

			_, err = c.Shape(ctx, ShapeArgs{})
			if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInternalError || !strings.Contains(rpc.Message, "tool shape") {
				t.Fatalf("Shape with a result its schema refuses = %v", err)
			}
		})
	}
}

func TestNewServerRefusesANilHandler(t *testing.T) {
	if _, err := NewFake(nil, nil); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("got %v", err)
	}
	s, err := NewServer(&adder{}, &server.Options{Name: "outputs"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Connect(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.ServerInfo().Name != "outputs" {
		t.Fatalf("server info %+v", sess.ServerInfo())
	}
}

// The generated server answers the typed Client over Streamable HTTP and
// over stdio, in both eras.
func TestServerOverHTTPAndStdio(t *testing.T) {
	ctx := context.Background()
	s, err := NewServer(&adder{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	transports := map[string]runtime.Transport{
		"http":  runtime.HTTP(hs.URL, nil),
		"stdio": &runtime.CommandTransport{Command: exe, Args: []string{"-test.run=^$"}, Env: []string{stdioEnv + "=1"}},
	}
	for name, tr := range transports {
		for _, pin := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(name+"/"+pin, func(t *testing.T) {
				sess, err := runtime.Connect(ctx, tr, &runtime.Options{ProtocolVersion: pin})
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				sum, err := NewClient(sess).Add(ctx, AddArgs{A: 1, B: 2})
				if err != nil || sum.Sum != 3 {
					t.Fatalf("Add = %+v, %v", sum, err)
				}
				var rpc *runtime.RPCError
				if _, err := NewClient(sess).Lookup(ctx, LookupArgs{ID: "x"}); !errors.As(err, &rpc) || rpc.Message != "Unknown tool: lookup" {
					t.Fatalf("Lookup = %v", err)
				}
			})
		}
	}
}
