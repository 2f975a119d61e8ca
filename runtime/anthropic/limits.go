package anthropic

// MaxTools is the most tools one Messages API request may carry, or 0 when
// the API documents no such limit, as it does not today: the Messages API
// reference (https://docs.anthropic.com/en/api/messages) describes the tools
// parameter without a maximum count. NewToolset therefore refuses no number
// of tools; every declaration still costs prompt tokens on every request, so
// offer only the tools a program uses (runtime.ToolFilter).
const MaxTools = 0
