package toolname

// isAPIChar reports whether c may appear in an Anthropic tool name or an
// OpenAI function name: ^[a-zA-Z0-9_-]+$.
func isAPIChar(c byte) bool { return IsLetter(c) || IsDigit(c) || c == '_' || c == '-' }

// Anthropic are the tool names the Anthropic API accepts: ^[a-zA-Z0-9_-]{1,128}$.
var Anthropic = Rules{MaxLen: 128, First: isAPIChar, Rest: isAPIChar, Prefix: "_"}

// OpenAI are the function names the OpenAI API accepts: ^[a-zA-Z0-9_-]{1,64}$.
var OpenAI = Rules{MaxLen: 64, First: isAPIChar, Rest: isAPIChar, Prefix: "_"}
