package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A recording is a txtar archive (golang.org/x/tools/txtar) of the JSON-RPC
// messages of one session, in the order they crossed the connection. Its
// comment, the text before the first file, starts with recordingHeader and
// may add "key: value" lines, such as the server the session talked to.
// Each message is one file named
//
//	NNNN-FROM-KIND-METHOD.json
//
// where NNNN is its place in the session (from 0001), FROM is client or
// server, KIND is request, response, notification, http-error (a request
// the server refused with an HTTP status instead of a JSON-RPC message) or
// invalid (what the server sent that was no JSON-RPC message, kept as a
// JSON string), and METHOD is the message's method, or for a response the
// method of the request it answers, with "/" written as "." so that the
// archive extracts into one folder, and any character but letters, digits,
// ".", "_" and "-" as "_". The content is the message as JSON, indented by
// two spaces with the members in the order they were sent, so that two
// recordings of the same session compare line by line.
const recordingHeader = "mcpgen recording v1"

// Directions and kinds of the names of a recording's files.
const (
	fromClient = "client"
	fromServer = "server"

	kindRequest      = "request"
	kindResponse     = "response"
	kindNotification = "notification"
	kindHTTPError    = "http-error"
	kindInvalid      = "invalid"
)

// maxMethodInName bounds the length of the method in a file's name.
const maxMethodInName = 64

// maxRecordingSize bounds the size of a recording a replay reads, and
// maxRecordingMessages the number of messages it holds.
const (
	maxRecordingSize     = 256 << 20
	maxRecordingMessages = 100_000
)

// recordingName returns the file name of the seq'th message of a recording.
func recordingName(seq int, from, kind, method string) string {
	m := []byte(method)
	for i, c := range m {
		switch {
		case c == '/':
			m[i] = '.'
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'):
			m[i] = '_'
		}
	}
	if len(m) > maxMethodInName {
		m = m[:maxMethodInName]
	}
	if len(m) == 0 {
		m = []byte("none")
	}
	return fmt.Sprintf("%04d-%s-%s-%s.json", seq, from, kind, m)
}

// parseRecordingName reads the place, direction and kind from the name of a
// recording's file.
func parseRecordingName(name string) (seq int, from, kind string, err error) {
	rest, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return 0, "", "", fmt.Errorf("the name does not end in .json")
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) < 3 {
		return 0, "", "", fmt.Errorf("the name is not NNNN-FROM-KIND-METHOD.json")
	}
	seq, err = strconv.Atoi(parts[0])
	if err != nil || seq <= 0 {
		return 0, "", "", fmt.Errorf("the name does not start with the message's number")
	}
	from = parts[1]
	if from != fromClient && from != fromServer {
		return 0, "", "", fmt.Errorf("the name says the message comes from %q, not client or server", from)
	}
	for _, k := range []string{kindRequest, kindResponse, kindNotification, kindHTTPError, kindInvalid} {
		if strings.HasPrefix(parts[2], k+"-") {
			return seq, from, k, nil
		}
	}
	return 0, "", "", fmt.Errorf("the name has no kind (request, response, notification, http-error or invalid) after %s-", from)
}

// recordedHTTPError is the content of an http-error file: the HTTP answer
// to a request that carried no JSON-RPC message.
type recordedHTTPError struct {
	Method     string          `json:"method,omitempty"` // the JSON-RPC method of the request
	ID         json.RawMessage `json:"id,omitempty"`
	HTTPMethod string          `json:"httpMethod"`
	StatusCode int             `json:"status"`
	Body       string          `json:"body,omitempty"`
}

// indentMessage returns msg, valid JSON, as a recording's file holds it:
// indented by two spaces, with a final newline.
func indentMessage(msg []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, msg, "", "  "); err != nil {
		// Not reached for valid JSON; a JSON string of it keeps the
		// archive's structure whatever it holds.
		b.Reset()
		q, _ := json.Marshal(string(msg))
		b.Write(q)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// recordingFile is one file of a txtar archive.
type recordingFile struct {
	name string
	data []byte
}

// parseTxtar splits a txtar archive into its comment and its files, as
// golang.org/x/tools/txtar does: a file starts at a line "-- NAME --" and
// runs to the next such line. The runtime reads the format itself rather
// than import x/tools into every program that links it. It stops after
// maxFiles+1 files, so that an archive of more is refused without holding
// them all.
func parseTxtar(data []byte, maxFiles int) (comment []byte, files []recordingFile) {
	comment, name, data := findTxtarMarker(data)
	for name != "" && len(files) <= maxFiles {
		f := recordingFile{name: name}
		f.data, name, data = findTxtarMarker(data)
		files = append(files, f)
	}
	return comment, files
}

// findTxtarMarker returns the text before the first file marker of data,
// the marker's name ("" when there is none), and the text after the
// marker's line.
func findTxtarMarker(data []byte) (before []byte, name string, after []byte) {
	var i int
	for {
		if name, after = txtarMarker(data[i:]); name != "" {
			return data[:i], name, after
		}
		j := bytes.Index(data[i:], []byte("\n-- "))
		if j < 0 {
			return data, "", nil
		}
		i += j + 1
	}
}

// txtarMarker reports whether data starts with a file marker line, and
// returns its name and the text after the line.
func txtarMarker(data []byte) (name string, after []byte) {
	if !bytes.HasPrefix(data, []byte("-- ")) {
		return "", nil
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data, after = data[:i], data[i+1:]
		// A marker line may end in \r\n, as a recording edited on
		// Windows does.
		data = bytes.TrimSuffix(data, []byte("\r"))
	}
	if !bytes.HasSuffix(data, []byte(" --")) || len(data) < len("-- ")+len(" --") {
		return "", nil
	}
	return strings.TrimSpace(string(data[3 : len(data)-3])), after
}
