package provschema

// OpenAIMaxTools is the most function tools one Chat Completions request
// may carry: 128, as the API reference states for the tools parameter
// (OpenAIMaxToolsSource). It lives here, with no SDK import, so that the
// generator can warn about it without importing the OpenAI SDK.
const OpenAIMaxTools = 128

// OpenAIMaxToolsSource is the documentation OpenAIMaxTools comes from.
const OpenAIMaxToolsSource = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools"
