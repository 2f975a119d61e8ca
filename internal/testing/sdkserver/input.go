package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type deployArgs struct {
	Service string `json:"service" jsonschema:"the service to deploy"`
}

type askArgs struct {
	Question string `json:"question" jsonschema:"the question for the client's model"`
}

type noArgs struct{}

// addInputTools adds the tools that ask the client for input, with -input.
// They return input requests (SEP-2322): to a 2026-07-28 client as an
// input_required result it answers by retrying, and to a legacy client
// through the SDK, which sends it elicitation/create, sampling/createMessage
// or roots/list requests and calls the tool again with the answers.
//
//	deploy   elicits a form (environment, with a default, and confirm)
//	ask      samples the client's model with question
//	roots    lists the client's roots
func addInputTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "deploy", Description: "Asks the user to confirm a deployment."},
		func(_ context.Context, req *mcp.CallToolRequest, in deployArgs) (*mcp.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
						Mode:    "form",
						Message: "Deploy " + in.Service + "?",
						RequestedSchema: map[string]any{
							"type": "object",
							"properties": map[string]any{
								"environment": map[string]any{"type": "string", "enum": []string{"staging", "production"}, "default": "staging"},
								"confirm":     map[string]any{"type": "boolean"},
							},
							"required": []string{"confirm"},
						},
					}},
					RequestState: "deploy:" + in.Service,
				}, nil, nil
			}
			if resp.Action != "accept" {
				return text(fmt.Sprintf("deployment of %s %sd", in.Service, resp.Action)), nil, nil
			}
			return text(fmt.Sprintf("deployed %s to %v (confirm=%v, state %q)", in.Service, resp.Content["environment"], resp.Content["confirm"], req.Params.RequestState)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the client's model a question."},
		func(_ context.Context, req *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, any, error) {
			var model string
			var content []mcp.Content
			switch r := req.Params.InputResponses["answer"].(type) {
			case *mcp.CreateMessageWithToolsResult:
				model, content = r.Model, r.Content
			case *mcp.CreateMessageResult:
				model, content = r.Model, []mcp.Content{r.Content}
			default:
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"answer": &mcp.CreateMessageParams{
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Question}}},
					MaxTokens: 100,
				}}}, nil, nil
			}
			var words []string
			for _, c := range content {
				if t, ok := c.(*mcp.TextContent); ok {
					words = append(words, t.Text)
				}
			}
			return text(fmt.Sprintf("%s says: %s", model, strings.Join(words, " "))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			r, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
			}
			var uris []string
			for _, root := range r.Roots {
				uris = append(uris, root.URI)
			}
			sort.Strings(uris)
			return text("roots: " + strings.Join(uris, " ")), nil, nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
