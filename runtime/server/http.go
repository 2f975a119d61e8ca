package server

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// ServeHTTP serves the Streamable HTTP transport: each POST carries one
// message, and each request gets its response as the body of the POST's
// response, as JSON. The server keeps no session: a legacy request is
// answered under the version of its MCP-Protocol-Version header, and a
// 2026-07-28 request's headers must agree with its body (-32020 otherwise).
// There is no GET stream: GET and DELETE are answered 405. A request whose
// Origin header names another host is refused with 403, against DNS
// rebinding. A cancelled call is one whose HTTP request the client
// abandons.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "this server has no GET stream and keeps no session: only POST is allowed", http.StatusMethodNotAllowed)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if u, err := url.Parse(origin); err != nil || u.Host != r.Host {
			http.Error(w, "origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.opts.MaxMessageSize)))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, response(nil, nil, rpcError(runtime.CodeInvalidRequest, fmt.Sprintf("the message exceeds the %d-byte limit", s.opts.MaxMessageSize))))
			return
		}
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	m, perr := parse(body)
	if perr != nil {
		writeJSON(w, http.StatusBadRequest, response(nil, nil, perr))
		return
	}
	if m.Method == "" || len(m.ID) == 0 {
		// Notifications and responses need no answer: calls end with
		// their HTTP requests.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req, rerr := s.settle(m, nil, r.Header.Get("Mcp-Protocol-Version"))
	if rerr == nil && req.modern {
		rerr = s.checkHeaders(req, r.Header)
	}
	var res []byte
	if rerr == nil {
		res, rerr = s.answer(r.Context(), req, nil)
	}
	status := http.StatusOK
	switch {
	case rerr == nil:
	case req.modern && rerr.Code == runtime.CodeMethodNotFound:
		status = http.StatusNotFound
	case req.modern && rerr.Code == runtime.CodeInternalError:
		status = http.StatusInternalServerError
	case req.modern, rerr.Code == runtime.CodeInvalidRequest:
		status = http.StatusBadRequest
	}
	writeJSON(w, status, response(m.ID, res, rerr))
}

// checkHeaders checks the headers a 2026-07-28 request carries against its
// body: MCP-Protocol-Version, Mcp-Method and, for tools/call, Mcp-Name and
// the Mcp-Param-* headers of the tool's annotations.
func (s *Server) checkHeaders(req *request, h http.Header) *runtime.RPCError {
	mismatch := func(header, got, want string) *runtime.RPCError {
		return rpcError(runtime.CodeHeaderMismatch, fmt.Sprintf("header %s is %q, and the request says %q", header, got, want))
	}
	if v := h.Get("Mcp-Protocol-Version"); v != req.version {
		return mismatch("MCP-Protocol-Version", v, req.version)
	}
	if v := h.Get("Mcp-Method"); v != req.method {
		return mismatch("Mcp-Method", v, req.method)
	}
	if req.method == "tools/call" {
		if v := decodeHeaderValue(h.Get("Mcp-Name")); v != req.p.Name {
			return mismatch("Mcp-Name", v, req.p.Name)
		}
		if t := s.tools[req.p.Name]; t != nil {
			return checkParamHeaders(t, req.p.Arguments, h)
		}
	}
	return nil
}

// decodeHeaderValue decodes a header value a client wrote in the
// =?base64?…?= form, for a value that is not plain ASCII.
func decodeHeaderValue(v string) string {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return v
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
