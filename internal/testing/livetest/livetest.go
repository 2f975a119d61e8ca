// Package livetest is a stand-in for the Gemini Live API for tests: a
// WebSocket server on 127.0.0.1 that speaks the BidiGenerateContent JSON
// messages with the real genai client. It is apart from internal/testing/testenv
// so that the tests that do not need genai do not link it.
package livetest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/genai"
)

// APIKey is the API key the Live API stand-in accepts.
const APIKey = "live-test-key"

// livePath is where genai v1.77.0's Live.Connect opens the socket of the
// Gemini Developer API (BackendGeminiAPI, API version v1beta) under the
// client's base URL.
const livePath = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

// Server is a stand-in for the Gemini Live API: a WebSocket server on
// 127.0.0.1 that speaks the BidiGenerateContent JSON messages, one session
// per connection. The test drives each session through the Conn that
// Accept returns.
type Server struct {
	// URL is the ws:// base URL to give genai.HTTPOptions.BaseURL.
	URL   string
	conns chan *Conn
}

// Serve starts a Live API stand-in, stopped when the test ends.
func Serve(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("the Live API stand-in cannot listen: %v", err)
	}
	s := &Server{URL: "ws://" + ln.Addr().String(), conns: make(chan *Conn, 4)}
	up := websocket.Upgrader{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != livePath || r.Header.Get("X-Goog-Api-Key") != APIKey {
			http.Error(w, "unexpected request", http.StatusNotFound)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := &Conn{ws: ws, in: make(chan json.RawMessage, 1024), done: make(chan struct{})}
		go c.read()
		s.conns <- c
	})}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		for {
			select {
			case c := <-s.conns:
				c.Close()
			default:
				return
			}
		}
	})
	return s
}

// Client returns a genai client of the Gemini Developer API pointed at the
// stand-in.
func (s *Server) Client(t testing.TB) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.URL, APIVersion: "v1beta"},
	})
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return c
}

// Accept waits for the next session, reads its setup message and answers
// with setupComplete. The setup message is kept in the Conn.
func (s *Server) Accept(t testing.TB) *Conn {
	t.Helper()
	select {
	case c := <-s.conns:
		t.Cleanup(func() { c.Close() })
		c.Setup = c.Next(t)
		c.Send(t, `{"setupComplete":{}}`)
		return c
	case <-time.After(60 * time.Second):
		t.Fatal("no client opened a Live session")
	}
	return nil
}

// Conn is the stand-in's side of one session.
type Conn struct {
	// Setup is the client's setup message.
	Setup json.RawMessage

	ws   *websocket.Conn
	in   chan json.RawMessage
	done chan struct{} // closed when the client's side ends

	wmu     sync.Mutex
	once    sync.Once
	skipped []json.RawMessage // messages NextOf passed over
}

func (c *Conn) read() {
	defer close(c.done)
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		c.in <- msg
	}
}

// Send sends one server message, a JSON text.
func (c *Conn) Send(t testing.TB, msg string) {
	t.Helper()
	if !json.Valid([]byte(msg)) {
		t.Fatalf("the stand-in was asked to send invalid JSON: %s", msg)
	}
	c.wmu.Lock()
	err := c.ws.WriteMessage(websocket.TextMessage, []byte(msg))
	c.wmu.Unlock()
	if err != nil {
		t.Fatalf("the stand-in could not send %s: %v", msg, err)
	}
}

// Next returns the client's next message, failing the test when none comes
// within a minute or the client's side ends first.
func (c *Conn) Next(t testing.TB) json.RawMessage {
	t.Helper()
	select {
	case m := <-c.in:
		return m
	case <-c.done:
		select {
		case m := <-c.in:
			return m
		default:
		}
		t.Fatal("the client ended the session while the stand-in waited for a message")
	case <-time.After(60 * time.Second):
		t.Fatal("no client message within a minute")
	}
	return nil
}

// NextOf returns the client's next message whose top-level key is kind
// ("toolResponse", "contextUpdate", "clientContent", "realtimeInput"),
// keeping the others for Rest.
func (c *Conn) NextOf(t testing.TB, kind string) json.RawMessage {
	t.Helper()
	for {
		m := c.Next(t)
		if strings.HasPrefix(strings.TrimSpace(string(m)), `{"`+kind+`"`) {
			return m
		}
		c.wmu.Lock()
		c.skipped = append(c.skipped, m)
		c.wmu.Unlock()
	}
}

// Close closes the connection, as a server going away does.
func (c *Conn) Close() {
	c.once.Do(func() {
		c.wmu.Lock()
		c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.wmu.Unlock()
		c.ws.Close()
	})
}

// Drain closes the connection and returns every client message that
// arrived and was not read yet, the ones NextOf skipped first.
func (c *Conn) Drain() []json.RawMessage {
	c.Close()
	<-c.done
	c.wmu.Lock()
	out := append([]json.RawMessage(nil), c.skipped...)
	c.wmu.Unlock()
	for {
		select {
		case m := <-c.in:
			out = append(out, m)
		default:
			return out
		}
	}
}

// Pending is the queue of client messages not read yet, for a test that
// checks that nothing came.
func (c *Conn) Pending() <-chan json.RawMessage { return c.in }
