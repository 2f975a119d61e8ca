package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// resourceServer serves, over Streamable HTTP, a text resource holding evil
// at evil://text, a blob at evil://blob, both at evil://both, and a
// resource-not-found error for any other URI.
func resourceServer(t *testing.T) string {
	e := jsonString(evil)
	srv := fakeServer(t, "resources", func(r *http.Request, method, _ string) (string, string) {
		if method != "resources/read" {
			return "", ""
		}
		text := `{"uri":"evil://text","mimeType":"text/plain","text":` + e + `}`
		blob := `{"uri":"evil://blob","mimeType":"application/octet-stream","blob":"AAEC/w=="}`
		switch uri := r.Header.Get("Mcp-Name"); uri {
		case "evil://text":
			return `{"resultType":"complete","contents":[` + text + `]}`, ""
		case "evil://blob":
			return `{"resultType":"complete","contents":[` + blob + `]}`, ""
		case "evil://both":
			return `{"resultType":"complete","contents":[` + text + `,` + blob + `]}`, ""
		default:
			return "", `{"code":-32602,"message":"Resource not found","data":{"uri":` + jsonString(uri) + `}}`
		}
	})
	return srv.URL
}

// TestReadOutput reads text and blob resources: text is written exactly
// when piped and shown as escapes on a terminal, blobs are summarized,
// --out writes them byte for byte and --json prints the result as sent.
func TestReadOutput(t *testing.T) {
	url := resourceServer(t)
	code, out, errOut := run(t, "", "read", "--url", url, "evil://text")
	if code != 0 || out != evil+"\n" {
		t.Fatalf("piped text: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runTerminal(t, "read", "--url", url, "evil://text")
	if code != 0 {
		t.Fatalf("text on a terminal: exit %d", code)
	}
	checkShown(t, map[string]string{"read on a terminal": out})

	code, out, _ = run(t, "", "read", "--url", url, "evil://blob")
	if code != 0 || out != "[blob evil://blob application/octet-stream, 4 bytes]\n" {
		t.Errorf("blob: exit %d, stdout %q", code, out)
	}
	code, out, _ = run(t, "", "read", "--url", url, "evil://both")
	if code != 0 || out != "[text evil://text text/plain, item 1 of 2]\n"+evil+"\n[blob evil://blob application/octet-stream, 4 bytes]\n" {
		t.Errorf("both: exit %d, stdout %q", code, out)
	}

	file := filepath.Join(t.TempDir(), "blob.bin")
	code, out, errOut = run(t, "", "read", "--out", file, "--url", url, "evil://blob")
	if code != 0 || out != "" || !strings.Contains(errOut, "wrote "+file+" (blob application/octet-stream, 4 bytes)") {
		t.Errorf("--out: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != "\x00\x01\x02\xff" {
		t.Errorf("--out wrote %q, %v", data, err)
	}
	code, _, errOut = run(t, "", "read", "--out", file, "--url", url, "evil://both")
	if code != 1 || !strings.Contains(errOut, "the server returned 2 content items; --out writes exactly one") {
		t.Errorf("--out with two items: exit %d, stderr %q", code, errOut)
	}

	code, out, _ = run(t, "", "read", "--json", "--url", url, "evil://blob")
	var res struct {
		Contents []map[string]string `json:"contents"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Contents) != 1 || res.Contents[0]["blob"] != "AAEC/w==" {
		t.Errorf("--json: exit %d, stdout %q", code, out)
	}

	code, _, errOut = run(t, "", "read", "--url", url, "evil://missing")
	if code != 1 || !strings.Contains(errOut, `reading "evil://missing"`) || !strings.Contains(errOut, "Resource not found") {
		t.Errorf("missing resource: exit %d, stderr %q", code, errOut)
	}
}

func TestReadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "--url", "http://127.0.0.1:1/mcp"}, "read: missing URI"},
		{[]string{"read", "--url", "http://127.0.0.1:1/mcp", "a://b", "c"}, `read: unexpected argument "c"`},
		{[]string{"read", "--json", "--out", "f", "--url", "http://127.0.0.1:1/mcp", "a://b"}, "--json and --out exclude each other"},
	} {
		code, _, errOut := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestReadResourceLinkTSExample reads, with mcpgen read, a resource the
// TypeScript SDK example server's list-files tool links to.
func TestReadResourceLinkTSExample(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	code, out, errOut := run(t, "", "call", "--json", "--url", url, "list-files")
	if code != 0 {
		t.Fatalf("call list-files: exit %d, stderr %q", code, errOut)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			URI  string `json:"uri"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, c := range res.Content {
		if c.Type == "resource_link" && strings.HasPrefix(c.URI, "file:") {
			uri = c.URI
			break
		}
	}
	if uri == "" {
		t.Fatalf("list-files returned no file resource link: %s", out)
	}
	code, out, errOut = run(t, "", "read", "--url", url, uri)
	if code != 0 || !strings.HasPrefix(out, "This is the content of file ") {
		t.Errorf("read %s: exit %d, stdout %q, stderr %q", uri, code, out, errOut)
	}
}

// TestReadEverything reads a blob resource of server-everything over stdio
// into a file.
func TestReadEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.Everything(t, "stdio")
	file := filepath.Join(t.TempDir(), "blob")
	code, _, errOut := run(t, "", append([]string{"read", "--out", file, "demo://resource/dynamic/blob/1", "--"}, argv...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(data), "Resource 1: This is a base64 blob") {
		t.Errorf("the file holds %q, %v", data, err)
	}
}

// TestReadAsksForInput reads a resource of the TypeScript SDK's v2 server
// that asks, with input_required, whether to unlock it: the question is
// asked on the terminal as mcpgen call asks it, and declined with
// --no-input.
func TestReadAsksForInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.TSV2Server(t)
	o := runOnTerminal(t, [][2]string{
		{"Unlock the vault?", ""},
		{"Answer? [Y/n] ", "\n"},
		{"confirm * [y/n]: ", "y\n"},
	}, append([]string{"read", "secret://vault", "--"}, argv...)...)
	if o.code != 0 || o.out != `opened (state "vault")`+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q\nterminal: %s", o.code, o.out, o.errOut, o.seen)
	}

	code, out, errOut := run(t, "", append([]string{"read", "--no-input", "secret://vault", "--"}, argv...)...)
	if code != 0 || out != "still locked\n" || !strings.Contains(errOut, "mcpgen: declined ") {
		t.Errorf("--no-input: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
