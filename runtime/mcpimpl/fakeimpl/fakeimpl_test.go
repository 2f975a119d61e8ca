package fakeimpl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/mcpimpl"
	"github.com/mcpgen/mcpgen/runtime/mcpimpl/fakeimpl"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// tagsParams is the parameter struct a generated package declares for the
// template tags://all{/tag*}.
type tagsParams struct {
	Tag []string `json:"tag"`
}

func (p *tagsParams) URI() (string, error) {
	return mcpimpl.ExpandURI("tags", "tags://all{/tag*}", []mcpimpl.URIVar{{Name: "tag", List: p.Tag, IsList: true, Required: true}})
}

type tagsHandler struct{}

func (tagsHandler) ReadTags(_ context.Context, p tagsParams) (*runtime.ReadResourceResult, error) {
	return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{Text: strings.Join(p.Tag, "|")}}}, nil
}

// A generated fake reads the resource of an exploded variable with the
// items the generated Client expanded, one item as well as several.
func TestServeTemplateExplodedVariable(t *testing.T) {
	ctx := context.Background()
	sess := connect(t, tagsHandler{}, fakeimpl.ServeTemplate(`{"name":"tags","uriTemplate":"tags://all{/tag*}"}`, tagsHandler.ReadTags))
	for _, tags := range [][]string{{"a"}, {"a", "b"}} {
		p := tagsParams{Tag: tags}
		rr, err := mcpimpl.ReadTemplate(ctx, sess, "tags", &p)
		if want := strings.Join(tags, "|"); err != nil || rr.Text() != want {
			t.Errorf("reading tags %q: %v; got %q, want %q", tags, err, rr.Text(), want)
		}
	}
}

// hostileArgs is the arguments struct a generated package declares for a
// prompt whose argument names a struct tag cannot hold: their fields are
// left out of its JSON.
type hostileArgs struct {
	_           mcpimpl.DoNotCompare
	Name        string `json:"name"`
	AB          string `json:"-"`
	EFOmitempty string `json:"-"`
}

type hostileHandler struct{}

func (hostileHandler) HostilePrompt(_ context.Context, a hostileArgs) (*runtime.GetPromptResult, error) {
	return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: a.Name + "|" + a.AB + "|" + a.EFOmitempty}}}}, nil
}

// A generated fake hands its prompt handler every argument the client
// sent, those whose names a struct tag cannot hold included.
func TestServePromptUntaggedArguments(t *testing.T) {
	ctx := context.Background()
	sess := connect(t, hostileHandler{}, fakeimpl.ServePrompt(`{"name":"hostile","arguments":[{"name":"name"},{"name":"a\"b","required":true},{"name":"e f,omitempty"}]}`, hostileHandler.HostilePrompt))
	res, err := sess.GetPrompt(ctx, "hostile", map[string]string{"name": "n", `a"b`: "ab", "e f,omitempty": "ef"})
	if want := "n|ab|ef"; err != nil || res.Text() != want {
		t.Errorf("prompts/get: %v; got %q, want %q", err, res.Text(), want)
	}
}

// connect starts a fake server of h that serves what served does, and
// connects a Session to it, closed when the test ends.
func connect[H any](t *testing.T, h H, served ...fakeimpl.Served[H]) *runtime.Session {
	t.Helper()
	s, err := fakeimpl.NewServer(h, nil, nil, served...)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Connect(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// The prompts and resource templates given in a generated NewServer's
// options are offered beside those its Handler answers: they used to be
// dropped without a word. One listed twice is refused, naming it.
func TestNewServerKeepsOptionsPromptsAndTemplates(t *testing.T) {
	ctx := context.Background()
	extra := server.Prompt{
		Prompt: runtime.Prompt{Name: "extra"},
		Handle: func(context.Context, map[string]string) (*runtime.GetPromptResult, error) {
			return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: "from the options"}}}}, nil
		},
	}
	tmpl, err := runtime.ParseResourceTemplate([]byte(`{"uriTemplate":"extra://{id}","name":"extra"}`))
	if err != nil {
		t.Fatal(err)
	}
	extraTemplate := server.ResourceTemplate{Template: tmpl, Handle: func(_ context.Context, uri string, _ map[string]any) (*runtime.ReadResourceResult, error) {
		return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "extra"}}}, nil
	}}
	hostile := fakeimpl.ServePrompt(`{"name":"hostile","arguments":[{"name":"name"},{"name":"a\"b"},{"name":"e f,omitempty"}]}`, hostileHandler.HostilePrompt)
	s, err := fakeimpl.NewServer(hostileHandler{}, nil, &server.Options{Prompts: []server.Prompt{extra}, ResourceTemplates: []server.ResourceTemplate{extraTemplate}}, hostile)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Connect(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	prompts, err := sess.ListPrompts(ctx)
	if err != nil || len(prompts) != 2 {
		t.Fatalf("prompts/list: %v, %+v; want the handler's prompt and the options'", err, prompts)
	}
	if res, err := sess.GetPrompt(ctx, "extra", nil); err != nil || res.Text() != "from the options" {
		t.Errorf("prompts/get extra: %v, %+v", err, res)
	}
	if res, err := sess.ReadResource(ctx, "extra://1"); err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "extra" {
		t.Errorf("resources/read extra://1: %v, %+v", err, res)
	}

	twice := server.Prompt{Prompt: runtime.Prompt{Name: "hostile"}, Handle: extra.Handle}
	if _, err := fakeimpl.NewServer(hostileHandler{}, nil, &server.Options{Prompts: []server.Prompt{twice}}, hostile); err == nil || !strings.Contains(err.Error(), "hostile") {
		t.Errorf("a prompt of the options named as one of the handler's: %v, want an error naming it", err)
	}
}
