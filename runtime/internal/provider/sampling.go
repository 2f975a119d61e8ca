package provider

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/runtime"
)

// An Answer is a model's answer to a sampling request, as a provider's
// Sampler reads it from its SDK.
type Answer struct {
	// Text is the answer's text.
	Text string
	// Model is the model that answered; empty when the API did not say.
	Model string
	// StopReason is the MCP stop reason: "endTurn", "maxTokens",
	// "stopSequence", or the provider's own reason.
	StopReason string
}

// Sample runs the steps every provider's Sampler takes: it refuses a
// Sampler that is not set up (ready false) with an error naming its
// provider and what must be set, converts the request into the provider's
// form with convert, asks approve, sends the converted request with send,
// and returns the answer as one text block, naming model when the API did
// not name the model that answered. A request convert refuses is not
// shown to the user for approval.
func Sample[P any](ctx context.Context, req *runtime.SamplingRequest, ready bool, notReady string, approve runtime.SamplingApproval, model string, convert func() (P, error), send func(context.Context, P) (Answer, error)) (*runtime.SamplingResult, error) {
	if !ready {
		return nil, errors.New(notReady)
	}
	p, err := convert()
	if err != nil {
		return nil, err
	}
	if err := approve.Check(ctx, req); err != nil {
		return nil, err
	}
	a, err := send(ctx, p)
	if err != nil {
		return nil, err
	}
	if a.Model == "" {
		a.Model = model
	}
	return &runtime.SamplingResult{Content: []runtime.Content{{Type: runtime.ContentText, Text: a.Text}}, Model: a.Model, StopReason: a.StopReason}, nil
}

// Temperature returns the temperature req asks for, brought into the
// provider's range, 0 to hi, and whether it asks for one. A client may
// change a sampling request before it samples; an API refuses a value
// outside its range, and a server's 1e300 would fail the whole request.
func Temperature(req *runtime.SamplingRequest, hi float64) (float64, bool) {
	if req.Temperature == nil {
		return 0, false
	}
	return min(max(*req.Temperature, 0), hi), true
}
