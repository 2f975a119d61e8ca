package auth

import (
	"context"
	"net/url"
	"slices"
	"testing"
)

func TestServerResources(t *testing.T) {
	got, err := ServerResources("HTTPS://Example.COM:443/api/mcp/?q=1#f")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://example.com/api/mcp", "https://example.com/api", "https://example.com", "https://example.com/"}
	if !slices.Equal(got, want) {
		t.Fatalf("ServerResources = %q, want %q", got, want)
	}
	if _, err := ServerResources("/relative"); err == nil {
		t.Fatal("a relative URL was accepted")
	}
}

// TestServerResourcesMatchDiscovery checks that the resource OAuth stores a
// grant under, for a server whose metadata names the server itself or its
// origin, is one that ServerResources lists.
func TestServerResourcesMatchDiscovery(t *testing.T) {
	server, _ := url.Parse("http://localhost:3000/mcp")
	list, err := ServerResources(server.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"http://localhost:3000/mcp", "http://localhost:3000/", "http://LOCALHOST:3000"} {
		ru, _ := url.Parse(r)
		if !slices.Contains(list, canonicalResource(ru)) {
			t.Errorf("the grant for resource %s would not be forgotten (list %q)", r, list)
		}
	}
	s := &MemoryStore{}
	ctx := context.Background()
	_ = s.SaveGrant(ctx, &Grant{Issuer: "i", Resource: "http://localhost:3000/mcp", ClientID: "c"})
	_ = s.SaveGrant(ctx, &Grant{Issuer: "i", Resource: "http://localhost:3000/other", ClientID: "c"})
	n := 0
	for _, r := range list {
		k, _ := s.Forget(ctx, r)
		n += k
	}
	if n != 1 {
		t.Fatalf("forgot %d grants, want the server's 1", n)
	}
}
