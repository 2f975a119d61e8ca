package runtime

import "testing"

// TestTextJoinsEveryItem checks that the Text of a tool result, a prompt
// and a resource read joins every text item with newlines, a leading empty
// one included: ["", "n"] used to give "n", as if the first were not there.
func TestTextJoinsEveryItem(t *testing.T) {
	texts := []string{"", "n", "", "m"}
	const want = "\nn\n\nm"
	res := &Result{}
	prompt := &GetPromptResult{}
	read := &ReadResourceResult{}
	for _, s := range texts {
		res.Content = append(res.Content, Content{Type: ContentText, Text: s}, Content{Type: ContentImage})
		prompt.Messages = append(prompt.Messages, PromptMessage{Role: "user", Content: Content{Type: ContentText, Text: s}})
		read.Contents = append(read.Contents, ResourceContents{URI: "a://b", Text: s}, ResourceContents{URI: "a://c", Blob: []byte{1}})
	}
	for what, got := range map[string]string{"Result": res.Text(), "GetPromptResult": prompt.Text(), "ReadResourceResult": read.Text()} {
		if got != want {
			t.Errorf("%s.Text() = %q, want %q", what, got, want)
		}
	}
}
