package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestURLElicitationSchemes sends URL-mode elicitations: the handler sees
// only http and https URLs, and the others (javascript:, file:, data:, no
// scheme, no host) are declined without it.
func TestURLElicitationSchemes(t *testing.T) {
	checkLeaks(t)
	answered := make(chan memMsg, 20)
	c := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "" {
			answered <- m
		}
		return nil
	}))
	var mu sync.Mutex
	var shown []string
	handler := func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
		mu.Lock()
		shown = append(shown, req.URL)
		mu.Unlock()
		return &ElicitResult{Action: ElicitAccept}, nil
	}
	s, err := Connect(context.Background(), c, &Options{ProtocolVersion: "2025-11-25", Elicitation: handler})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := []struct{ url, action string }{
		{"https://auth.example.com/login", ElicitAccept},
		{"http://127.0.0.1:8080/x", ElicitAccept},
		{"javascript:alert(1)", ElicitDecline},
		{"JavaScript://example.com/%0aalert(1)", ElicitDecline},
		{"file:///etc/passwd", ElicitDecline},
		{"data:text/html,<script>alert(1)</script>", ElicitDecline},
		{"", ElicitDecline},
		{"//example.com/x", ElicitDecline},
		{"https:///nohost", ElicitDecline},
	}
	for i, tc := range cases {
		c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"mode":"url","message":"go","url":%q,"elicitationId":"e%d"}}`, i, tc.url, i))
		m := <-answered
		if want := `"action":"` + tc.action + `"`; !strings.Contains(m.Raw, want) {
			t.Errorf("%q: answered %s, want %s", tc.url, m.Raw, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 2 {
		t.Errorf("the handler was shown %q, want only the http and https URLs", shown)
	}
}
