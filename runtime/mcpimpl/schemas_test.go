package mcpimpl

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

var schemaTexts = []string{
	`{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":3}}}}`,
	`{"name":"b","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["ok"]}}`,
}

func TestSchemasValidateByName(t *testing.T) {
	s := NewSchemas(schemaTexts)
	if err := s.ValidateArguments("a", []byte(`{"n":2}`)); err != nil {
		t.Errorf("valid arguments: %v", err)
	}
	var ve *runtime.ValidationError
	if err := s.ValidateArguments("a", []byte(`{"n":4}`)); !errors.As(err, &ve) || ve.Tool != "a" || ve.Pointer != "/n" {
		t.Errorf("invalid arguments: %v, want a ValidationError of tool a at /n", err)
	}
	if err := s.ValidateArguments("nosuch", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), `unknown tool "nosuch"`) {
		t.Errorf("unknown tool: %v", err)
	}
	if err := s.ValidateResult("a", []byte(`"anything"`)); err != nil {
		t.Errorf("a tool without an output schema rejected a result: %v", err)
	}
	if err := s.ValidateResult("b", []byte(`{}`)); !errors.As(err, &ve) {
		t.Errorf("result without ok: %v, want a ValidationError", err)
	}
	if err := s.ValidateResult("nosuch", []byte(`{}`)); err == nil {
		t.Error("ValidateResult of an unknown tool = nil")
	}
}

func TestSchemasReadNothingBeforeUse(t *testing.T) {
	s := NewSchemas(schemaTexts)
	for i := range s.tools {
		if s.tools[i].input != nil {
			t.Fatalf("tool %d was read before use", i)
		}
	}
	if s.Output(0) != nil || s.Output(1) == nil || s.Input(0) == nil {
		t.Error("Input and Output do not follow the texts")
	}
	if s.tools[0].input == nil || s.index != nil {
		t.Error("reading one tool by index should read it, and no name index")
	}
}
