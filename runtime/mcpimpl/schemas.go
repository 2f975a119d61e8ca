package mcpimpl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// Schemas holds the input and output schemas of a generated package's
// tools, read from the tools' JSON texts (the package's tools.jsonl) and
// compiled when first used. Nothing is read or compiled before that, not
// even the file split into its lines, so a package of thousands of tools
// costs nothing at start-up.
type Schemas struct {
	file      string
	splitOnce sync.Once
	texts     []string
	tools     []toolSchemas

	indexOnce sync.Once
	index     map[string]int // tool name → index in texts
}

type toolSchemas struct {
	once          sync.Once
	input, output *runtime.Schema
}

// NewSchemas returns the schemas of the tools of a JSON Lines file, as
// Lines reads it: one compact object a tool, as the server sent it.
func NewSchemas(file string) *Schemas {
	return &Schemas{file: file}
}

// split splits the file into its texts, once.
func (s *Schemas) split() {
	s.splitOnce.Do(func() {
		s.texts = Lines(s.file)
		s.tools = make([]toolSchemas, len(s.texts))
	})
}

// load reads the schemas of tool i.
func (s *Schemas) load(i int) *toolSchemas {
	s.split()
	ts := &s.tools[i]
	ts.once.Do(func() {
		// The generator wrote each text from a tool it had decoded, so it
		// decodes; a text that did not would leave an empty schema, which
		// fails to compile with an error naming the tool.
		t, _ := runtime.ParseTool([]byte(s.texts[i]))
		ts.input = runtime.NewSchema(t.Name, t.InputSchema)
		if t.OutputSchema != nil {
			ts.output = runtime.NewSchema(t.Name, t.OutputSchema)
		}
	})
	return ts
}

// Input returns the input schema of tool i, the index of its text.
func (s *Schemas) Input(i int) *runtime.Schema { return s.load(i).input }

// Output returns the output schema of tool i, or nil when it has none.
func (s *Schemas) Output(i int) *runtime.Schema { return s.load(i).output }

// lookup returns the index of the tool named name.
func (s *Schemas) lookup(name string) (int, error) {
	s.split()
	s.indexOnce.Do(func() {
		s.index = make(map[string]int, len(s.texts))
		for i, text := range s.texts {
			if t, err := runtime.ParseTool([]byte(text)); err == nil {
				s.index[t.Name] = i
			}
		}
	})
	i, ok := s.index[name]
	if !ok {
		return 0, fmt.Errorf("unknown tool %q", name)
	}
	return i, nil
}

// ValidateArguments checks the raw JSON arguments of the named tool against
// its input schema.
func (s *Schemas) ValidateArguments(tool string, args []byte) error {
	i, err := s.lookup(tool)
	if err != nil {
		return err
	}
	return s.Input(i).Validate(args)
}

// ValidateResult checks the raw structured result of the named tool
// against its output schema; a tool without one accepts any result.
func (s *Schemas) ValidateResult(tool string, structured []byte) error {
	i, err := s.lookup(tool)
	if err != nil {
		return err
	}
	if out := s.Output(i); out != nil {
		return asResult(out.Validate(structured), tool)
	}
	return nil
}

// asResult marks a *runtime.ValidationError in err as one of tool's
// structured result, and returns err.
func asResult(err error, tool string) error {
	var ve *runtime.ValidationError
	if errors.As(err, &ve) {
		ForResult(ve, tool)
	}
	return err
}
