package gemini

import (
	"context"
	"fmt"

	"google.golang.org/genai"
)

// The genai SDK turns a response into its types through maps and type
// assertions, which a malformed response makes panic before any code of
// this package sees it: a candidate of null, say. The calls below turn such
// a panic into an error, so that a broken or hostile endpoint cannot crash
// the program.

// generate calls m.GenerateContent, and returns a panic in it as an error.
func generate(ctx context.Context, m Models, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (resp *genai.GenerateContentResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("reading the response of model %s: the genai SDK panicked: %v", model, r)
		}
	}()
	return m.GenerateContent(ctx, model, contents, config)
}

// receive calls c.Receive, and returns a panic in it as an error.
func receive(c liveConn) (msg *genai.LiveServerMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("reading a Live message: the genai SDK panicked: %v", r)
		}
	}()
	return c.Receive()
}
