// Package toolcall runs one model-requested tool call against an MCP server
// for the provider adapters: it validates the arguments against the tool's
// own schema, calls the tool, recovers from panics, and turns the result
// into text, structured output and images that every provider can carry.
package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime"
)

// Image is an image content block of a tool result.
type Image struct {
	MIMEType string
	Data     []byte
}

// MaxOutput bounds, in bytes, the text of a result (or of its error) and
// its structured content as the model gets them. A result may be as large
// as a message (16 MiB by default), and what a toolset gives the model
// stays in the conversation's history and goes out with every later
// request: a few such results would pass a provider's request or context
// limit, and every request of the conversation would fail from then on.
// 256 KiB is about 64,000 tokens.
const MaxOutput = 256 << 10

// MaxImages bounds, in bytes of image data, the images of one result that
// a toolset attaches for the model; the images past it are described as
// not shown. They stay in the history as text does and go out, base64
// encoded, with every later request. 3 MiB encodes to 4 MiB, under
// Anthropic's 5 MB for one image, and is more than a model's largest
// input image takes (Claude and Gemini scale an image down to about 1.2
// megapixels).
const MaxImages = 3 << 20

// Outcome is what a tool call gives back to the model.
type Outcome struct {
	// Error is set when the call failed: invalid arguments (with the JSON
	// pointer and the reason), a failed call, or a result whose isError is
	// set. It is meant to be shown to the model.
	Error string
	// Text joins the result's text blocks and a short placeholder for every
	// other block, in order. On a failed tool run (isError), Error holds it.
	Text string
	// Structured is the result's structuredContent, nil when there is none
	// or it is null.
	Structured json.RawMessage
	// Images are the result's image blocks when attaching them was asked
	// for; Text then says where each one goes.
	Images []Image
	// Called reports whether the tool was called.
	Called bool
	// ToolError reports a result whose isError is set.
	ToolError bool
}

// Run validates args (one JSON object; empty means {}) against schema (nil
// skips validation), and when they are valid and gate (nil lets every call
// through) does not stop the call, calls the tool through caller. A
// cancelled ctx starts no call. Images whose MIME type attach accepts are
// returned in Images (a nil attach keeps none). It never panics: a panic in
// the caller becomes Error.
func Run(ctx context.Context, caller runtime.Caller, tool string, schema *runtime.Schema, args []byte, attach func(mimeType string) bool, gate Gate) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = Outcome{Called: out.Called, Error: fmt.Sprintf("calling %s failed: internal error: %v", tool, p)}
		}
	}()
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if schema != nil {
		if err := schema.Validate(args); err != nil {
			var ve *runtime.ValidationError
			if errors.As(err, &ve) {
				return Outcome{Error: ve.Error()}
			}
			if !json.Valid(args) {
				return Outcome{Error: fmt.Sprintf("arguments for %s are not valid JSON", tool)}
			}
			// The schema itself does not compile: that is not the
			// model's fault, and the server checks the arguments anyway.
		}
	}
	if gate != nil {
		if msg := gate(ctx, args); msg != "" {
			return Outcome{Error: msg}
		}
	}
	if ctx.Err() != nil {
		return Outcome{Error: NotRun(tool, "the conversation was cancelled")}
	}
	out.Called = true
	res, err := caller.CallTool(ctx, tool, json.RawMessage(args))
	var te *runtime.ToolError
	if errors.As(err, &te) && te.Result != nil {
		res, err = te.Result, nil
		res.IsError = true
	}
	if err != nil {
		out.Error = fmt.Sprintf("calling %s failed: %v", tool, err)
		return out
	}
	if res == nil {
		res = &runtime.Result{}
	}
	if res.IsError {
		// An error carries no images, so its text must not say that they
		// are attached.
		text, _ := Describe(res, nil)
		if strings.TrimSpace(text) == "" {
			text = "the tool reported an error without a message"
		}
		out.Error, out.ToolError = bound(text), true
		return out
	}
	out.Text, out.Images = Describe(res, attach)
	out.Text = bound(out.Text)
	// A structuredContent of null is no structured result: the text stays
	// what the model reads. Structured content beyond MaxOutput cannot be
	// cut and stay JSON: the text, cut, is the output instead.
	switch sc := bytes.TrimSpace(res.StructuredContent); {
	case len(sc) == 0 || bytes.Equal(sc, []byte("null")) || !json.Valid(sc):
	case len(sc) > MaxOutput:
		out.Text += fmt.Sprintf("\n[the structured content, %d bytes, is more than the %d bytes given to the model: not shown]", len(sc), MaxOutput)
	default:
		out.Structured = res.StructuredContent
	}
	return out
}

// bound cuts text to MaxOutput bytes, at a rune's start, and says so.
func bound(text string) string {
	if len(text) <= MaxOutput {
		return text
	}
	cut := textcut.Prefix(text, MaxOutput)
	return cut + fmt.Sprintf("\n[the output was cut here: the first %d of its %d bytes are shown]", len(cut), len(text))
}

// Describe joins the text blocks of a result, with a placeholder for every
// other block. Image blocks whose MIME type attach accepts are returned, in
// order while their data comes to at most MaxImages bytes, and their
// placeholder says they are attached; an image without data is not, since
// a provider refuses an empty image.
func Describe(res *runtime.Result, attach func(mimeType string) bool) (string, []Image) {
	var texts []string
	var images []Image
	budget := MaxImages
	for i := range res.Content {
		c := &res.Content[i]
		switch c.Type {
		case runtime.ContentText:
			texts = append(texts, c.Text)
		case runtime.ContentImage:
			switch attachable := attach != nil && len(c.Data) > 0 && attach(c.MIMEType); {
			case attachable && len(c.Data) <= budget:
				budget -= len(c.Data)
				images = append(images, Image{MIMEType: c.MIMEType, Data: c.Data})
				texts = append(texts, fmt.Sprintf("[image %d: %s, attached]", len(images), orUnknown(c.MIMEType)))
			case attachable:
				texts = append(texts, fmt.Sprintf("[image: %s, %d bytes, not shown: the images of one result are given to the model up to %d bytes]", orUnknown(c.MIMEType), len(c.Data), MaxImages))
			default:
				texts = append(texts, fmt.Sprintf("[image: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data)))
			}
		case runtime.ContentAudio:
			texts = append(texts, fmt.Sprintf("[audio: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data)))
		case runtime.ContentResourceLink:
			texts = append(texts, resourceLinkText(c))
		case runtime.ContentResource:
			texts = append(texts, resourceText(c.Resource))
		default:
			texts = append(texts, fmt.Sprintf("[content of type %q, not shown]", c.Type))
		}
	}
	return strings.Join(texts, "\n"), images
}

func resourceLinkText(c *runtime.Content) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	name := c.Title
	if name == "" {
		name = c.Name
	}
	if name != "" {
		b.WriteString(name)
		b.WriteByte(' ')
	}
	b.WriteString("<" + c.URI + ">")
	if c.MIMEType != "" {
		b.WriteString(", " + c.MIMEType)
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	b.WriteByte(']')
	return b.String()
}

func resourceText(r *runtime.ResourceContents) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return fmt.Sprintf("[resource <%s>]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource <%s>: %s, %d bytes, not shown]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// maxListed bounds the names an unknown-tool message lists.
const maxListed = 40

// UnknownTool returns the message for a call to a name that is not
// declared, listing the declared names (sorted, at most 40) so that the
// model can correct itself.
func UnknownTool(kind, name string, known []string) string {
	known = slices.Sorted(slices.Values(known))
	list := strings.Join(known, ", ")
	if len(known) > maxListed {
		list = strings.Join(known[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(known)-maxListed)
	}
	return fmt.Sprintf("unknown %s %q; the %ss are: %s", kind, name, kind, list)
}
