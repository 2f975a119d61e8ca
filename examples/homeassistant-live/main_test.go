package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/internal/testing/livetest"
)

// standIn is a Home Assistant MCP server stand-in in the legacy protocol
// era: Streamable HTTP with plain JSON responses at /api/mcp, serving the
// 15 tools of the checked-in snapshot. It records every tools/call.
type standIn struct {
	tools json.RawMessage // the "tools" array of the snapshot

	mu    sync.Mutex
	calls []toolCall
}

type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// newStandIn starts the stand-in and returns it with its endpoint URL.
func newStandIn(t *testing.T) (*standIn, string) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/homeassistant-tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatalf("reading the snapshot: %v", err)
	}
	s := &standIn{tools: snap.Result.Tools}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/api/mcp"
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/mcp" || r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer ha-secret" {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result, rpcErr any
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(req.Params, &p)
		result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": "home-assistant", "version": "1.26.0"},
		}
	case "tools/list":
		result = map[string]any{"tools": s.tools}
	case "tools/call":
		var c toolCall
		if err := json.Unmarshal(req.Params, &c); err != nil {
			rpcErr = map[string]any{"code": -32602, "message": err.Error()}
			break
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"speech":{},"response_type":"action_done","data":{"success":[{"name":"Heater","type":"entity","id":"climate.bathroom"}],"failed":[]}}`}}}
	default:
		rpcErr = map[string]any{"code": -32601, "message": "Method not found"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (s *standIn) recorded() []toolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]toolCall(nil), s.calls...)
}

// TestUsage checks the mistakes that stop the assistant before it connects.
func TestUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no url", nil, map[string]string{"GEMINI_API_KEY": "k"}, "--url (or $HA_URL) is required"},
		{"no key", []string{"--url", "http://127.0.0.1:1/api/mcp"}, nil, "GEMINI_API_KEY is not set"},
		{"bad flag", []string{"--nope"}, nil, "flag provided but not defined: -nope"},
		{"audio out alone", []string{"--url", "http://127.0.0.1:1/api/mcp", "--audio-out", "x.pcm"}, map[string]string{"GEMINI_API_KEY": "k"}, "--audio-out needs --audio"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return c.env[k] })
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}

// TestAudio runs the assistant with --audio against the Home Assistant and
// Live API stand-ins: the file's PCM reaches the model in 100 ms chunks
// followed by the end of the stream, the model's HassTurnOn call runs, and
// the transcript of the spoken answer is printed while its audio goes to
// --audio-out.
func TestAudio(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	server, url := newStandIn(t)
	gemini := livetest.Serve(t)
	dir := t.TempDir()
	pcm := bytes.Repeat([]byte{1, 2, 3, 4}, 2000) // 8000 bytes: a quarter of a second
	in, out := filepath.Join(dir, "request.pcm"), filepath.Join(dir, "answer.pcm")
	if err := os.WriteFile(in, pcm, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEST_HA_TOKEN", "ha-secret")
	env := map[string]string{"GEMINI_API_KEY": livetest.APIKey}
	args := []string{"--yes", "--audio", in, "--audio-out", out, "--token-env", "TEST_HA_TOKEN", "--url", url, "--base-url", gemini.URL, "--model", "gemini-test", "--timeout", "60s"}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	}()

	conn := gemini.Accept(t)
	var setup struct {
		Setup struct {
			GenerationConfig struct {
				ResponseModalities []string `json:"responseModalities"`
			} `json:"generationConfig"`
			OutputAudioTranscription *struct{} `json:"outputAudioTranscription"`
		} `json:"setup"`
	}
	if err := json.Unmarshal(conn.Setup, &setup); err != nil {
		t.Fatal(err)
	}
	if strings.Join(setup.Setup.GenerationConfig.ResponseModalities, ",") != "AUDIO" || setup.Setup.OutputAudioTranscription == nil {
		t.Errorf("setup %s, want audio answers with their transcription", conn.Setup)
	}
	var got []byte
	var sizes []int
	for {
		var m struct {
			RealtimeInput struct {
				Audio *struct {
					Data     []byte `json:"data"`
					MIMEType string `json:"mimeType"`
				} `json:"audio"`
				AudioStreamEnd bool `json:"audioStreamEnd"`
			} `json:"realtimeInput"`
		}
		raw := conn.NextOf(t, "realtimeInput")
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m.RealtimeInput.AudioStreamEnd {
			break
		}
		if a := m.RealtimeInput.Audio; a == nil || a.MIMEType != "audio/pcm;rate=16000" {
			t.Fatalf("the model got %s", raw)
		}
		got = append(got, m.RealtimeInput.Audio.Data...)
		sizes = append(sizes, len(m.RealtimeInput.Audio.Data))
	}
	if !bytes.Equal(got, pcm) || fmt.Sprint(sizes) != "[3200 3200 1600]" {
		t.Errorf("the model got %d bytes of audio in chunks of %v, want the file's 8000 in 100 ms chunks", len(got), sizes)
	}
	conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-1","name":"HassTurnOn","args":{"name":"heater"}}]}}`)
	if raw := conn.NextOf(t, "toolResponse"); !strings.Contains(string(raw), `"id":"c-1"`) || !strings.Contains(string(raw), "action_done") {
		t.Errorf("tool response %s", raw)
	}
	spoken := base64.StdEncoding.EncodeToString([]byte("spoken answer"))
	conn.Send(t, `{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"`+spoken+`"}}]},"outputTranscription":{"text":"The heater is on."}}}`)
	conn.Send(t, `{"serverContent":{"turnComplete":true}}`)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the assistant did not finish")
	}
	if stdout.String() != "The heater is on.\n" {
		t.Errorf("printed %q", stdout.String())
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "spoken answer" {
		t.Errorf("--audio-out holds %q (%v)", b, err)
	}
	if calls := server.recorded(); len(calls) != 1 || calls[0].Name != "HassTurnOn" {
		t.Errorf("the server got %+v", calls)
	}
}

// TestAudioInterruptedAnswerDropped: the user goes on speaking while the
// model answers, and the server interrupts the answer (serverContent
// interrupted) before the model answers again. The answer printed is the
// one the model completed; the interrupted transcript used to be printed
// before it, as if the model had said both.
func TestAudioInterruptedAnswerDropped(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	_, url := newStandIn(t)
	gemini := livetest.Serve(t)
	in := filepath.Join(t.TempDir(), "request.pcm")
	if err := os.WriteFile(in, bytes.Repeat([]byte{1, 2}, 1600), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEST_HA_TOKEN", "ha-secret")
	env := map[string]string{"GEMINI_API_KEY": livetest.APIKey}
	args := []string{"--yes", "--audio", in, "--token-env", "TEST_HA_TOKEN", "--url", url, "--base-url", gemini.URL, "--model", "gemini-test", "--timeout", "60s"}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	}()
	conn := gemini.Accept(t)
	conn.Send(t, `{"serverContent":{"outputTranscription":{"text":"The heat"}}}`)
	conn.Send(t, `{"serverContent":{"interrupted":true}}`)
	conn.Send(t, `{"serverContent":{"turnComplete":true}}`)
	conn.Send(t, `{"serverContent":{"outputTranscription":{"text":"The fan is on."}}}`)
	conn.Send(t, `{"serverContent":{"turnComplete":true}}`)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the assistant did not finish")
	}
	if stdout.String() != "The fan is on.\n" {
		t.Errorf("printed %q, want the completed answer alone", stdout.String())
	}
}
