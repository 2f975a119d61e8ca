package cli

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime"
)

var recordCommand = &command{
	name:    "record",
	summary: "record a session with a live server for tests to replay",
	run:     runRecord,
}

const recordHelp = `[--out FILE] [--call 'TOOL={JSON}']... [--read URI]... [--prompt 'NAME={JSON}']... [--env KEY=VALUE]... ` + serverUsage + `

Records the JSON-RPC messages of one session with the server to a txtar
archive that runtime.NewReplayTransport serves back in tests. The session
connects (the version probe and handshake), lists the tools, and, when
the server offers them, its prompts, resources and resource templates
(every page), then runs the --call, --read and --prompt actions in the
order given, and closes. An action the server answers with an error is
recorded like any other, and reported on standard error.

  --call 'TOOL={"a":1}'   calls TOOL with the JSON object (TOOL alone: {})
  --read URI              reads the resource URI
  --prompt 'NAME={"k":"v"}'  gets the prompt NAME with the arguments

Each message is one file of the archive, named NNNN-FROM-KIND-METHOD.json
(0006-client-request-tools.list.json, 0007-server-response-tools.list.json),
its JSON indented, so that a recording made again diffs line by line.

Credentials never reach the recording: the bearer token, the values of
--header, OAuth tokens, the password and query values of the URL, the
secret-looking arguments of the server command, the values of --env and
those of inherited environment variables whose names look secret
(GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD, ...) are replaced by
[REDACTED] wherever they appear, as they are or JSON-escaped. HTTP
headers are not recorded.

--env KEY=VALUE adds a variable to the environment of a server command.
Without --out the recording goes to standard output; with it, the file
is written whole once the session has ended.

` + serverHelp

// recordAction is one request the session makes after the listings.
type recordAction struct {
	kind string // "call", "read" or "prompt"
	name string
	args json.RawMessage
}

// actionFlag adds the actions of one flag (--call, --read, --prompt) to a
// list all three share, so that they run in the order given.
type actionFlag struct {
	kind string
	list *[]recordAction
	err  *error
}

func (f *actionFlag) String() string { return "" }

func (f *actionFlag) Set(s string) error {
	a := recordAction{kind: f.kind, name: s}
	if f.kind != "read" {
		name, args, ok := strings.Cut(s, "=")
		a.name = strings.TrimSpace(name)
		a.args = json.RawMessage("{}")
		if ok {
			parsed, err := parseCallArgs(args)
			if err != nil {
				if *f.err == nil {
					*f.err = usagef("record: --%s %s: the arguments %v", f.kind, a.name, err)
				}
				return nil
			}
			a.args = parsed
		}
	}
	if a.name == "" {
		if *f.err == nil {
			*f.err = usagef("record: --%s wants a name", f.kind)
		}
		return nil
	}
	*f.list = append(*f.list, a)
	return nil
}

// envFlag collects --env KEY=VALUE. Its errors never repeat the value.
type envFlag struct {
	vars []string
	err  error
}

func (f *envFlag) String() string { return "" }

func (f *envFlag) Set(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || !variableName(k) {
		if f.err == nil {
			f.err = usagef("record: --env wants KEY=VALUE, with a variable name before the '='")
		}
		return nil
	}
	f.vars = append(f.vars, s)
	return nil
}

func runRecord(e *env, args []string) error {
	fs := newFlagSet(e, "record", recordHelp)
	var sf serverFlags
	sf.register(fs)
	out := fs.String("out", "", "the `file` to write the recording to (default: standard output)")
	var actions []recordAction
	var actionErr error
	for _, k := range []struct{ kind, usage string }{
		{"call", "call a tool, as `'TOOL={JSON}'` (repeatable)"},
		{"read", "read the resource `URI` (repeatable)"},
		{"prompt", "get a prompt, as `'NAME={JSON}'` (repeatable)"},
	} {
		fs.Var(&actionFlag{kind: k.kind, list: &actions, err: &actionErr}, k.kind, k.usage)
	}
	var envs envFlag
	fs.Var(&envs, "env", "a `KEY=VALUE` added to the environment of the server command; the value is redacted (repeatable)")
	pos, err := sf.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("record: unexpected argument %q (a server command goes after --)", pos[0])
	}
	if actionErr != nil {
		return actionErr
	}
	if envs.err != nil {
		return envs.err
	}
	if err := checkOutFile("record", "--out", *out); err != nil {
		return err
	}
	if len(envs.vars) > 0 && len(sf.command) == 0 {
		return usagef("record: --env applies to a server command only, not to --url or --sse")
	}

	secrets, _ := sf.secretValues()
	secrets = append(secrets, envSecrets(envs.vars)...)
	for _, kv := range envs.vars {
		if k, v, _ := strings.Cut(kv, "="); redact.TooShort(v) {
			fmt.Fprintf(e.stderr, "mcpgen: warning: the value of --env %s is shorter than %d bytes, too short to be told apart from other text: it is not redacted from the recording\n", k, redact.MinLen)
		}
	}
	e.secrets.add(secrets)
	file, err := newRecordingFile(*out)
	if err != nil {
		return err
	}
	defer file.discard()
	var rec *runtime.Recorder
	sf.wrap = func(t runtime.Transport) runtime.Transport {
		if ct, ok := t.(*runtime.CommandTransport); ok {
			ct.Env = append(ct.Env, envs.vars...)
		}
		rec = runtime.Record(t, file, &runtime.RecordOptions{Source: sf.source(), Secrets: secrets})
		return rec
	}
	sf.wrapAuthz = func(a runtime.Authorizer) runtime.Authorizer {
		return &recordingAuthorizer{Authorizer: a, rec: &rec}
	}
	sf.elicit = (&elicitor{stderr: e.stderr, secrets: e.secrets}).handle

	ctx, cancel := sf.context()
	defer cancel()
	s, err := sf.connect(ctx, e, sf.command)
	if err != nil {
		return sf.explain(ctx, err)
	}
	failed := recordSession(ctx, e, s, actions)
	closeSession(ctx, s)
	if err := rec.Err(); err != nil {
		return fmt.Errorf("record: writing the recording: %w", err)
	}
	if failed > 0 {
		fmt.Fprintf(e.stderr, "mcpgen: %d request(s) failed; their errors are recorded\n", failed)
	}
	n, err := file.finish(*out, e.data)
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "wrote %s (%d messages)\n", *out, n)
	}
	return nil
}

// recordSession lists what the server offers and runs the actions, and
// returns how many requests failed. Failures are recorded, and reported on
// standard error.
func recordSession(ctx context.Context, e *env, s *runtime.Session, actions []recordAction) int {
	failed := 0
	report := func(what string, err error) {
		if err == nil {
			return
		}
		var te *runtime.ToolError
		if errors.As(err, &te) {
			fmt.Fprintf(e.stderr, "mcpgen: %s: the tool reported an error (isError); recorded\n", what)
			return
		}
		failed++
		fmt.Fprintf(e.stderr, "mcpgen: %s: %v\n", what, err)
	}
	caps := s.Capabilities()
	if caps.Tools {
		_, err := s.ListTools(ctx)
		report("tools/list", err)
	}
	if caps.Prompts {
		report("prompts/list", listAll(ctx, s, "prompts/list"))
	}
	if caps.Resources {
		report("resources/list", listAll(ctx, s, "resources/list"))
		report("resources/templates/list", listAll(ctx, s, "resources/templates/list"))
	}
	for _, a := range actions {
		switch a.kind {
		case "call":
			_, err := s.CallTool(ctx, a.name, a.args)
			report("tools/call "+a.name, err)
		case "read":
			_, err := s.ReadResource(ctx, a.name)
			report("resources/read "+a.name, err)
		case "prompt":
			params, _ := json.Marshal(map[string]any{"name": a.name, "arguments": a.args})
			_, err := s.SendRequest(ctx, "prompts/get", params)
			report("prompts/get "+a.name, err)
		}
	}
	return failed
}

// maxListPages bounds the pages record reads of one listing.
const maxListPages = 1000

// listAll requests every page of a listing. It keeps a digest of each
// cursor to catch a loop, not the cursor: a server chooses their size.
func listAll(ctx context.Context, s *runtime.Session, method string) error {
	var cursor *string
	seen := map[[sha256.Size]byte]bool{}
	for range maxListPages {
		var params json.RawMessage
		if cursor != nil {
			params, _ = json.Marshal(map[string]string{"cursor": *cursor})
		}
		res, err := s.SendRequest(ctx, method, params)
		if err != nil {
			return err
		}
		var page struct {
			NextCursor *string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return fmt.Errorf("%s: malformed result: %v", method, err)
		}
		// A cursor that is present is followed, empty or not, as the
		// Session follows it, so that the recording holds its pages.
		if page.NextCursor == nil {
			return nil
		}
		sum := sha256.Sum256([]byte(*page.NextCursor))
		if seen[sum] {
			return fmt.Errorf("%s: the server sent a cursor twice; its pagination loops", method)
		}
		seen[sum] = true
		cursor = page.NextCursor
	}
	return fmt.Errorf("%s: more than %d pages", method, maxListPages)
}

// envSecrets returns the values to redact of the environment a server
// command runs with: those of --env, and those of the inherited variables
// whose names look secret.
func envSecrets(given []string) []string {
	var out []string
	for _, kv := range given {
		_, v, _ := strings.Cut(kv, "=")
		out = append(out, v)
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if redact.SecretName(k) {
			out = append(out, v)
		}
	}
	return out
}

// recordingAuthorizer adds the credentials an Authorizer sets on each
// request, the OAuth access token, to the secrets of the recording.
type recordingAuthorizer struct {
	runtime.Authorizer
	rec **runtime.Recorder
}

func (a *recordingAuthorizer) Authorize(req *http.Request) error {
	err := a.Authorizer.Authorize(req)
	if rec := *a.rec; rec != nil {
		for _, v := range req.Header.Values("Authorization") {
			rec.AddSecrets(redact.Forms(v)...)
		}
	}
	return err
}

// recordingFile is where a recording is written while the session runs: a
// temporary file beside the output file, or in the temporary directory
// for standard output, so that the recording is never held in memory and
// a failed session leaves no half recording behind.
type recordingFile struct {
	f *os.File
	w *bufio.Writer
	n int // messages written
}

func newRecordingFile(out string) (*recordingFile, error) {
	dir, pattern := os.TempDir(), "mcpgen-record-*.txtar"
	if out != "" {
		dir, pattern = filepath.Dir(out), "."+filepath.Base(out)+".tmp*"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("writing recording %s: %w", out, err)
		}
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("writing recording %s: %w", out, err)
	}
	return &recordingFile{f: f, w: bufio.NewWriter(f)}, nil
}

// Write takes what a runtime.Recorder writes: the header, then each
// message whole, starting with its file marker.
func (r *recordingFile) Write(p []byte) (int, error) {
	if len(p) > 3 && string(p[:3]) == "-- " {
		r.n++
	}
	return r.w.Write(p)
}

// discard removes the temporary file; after finish it does nothing.
func (r *recordingFile) discard() {
	r.f.Close()
	os.Remove(r.f.Name())
}

// finish moves the recording to path, or copies it to w when path is
// empty, and returns how many messages it holds.
func (r *recordingFile) finish(path string, w io.Writer) (int, error) {
	what := path
	if what == "" {
		what = "to standard output"
	}
	err := r.w.Flush()
	if err == nil && path == "" {
		if _, err = r.f.Seek(0, io.SeekStart); err == nil {
			_, err = io.Copy(w, r.f)
		}
	}
	if err == nil && path != "" {
		err = r.f.Chmod(0o644)
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && path != "" {
		err = os.Rename(r.f.Name(), path)
	}
	if err != nil {
		return 0, fmt.Errorf("writing recording %s: %w", what, err)
	}
	return r.n, nil
}
