package runtime

import (
	"encoding/json"
	"strings"
)

// Result is the result of a tools/call request.
type Result struct {
	// Content is the unstructured result, in the order the server sent it.
	Content []Content `json:"content"`
	// StructuredContent is the structured result, exactly as the server sent
	// it; nil when the server sent none.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError reports a tool execution error: the call reached the tool, and
	// the tool failed. Content then describes the failure.
	IsError bool `json:"isError,omitempty"`
	// Meta is the result's _meta object, if any.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Text joins the text of every text content block with newlines.
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	first, n := -1, 0
	for i := range r.Content {
		if r.Content[i].Type == ContentText {
			if n == 0 {
				first = i
			}
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		// One block, a large result typically: no copy.
		return r.Content[first].Text
	}
	var b strings.Builder
	joined := false // a block is written: the next one follows a newline
	for i := range r.Content {
		if r.Content[i].Type != ContentText {
			continue
		}
		if joined {
			b.WriteByte('\n')
		}
		joined = true
		b.WriteString(r.Content[i].Text)
	}
	return b.String()
}

// Content types of a content block.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Content is one content block of a tool result. Type tells which fields are
// set; a block of an unknown type keeps its bytes in Raw.
type Content struct {
	// Type is one of the Content* constants, or a type this package does not
	// know.
	Type string `json:"type"`
	// Text is set for text blocks.
	Text string `json:"text,omitempty"`
	// Data is the decoded payload of image and audio blocks.
	Data []byte `json:"data,omitempty"`
	// MIMEType is set for image, audio and resource_link blocks.
	MIMEType string `json:"mimeType,omitempty"`
	// URI, Name, Title, Description and Size describe a resource_link block.
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	// Icons is a resource_link block's icons (2025-11-25), kept as the
	// server sent them.
	Icons json.RawMessage `json:"icons,omitempty"`
	// Resource is the embedded resource of a resource block.
	Resource *ResourceContents `json:"resource,omitempty"`
	// Annotations and Meta are kept as the server sent them.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole block as received, kept for blocks of unknown type.
	Raw json.RawMessage `json:"-"`
}

// ResourceContents is the body of an embedded resource: either Text or Blob.
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     []byte          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}
