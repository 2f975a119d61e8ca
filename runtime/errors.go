package runtime

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/internal/redact"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeResourceNotFound is the resource-not-found code of 2025-11-25 and
	// earlier.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired is 2025-11-25's URL elicitation error.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch, CodeMissingRequiredClientCapability and
	// CodeUnsupportedProtocolVersion are the 2026-07-28 protocol errors.
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// RPCError is a JSON-RPC error response from the server. Message holds the
// server's message whole (with the connection's credentials scrubbed, see
// ConnCapabilities.ScrubSecrets); Error quotes it escaped and cut, as
// redact.Quote does.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("rpc error %d: %s", e.Code, redact.Quote(e.Message))
}

// ToolError reports a tool result whose isError flag is set: the tool ran and
// failed. Result holds the content the tool sent about the failure, which is
// meant to be shown to the model, whole. Error quotes its text escaped and
// cut, as redact.Quote does, with the credentials of the connection that
// returned it scrubbed.
type ToolError struct {
	Tool   string
	Result *Result

	scrub func(string) string // the Session's, nil for none
}

func (e *ToolError) Error() string {
	text := strings.TrimSpace(e.Result.Text())
	if text == "" {
		return fmt.Sprintf("tool %s failed", e.Tool)
	}
	return fmt.Sprintf("tool %s failed: %s", e.Tool, quoteScrubbed(e.scrub, text))
}

// ResultError returns a *ToolError for a result whose IsError flag is set, and
// nil otherwise. Caller implementations use it to report tool failures.
func ResultError(tool string, r *Result) error {
	if r != nil && r.IsError {
		return &ToolError{Tool: tool, Result: r}
	}
	return nil
}

// ValidationError reports arguments that do not satisfy a tool's schema, or,
// with Result set, a structured result that does not satisfy its output
// schema. Pointer is the JSON pointer of the offending value within the
// arguments or result ("" for the object itself), and Reason says in one
// line what is wrong, so that an agent can hand the error back to the model
// verbatim.
type ValidationError struct {
	Tool    string
	Pointer string
	Reason  string
	// Result reports that the value is the tool's structured result, which
	// the server sent, rather than arguments.
	Result bool
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.Result {
		b.WriteString("invalid result")
		if e.Tool != "" {
			b.WriteString(" of ")
			b.WriteString(e.Tool)
		}
	} else {
		b.WriteString("invalid arguments")
		if e.Tool != "" {
			b.WriteString(" for ")
			b.WriteString(e.Tool)
		}
	}
	b.WriteString(" at ")
	if e.Pointer == "" {
		b.WriteString("(root)")
	} else {
		b.WriteString(e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}
