package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a stdio MCP server that will not stop: with
// stubServerEnv set, TestMain serves instead of running tests. It ignores
// SIGTERM, keeps running after its input closes, and writes its process id
// to the file stubPIDEnv names.
const (
	stubServerEnv = "MCPGEN_CLI_STUB_SERVER"
	stubPIDEnv    = "MCPGEN_CLI_STUB_PID"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(stubServerEnv); mode != "" {
		serveStub(mode)
		return
	}
	os.Exit(m.Run())
}

// stubServer returns the command line, after "--", of the stub server in
// mode ("silent" never answers; "answers" speaks the legacy protocol), and
// the file it writes its process id to.
func stubServer(t *testing.T, mode string) (argv []string, pidFile string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile = t.TempDir() + "/pid"
	return []string{"env", stubServerEnv + "=" + mode, stubPIDEnv + "=" + pidFile, exe, "-test.run=^$"}, pidFile
}

// stubPID reads the process id the stub server wrote.
func stubPID(t *testing.T, pidFile string) int {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stub server wrote no process id: %v", err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatalf("the stub server's process id file holds %q", data)
	}
	return pid
}

func serveStub(mode string) {
	signal.Ignore(syscall.SIGTERM)
	if err := os.WriteFile(os.Getenv(stubPIDEnv), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "stub:", err)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil || mode == "silent" {
			continue
		}
		var reply string
		switch m.Method {
		case "initialize":
			reply = fmt.Sprintf(`"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"1"}}`, m.Params.ProtocolVersion)
		case "tools/list":
			reply = `"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
		default:
			reply = `"error":{"code":-32601,"message":"Method not found"}`
		}
		fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,%s}\n", m.ID, reply)
	}
	// Input closed: stay, as a server that ignores it would.
	time.Sleep(time.Hour)
}
