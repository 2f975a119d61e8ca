// Command sdkserver is an MCP server built on the official go-sdk, used by
// mcpgen's integration tests and benchmarks as a real modern (2026-07-28)
// peer that also speaks the legacy handshake.
//
// It lives in its own module so that the go-sdk never enters mcpgen's main
// go.mod. It serves these tools:
//
//	echo      returns its message as text
//	add       adds two numbers, with structured output
//	big       returns n bytes of text
//	progress  sends steps progress notifications, then returns
//	fail      returns a tool error (isError) with its message
//	slow      sleeps for ms milliseconds, or until cancelled; it logs on
//	          stderr when it starts and when it is cancelled
//
// With -input it also serves deploy, ask and roots, which ask the client for
// input (see addInputTools). With -grow it also serves grow, which adds the
// tool extra, so that the server sends notifications/tools/list_changed.
//
// Usage:
//
//	sdkserver                     serve over stdio
//	sdkserver -http 127.0.0.1:0   serve stateless Streamable HTTP; the first
//	                              line on stdout is the URL
//	sdkserver -http ADDR -stateful  keep sessions (Mcp-Session-Id)
//	sdkserver -input ...          add the tools that ask for input
//	sdkserver -grow ...           add the tool grow
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to echo back"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addResult struct {
	Sum float64 `json:"sum" jsonschema:"a plus b"`
}

type bigArgs struct {
	N int `json:"n" jsonschema:"how many bytes of text to return"`
}

type progressArgs struct {
	Steps int `json:"steps" jsonschema:"how many progress notifications to send"`
}

type failArgs struct {
	Message string `json:"message" jsonschema:"the error text"`
}

type slowArgs struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkserver", Version: "1.0.0"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its message back as text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers and returns the sum as structured output."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addResult, error) {
			return nil, addResult{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns n bytes of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
			if in.N < 0 || in.N > 64<<20 {
				return nil, nil, fmt.Errorf("n must be between 0 and %d", 64<<20)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.N)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Sends progress notifications, then returns."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressArgs) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps && token != nil; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.Steps),
					Message: fmt.Sprintf("step %d of %d", i, in.Steps),
				})
				if err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done after %d steps", in.Steps)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails with a tool error carrying its message."},
		func(_ context.Context, _ *mcp.CallToolRequest, in failArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps for ms milliseconds, or until the call is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
			log.Printf("slow: started (%d ms)", in.MS)
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
			case <-ctx.Done():
				log.Printf("slow: cancelled (%d ms)", in.MS)
				return nil, nil, ctx.Err()
			}
		})
	return s
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` instead of stdio; prints the URL first")
	stateful := flag.Bool("stateful", false, "with -http, keep sessions instead of serving stateless")
	input := flag.Bool("input", false, "add the tools that ask the client for input (elicitation, sampling, roots)")
	grow := flag.Bool("grow", false, "add the tool grow, which adds the tool extra")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("sdkserver: ")

	s := newServer()
	if *input {
		addInputTools(s)
	}
	if *grow {
		addGrowTool(s)
	}
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: !*stateful, PropagateRequestCancellation: true})
	fmt.Fprintf(os.Stdout, "http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.Serve(ln, mux))
}

type extraArgs struct {
	Word string `json:"word" jsonschema:"the word to repeat"`
}

// addGrowTool adds the tool grow, whose call adds the tool extra: the
// server then tells its clients that its tool list changed.
func addGrowTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds the tool extra to the server's tools."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "Repeats a word twice."},
				func(_ context.Context, _ *mcp.CallToolRequest, in extraArgs) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Word + " " + in.Word}}}, nil, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added extra"}}}, nil, nil
		})
}
