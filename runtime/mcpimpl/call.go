package mcpimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// Args is what the methods of a generated Client send: a pointer to a
// tool's arguments struct.
type Args interface {
	Validate() error
}

// Call is the body of a generated Client method: it validates args, sends
// them to the tool through c, and reports a result whose isError flag is
// set as a *runtime.ToolError, next to the result itself.
func Call(ctx context.Context, c runtime.Caller, tool string, args Args) (*runtime.Result, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		return res, err
	}
	if err := runtime.ResultError(tool, res); err != nil {
		return res, err
	}
	return res, nil
}

// CallInto is Call for a tool with an output schema: it decodes the
// structured result into out, a pointer to the tool's result struct. A
// result without structured content, or whose structured content is null,
// is an error.
func CallInto(ctx context.Context, c runtime.Caller, tool string, args Args, out any) error {
	res, err := Call(ctx, c, tool, args)
	if err != nil {
		return err
	}
	if res == nil || len(res.StructuredContent) == 0 || string(bytes.TrimSpace(res.StructuredContent)) == "null" {
		return fmt.Errorf("tool %s returned no structured content", tool)
	}
	if err := json.Unmarshal(res.StructuredContent, out); err != nil {
		return fmt.Errorf("decoding the structured result of tool %s: %w", tool, asResult(err, tool))
	}
	return nil
}
