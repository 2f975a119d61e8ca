package jsonrpc

import (
	"strconv"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// AppendString appends s to b as a JSON string, as encoding/json writes it
// with HTML escaping off (see jsontree.AppendString): invalid UTF-8 becomes
// U+FFFD, and no line break is left unescaped.
func AppendString(b []byte, s string) []byte { return jsontree.AppendString(b, s) }

// AppendRequestHead appends the start of a request up to the opening brace
// of its params object: {"jsonrpc":"2.0","id":ID,"method":"M","params":{
func AppendRequestHead(b []byte, id int64, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = AppendString(b, method)
	return append(b, `,"params":{`...)
}

// AppendNotificationHead appends the start of a notification up to the
// opening brace of its params object.
func AppendNotificationHead(b []byte, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = AppendString(b, method)
	return append(b, `,"params":{`...)
}

// AppendResult appends a whole response carrying result (raw JSON) for the
// request whose raw id is id.
func AppendResult(b []byte, id []byte, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// AppendError appends a whole error response for the request whose raw id is
// id.
func AppendError(b []byte, id []byte, code int, message string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, message)
	return append(b, `}}`...)
}
