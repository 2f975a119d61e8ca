package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcprt "github.com/mcpgen/mcpgen/runtime"
)

// The clients measured, in the order their rows appear. goSDK is the
// reference the ratios are taken against.
const (
	clientRuntime = "mcpgen"
	// clientRuntimeOtel is mcpgen with runtime/otelmcp installed: every
	// call sampled, exported and measured, with its trace context sent.
	clientRuntimeOtel = "mcpgen+otel"
	clientGoSDK       = "go-sdk"
	clientMCPGo       = "mcp-go"
	clientFloor       = "floor"
)

var clientNames = []string{clientRuntime, clientRuntimeOtel, clientGoSDK, clientMCPGo, clientFloor}

// The transports measured.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

var transportNames = []string{transportStdio, transportHTTP}

// transportHTTPLegacy keys the results of the HTTP workers pinned to the
// 2025-11-25 era, which only the targets read.
const transportHTTPLegacy = "http-2025-11-25"

// echoArgs and bigArgs are the arguments every client sends, as the same Go
// values, so that each encodes them its own way.
type echoArgs struct {
	Message string `json:"message"`
}

type bigArgs struct {
	N int `json:"n"`
}

// A benchClient is one MCP client library behind the few calls the bench
// makes. call returns the text of the result's first content block.
type benchClient interface {
	listTools(ctx context.Context) (int, error)
	call(ctx context.Context, tool string, args any) (string, error)
	close() error
}

// target says where the server is: the stdio command, or the URL of the
// Streamable HTTP endpoint.
type target struct {
	transport string
	command   string
	url       string
	// stateful marks a server that keeps sessions; mcp-go then asks for
	// the version such a server negotiates, as its later requests must
	// carry it.
	stateful bool
	// legacy pins the worker's session to the 2025-11-25 era (see
	// connectLegacy).
	legacy bool
}

// connect opens a session of the named client to the server, including the
// handshake (or, for a 2026-07-28 client, the discovery probe).
func connect(ctx context.Context, name string, t target) (benchClient, error) {
	switch name {
	case clientRuntime, clientRuntimeOtel:
		var tr mcprt.Transport
		if t.transport == transportStdio {
			tr = mcprt.NewCommandTransport(t.command)
		} else {
			tr = mcprt.StreamableHTTP(t.url, nil)
		}
		opts := &mcprt.Options{ClientName: "mcpbench", ClientVersion: "1"}
		var stop func()
		if name == clientRuntimeOtel {
			var err error
			if stop, err = installTelemetry(opts); err != nil {
				return nil, err
			}
		}
		s, err := mcprt.Connect(ctx, tr, opts)
		if err != nil {
			return nil, err
		}
		return runtimeClient{s, stop}, nil
	case clientGoSDK:
		var tr mcp.Transport
		if t.transport == transportStdio {
			tr = &mcp.CommandTransport{Command: exec.Command(t.command)}
		} else {
			tr = &mcp.StreamableClientTransport{Endpoint: t.url}
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
		s, err := c.Connect(ctx, tr, nil)
		if err != nil {
			return nil, err
		}
		return goSDKClient{s}, nil
	case clientMCPGo:
		var c *mcpgoclient.Client
		var err error
		if t.transport == transportStdio {
			c, err = mcpgoclient.NewStdioMCPClient(t.command, nil)
		} else {
			c, err = mcpgoclient.NewStreamableHttpClient(t.url)
			if err == nil {
				err = c.Start(ctx)
			}
		}
		if err != nil {
			return nil, err
		}
		req := mcpgo.InitializeRequest{}
		req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
		if t.stateful {
			req.Params.ProtocolVersion = "2025-11-25"
		}
		req.Params.ClientInfo = mcpgo.Implementation{Name: "mcpbench", Version: "1"}
		if _, err := c.Initialize(ctx, req); err != nil {
			c.Close()
			return nil, err
		}
		return mcpGoClient{c}, nil
	case clientFloor:
		if t.transport == transportStdio {
			return dialFloorStdio(ctx, t.command)
		}
		return dialFloorHTTP(ctx, t.url)
	}
	return nil, fmt.Errorf("client %q: unknown; want one of %v", name, clientNames)
}

// legacyClients are the clients connectLegacy can pin to the legacy era.
var legacyClients = map[string]bool{clientRuntime: true, clientFloor: true}

// connectLegacy opens a session as connect does, but in the legacy era:
// with the 2025-11-25 initialize handshake instead of the discovery probe.
// Only legacyClients are supported.
func connectLegacy(ctx context.Context, name string, t target) (benchClient, error) {
	switch name {
	case clientRuntime:
		return connectRuntimePinned(ctx, t, mcprt.LatestLegacyProtocolVersion)
	case clientFloor:
		if t.transport == transportStdio {
			return dialFloorStdioLegacy(ctx, t.command)
		}
		return dialFloorHTTPLegacy(ctx, t.url)
	}
	return nil, fmt.Errorf("client %q: cannot be pinned to the legacy era", name)
}

// connectRuntimePinned opens a Session of the runtime pinned to version.
func connectRuntimePinned(ctx context.Context, t target, version string) (benchClient, error) {
	var tr mcprt.Transport = mcprt.StreamableHTTP(t.url, nil)
	if t.transport == transportStdio {
		tr = mcprt.NewCommandTransport(t.command)
	}
	s, err := mcprt.Connect(ctx, tr, &mcprt.Options{
		ClientName: "mcpbench", ClientVersion: "1", ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	return runtimeClient{s, nil}, nil
}

// runtimeClient is a Session; stop, when set, flushes and stops its
// telemetry.
type runtimeClient struct {
	s    *mcprt.Session
	stop func()
}

func (c runtimeClient) listTools(ctx context.Context) (int, error) {
	tools, err := c.s.ListTools(ctx)
	return len(tools), err
}

func (c runtimeClient) call(ctx context.Context, tool string, args any) (string, error) {
	res, err := c.s.CallTool(ctx, tool, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool %s: %s", tool, res.Text())
	}
	return res.Text(), nil
}

func (c runtimeClient) close() error {
	err := c.s.Close()
	if c.stop != nil {
		c.stop()
	}
	return err
}

type goSDKClient struct{ s *mcp.ClientSession }

func (c goSDKClient) listTools(ctx context.Context) (int, error) {
	res, err := c.s.ListTools(ctx, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

func (c goSDKClient) call(ctx context.Context, tool string, args any) (string, error) {
	res, err := c.s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", fmt.Errorf("tool %s: empty result", tool)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || res.IsError {
		return "", fmt.Errorf("tool %s: unexpected result", tool)
	}
	return text.Text, nil
}

func (c goSDKClient) close() error { return c.s.Close() }

type mcpGoClient struct{ c *mcpgoclient.Client }

func (c mcpGoClient) listTools(ctx context.Context) (int, error) {
	res, err := c.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

func (c mcpGoClient) call(ctx context.Context, tool string, args any) (string, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", fmt.Errorf("tool %s: empty result", tool)
	}
	text, ok := res.Content[0].(mcpgo.TextContent)
	if !ok || res.IsError {
		return "", fmt.Errorf("tool %s: unexpected result %T", tool, res.Content[0])
	}
	return text.Text, nil
}

func (c mcpGoClient) close() error {
	err := c.c.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
