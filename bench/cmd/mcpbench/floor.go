package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// The floor is the smallest JSON-RPC client that makes the same calls over
// the same pipe or connection: encoding/json for every message, no
// validation, no timeouts, no cancellation, no logging. It speaks the
// 2026-07-28 era (every request carries its protocol version, the client's
// capabilities and its name in _meta), as the mcpgen runtime does against
// this server, so both put the same bytes on the wire
// (TestFloorSendsTheRuntimesRequests). Its costs approximate what the
// transport itself costs.

// floorMeta is the per-request protocol metadata of the 2026-07-28 era:
// what the runtime sends for a client named mcpbench, version 1, that
// declares the tasks extension and nothing else.
var floorMeta = &floorMetaFields{
	ProtocolVersion: "2026-07-28",
	ClientInfo:      floorImplementation{Name: "mcpbench", Version: "1"},
}

type floorMetaFields struct {
	ProtocolVersion    string `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities struct {
		Extensions struct {
			Tasks struct{} `json:"io.modelcontextprotocol/tasks"`
		} `json:"extensions"`
	} `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo floorImplementation `json:"io.modelcontextprotocol/clientInfo"`
}

type floorImplementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// floorInitializeParams are the params of the floor's 2025-11-25
// initialize request.
var floorInitializeParams = map[string]any{
	"protocolVersion": "2025-11-25",
	"capabilities":    struct{}{},
	"clientInfo":      map[string]string{"name": "mcpbench", "version": "1"},
}

type floorRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type floorCallParams struct {
	Name      string           `json:"name"`
	Arguments any              `json:"arguments"`
	Meta      *floorMetaFields `json:"_meta,omitempty"`
}

type floorListParams struct {
	Meta *floorMetaFields `json:"_meta"`
}

type floorResponse struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type floorCallResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func floorText(tool string, r *floorResponse) (string, error) {
	if r.Error != nil {
		return "", fmt.Errorf("tool %s: error %d: %s", tool, r.Error.Code, r.Error.Message)
	}
	var res floorCallResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return "", fmt.Errorf("tool %s: decoding result: %w", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("tool %s: unexpected result", tool)
	}
	return res.Content[0].Text, nil
}

func floorToolCount(r *floorResponse) (int, error) {
	if r.Error != nil {
		return 0, fmt.Errorf("tools/list: error %d: %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return 0, fmt.Errorf("tools/list: decoding result: %w", err)
	}
	return len(res.Tools), nil
}

// floorStdio writes one request line and reads lines until the answer
// arrives, on the caller's goroutine. For concurrent use, startDemux hands
// reading to one goroutine that routes answers by id.
type floorStdio struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	r     *bufio.Reader
	line  []byte
	id    atomic.Int64

	demux   bool
	mu      sync.Mutex // serializes writes, and guards pending
	pending map[int64]chan *floorResponse

	// legacy is set for a session in the legacy era: requests carry no
	// _meta.
	legacy bool
}

func dialFloorStdio(_ context.Context, command string) (*floorStdio, error) {
	cmd := exec.Command(command)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", command, err)
	}
	return &floorStdio{cmd: cmd, stdin: stdin, r: bufio.NewReaderSize(stdout, 64<<10)}, nil
}

// dialFloorStdioProbe starts the server and sends server/discover, as the
// stdio transport asks of a client of the 2026-07-28 era before its first
// request, and waits for the answer.
func dialFloorStdioProbe(ctx context.Context, command string) (*floorStdio, error) {
	c, err := dialFloorStdio(ctx, command)
	if err != nil {
		return nil, err
	}
	r, err := c.roundTrip("server/discover", floorListParams{floorMeta})
	if err == nil && r.Error != nil {
		err = fmt.Errorf("server/discover: error %d: %s", r.Error.Code, r.Error.Message)
	}
	if err == nil {
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if err = json.Unmarshal(r.Result, &res); err == nil && !slices.Contains(res.SupportedVersions, "2026-07-28") {
			err = fmt.Errorf("server/discover: 2026-07-28 is not among %q", res.SupportedVersions)
		}
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// dialFloorStdioLegacy starts the server and runs the 2025-11-25
// handshake: initialize, then notifications/initialized.
func dialFloorStdioLegacy(ctx context.Context, command string) (*floorStdio, error) {
	c, err := dialFloorStdio(ctx, command)
	if err != nil {
		return nil, err
	}
	c.legacy = true
	r, err := c.roundTrip("initialize", floorInitializeParams)
	if err == nil && r.Error != nil {
		err = fmt.Errorf("initialize: error %d: %s", r.Error.Code, r.Error.Message)
	}
	if err == nil {
		_, err = io.WriteString(c.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// readLine returns the next line, valid until the next call.
func (c *floorStdio) readLine() ([]byte, error) {
	c.line = c.line[:0]
	for {
		frag, err := c.r.ReadSlice('\n')
		c.line = append(c.line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return c.line, err
	}
}

func (c *floorStdio) roundTrip(method string, params any) (*floorResponse, error) {
	id := c.id.Add(1)
	line, err := json.Marshal(floorRequest{"2.0", id, method, params})
	if err != nil {
		return nil, err
	}
	line = append(line, '\n')
	if c.demux {
		ch := make(chan *floorResponse, 1)
		c.mu.Lock()
		c.pending[id] = ch
		_, err := c.stdin.Write(line)
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		r := <-ch
		if r == nil {
			return nil, errors.New("floor: connection closed")
		}
		return r, nil
	}
	if _, err := c.stdin.Write(line); err != nil {
		return nil, err
	}
	for {
		data, err := c.readLine()
		if err != nil {
			return nil, err
		}
		var r floorResponse
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, err
		}
		if r.ID == id {
			return &r, nil
		}
	}
}

// startDemux switches to concurrent use: from now on one goroutine reads.
func (c *floorStdio) startDemux() {
	c.demux = true
	c.pending = make(map[int64]chan *floorResponse)
	go func() {
		for {
			data, err := c.readLine()
			if err != nil {
				c.mu.Lock()
				for id, ch := range c.pending {
					close(ch)
					delete(c.pending, id)
				}
				c.mu.Unlock()
				return
			}
			r := new(floorResponse)
			if json.Unmarshal(data, r) != nil || r.ID == 0 {
				continue
			}
			c.mu.Lock()
			ch := c.pending[r.ID]
			delete(c.pending, r.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- r
			}
		}
	}()
}

func (c *floorStdio) listTools(context.Context) (int, error) {
	var params any = floorListParams{floorMeta}
	if c.legacy {
		params = struct{}{}
	}
	r, err := c.roundTrip("tools/list", params)
	if err != nil {
		return 0, err
	}
	return floorToolCount(r)
}

func (c *floorStdio) call(_ context.Context, tool string, args any) (string, error) {
	meta := floorMeta
	if c.legacy {
		meta = nil
	}
	r, err := c.roundTrip("tools/call", floorCallParams{tool, args, meta})
	if err != nil {
		return "", err
	}
	return floorText(tool, r)
}

func (c *floorStdio) close() error {
	c.stdin.Close()
	return c.cmd.Wait()
}

// floorHTTP posts each request with net/http and reads the answer, as JSON
// or as a stream of server-sent events.
type floorHTTP struct {
	url    string
	client *http.Client
	id     atomic.Int64

	// legacy is set for a session in the legacy era: requests carry no
	// _meta, and sessionID, if the server gave one.
	legacy    bool
	sessionID string
}

func dialFloorHTTP(_ context.Context, url string) (*floorHTTP, error) {
	return &floorHTTP{url: url, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}, nil
}

// dialFloorHTTPLegacy runs the 2025-11-25 handshake: initialize, then
// notifications/initialized.
func dialFloorHTTPLegacy(ctx context.Context, url string) (*floorHTTP, error) {
	c, _ := dialFloorHTTP(ctx, url)
	c.legacy = true
	r, err := c.roundTrip("initialize", "", floorInitializeParams)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("initialize: error %d: %s", r.Error.Code, r.Error.Message)
	}
	if _, _, err := c.post("notifications/initialized", "", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, err
	}
	return c, nil
}

// post sends one message and returns the response and its body.
func (c *floorHTTP) post(method, name string, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if !c.legacy {
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	} else if method != "initialize" {
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if c.sessionID != "" {
			req.Header.Set("Mcp-Session-Id", c.sessionID)
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, data)
	}
	if method == "initialize" {
		c.sessionID = resp.Header.Get("Mcp-Session-Id")
	}
	return resp, data, nil
}

func (c *floorHTTP) roundTrip(method, name string, params any) (*floorResponse, error) {
	id := c.id.Add(1)
	body, err := json.Marshal(floorRequest{"2.0", id, method, params})
	if err != nil {
		return nil, err
	}
	resp, data, err := c.post(method, name, body)
	if err != nil {
		return nil, err
	}
	// An event stream: take the data of each event until one answers.
	if ct := resp.Header.Get("Content-Type"); len(ct) >= 17 && ct[:17] == "text/event-stream" {
		for _, line := range bytes.Split(data, []byte("\n")) {
			payload, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue
			}
			var r floorResponse
			if json.Unmarshal(bytes.TrimSpace(payload), &r) == nil && r.ID == id {
				return &r, nil
			}
		}
		return nil, fmt.Errorf("%s: no answer with id %s in the event stream", method, strconv.FormatInt(id, 10))
	}
	var r floorResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (c *floorHTTP) listTools(context.Context) (int, error) {
	var params any = floorListParams{floorMeta}
	if c.legacy {
		params = struct{}{}
	}
	r, err := c.roundTrip("tools/list", "", params)
	if err != nil {
		return 0, err
	}
	return floorToolCount(r)
}

func (c *floorHTTP) call(_ context.Context, tool string, args any) (string, error) {
	meta := floorMeta
	if c.legacy {
		meta = nil
	}
	r, err := c.roundTrip("tools/call", tool, floorCallParams{tool, args, meta})
	if err != nil {
		return "", err
	}
	return floorText(tool, r)
}

func (c *floorHTTP) close() error {
	if c.sessionID != "" {
		if req, err := http.NewRequest(http.MethodDelete, c.url, nil); err == nil {
			req.Header.Set("Mcp-Session-Id", c.sessionID)
			if resp, err := c.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	c.client.CloseIdleConnections()
	return nil
}
