package runtime

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestResourceLinksTSExample follows the resource links that the TypeScript
// SDK example server's list-files tool returns.
func TestResourceLinksTSExample(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx := testenv.Context(t)
	s, err := Connect(ctx, HTTP(url, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, "list-files", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	links := res.ResourceLinks()
	want := map[string]string{
		"https://example.com/greetings/default": "Hello, world!",
		"file:///example/file1.txt":             "This is the content of file 1",
		"file:///example/file2.txt":             "This is the content of file 2",
	}
	if len(links) != len(want) {
		t.Fatalf("list-files returned %d resource links, want %d: %+v", len(links), len(want), res.Content)
	}
	for _, link := range links {
		got, err := s.ReadLink(ctx, link)
		if err != nil {
			t.Fatalf("ReadLink(%s): %v", link.URI, err)
		}
		if got.Text() != want[link.URI] || got.Contents[0].URI != link.URI || got.Contents[0].IsBlob() {
			t.Errorf("ReadLink(%s) = %+v, want the text %q", link.URI, got.Contents, want[link.URI])
		}
	}
	_, err = s.ReadResource(ctx, "file:///example/missing.txt")
	if !IsResourceNotFound(err) {
		t.Errorf("reading a missing resource: %v, want a resource-not-found error", err)
	}
}

// TestResourcesEverything reads a text and a blob resource of
// @modelcontextprotocol/server-everything over stdio, by following the links
// of its get-resource-links tool.
func TestResourcesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	ctx := testenv.Context(t)
	s := connectEverything(t)
	res, err := s.CallTool(ctx, "get-resource-links", map[string]any{"count": 2})
	if err != nil {
		t.Fatal(err)
	}
	links := res.ResourceLinks()
	if len(links) != 2 {
		t.Fatalf("get-resource-links returned %d links: %+v", len(links), res.Content)
	}
	var sawText, sawBlob bool
	for _, link := range links {
		got, err := s.ReadLink(ctx, link)
		if err != nil {
			t.Fatalf("ReadLink(%s): %v", link.URI, err)
		}
		if len(got.Contents) != 1 {
			t.Fatalf("ReadLink(%s) = %d items", link.URI, len(got.Contents))
		}
		c := got.Contents[0]
		switch {
		case strings.Contains(link.URI, "/blob/"):
			sawBlob = true
			if !c.IsBlob() || !strings.HasPrefix(string(c.Blob), "Resource 1: This is a base64 blob") {
				t.Errorf("blob %s = %+v", link.URI, c)
			}
		case strings.Contains(link.URI, "/text/"):
			sawText = true
			if c.IsBlob() || c.MIMEType != "text/plain" || !strings.HasPrefix(c.Text, "Resource 2: This is a plaintext resource") {
				t.Errorf("text %s = %+v", link.URI, c)
			}
		}
	}
	if !sawText || !sawBlob {
		t.Errorf("links %+v: want a text and a blob resource", links)
	}
}

// TestListResourcesEverything lists the resources of
// @modelcontextprotocol/server-everything over stdio and reads each one it
// lists.
func TestListResourcesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	ctx := testenv.Context(t)
	s := connectEverything(t)
	resources, err := s.ListResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources) == 0 {
		t.Fatal("server-everything lists no resources")
	}
	for _, r := range resources {
		if r.Name == "" || r.MIMEType == "" || !strings.HasPrefix(r.URI, "demo://resource/") || len(r.Raw) == 0 {
			t.Errorf("resource %+v: want a name, a MIME type and a demo:// URI", r)
		}
		got, err := s.ReadResource(ctx, r.URI)
		if err != nil {
			t.Errorf("ReadResource(%s): %v", r.URI, err)
			continue
		}
		if len(got.Contents) == 0 || got.Contents[0].URI != r.URI || got.Text() == "" {
			t.Errorf("ReadResource(%s) = %+v", r.URI, got.Contents)
		}
	}
}

// connectEverything connects to @modelcontextprotocol/server-everything
// over stdio, for the length of the test.
func connectEverything(t *testing.T) *Session {
	t.Helper()
	cmd := testenv.Everything(t, "stdio")
	s, err := Connect(testenv.Context(t), NewCommandTransport(cmd[0], cmd[1:]...), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
