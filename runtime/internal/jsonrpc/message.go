package jsonrpc

import (
	"errors"
	"fmt"
)

// Kind is what an incoming message is.
type Kind uint8

// Kinds of message.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Message is the envelope of one incoming JSON-RPC message. Its slices point
// into the decoded input.
type Message struct {
	Kind Kind
	// ID is the raw JSON id; nil when absent. A null id is kept as "null".
	ID []byte
	// Method is set for requests and notifications.
	Method string
	// Params, Result and Error are raw JSON values, nil when absent.
	Params []byte
	Result []byte
	Error  []byte
}

// Decode reads the envelope of one JSON-RPC message (not a batch).
func Decode(data []byte) (Message, error) {
	var m Message
	var hasResult, hasError bool
	err := ObjectEach(data, func(key []byte, escaped bool, v []byte) error {
		if escaped {
			s, err := unquoteContent(key)
			if err != nil {
				return err
			}
			key = []byte(s)
		}
		switch string(key) {
		case "id":
			m.ID = v
		case "method":
			s, err := String(v)
			if err != nil {
				return fmt.Errorf("method: %w", err)
			}
			m.Method = s
		case "params":
			m.Params = v
		case "result":
			m.Result, hasResult = v, true
		case "error":
			m.Error, hasError = v, true
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	switch {
	case m.Method != "" && m.ID != nil && !IsNull(m.ID):
		m.Kind = KindRequest
	case m.Method != "":
		m.Kind = KindNotification
	case hasResult || hasError:
		m.Kind = KindResponse
	default:
		return m, errors.New("message is neither a request, a notification nor a response")
	}
	return m, nil
}

// Batch calls fn for each element of a batch (a JSON array of messages).
func Batch(data []byte, fn func(msg []byte) error) error {
	return ArrayEach(data, fn)
}

// IsBatch reports whether data, without leading whitespace, is a JSON array.
func IsBatch(data []byte) bool {
	i := skipSpace(data, 0)
	return i < len(data) && data[i] == '['
}
