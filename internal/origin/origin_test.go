package origin

import (
	"net/url"
	"testing"
)

func TestSameHost(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://mcp.test/sse", "http://mcp.test:80/messages", true},
		{"https://MCP.test/x", "https://mcp.test:443/y", true},
		{"http://mcp.test", "https://mcp.test", false}, // ports 80 and 443
		{"http://mcp.test:8080", "http://mcp.test", false},
		{"http://mcp.test:80", "https://mcp.test:80", true}, // the ports alone; schemes are the caller's
		{"ws://mcp.test", "ws://mcp.test:80", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := SameHost(a, b); got != c.same {
			t.Errorf("SameHost(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
