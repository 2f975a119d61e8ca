package runtime

import (
	"errors"
	"strings"
	"testing"
)

func TestSchemaValidate(t *testing.T) {
	s := NewSchema("HassSetVolume", []byte(`{"type":"object","properties":{
		"volume_level":{"type":"integer","minimum":0,"maximum":100},
		"a/b":{"type":"array","items":{"type":"string","enum":["x"]}}}}`))
	for _, tc := range []struct {
		args    string
		pointer string
	}{
		{`{"volume_level":30}`, "-"},
		{``, "-"},
		{`{"volume_level":150}`, "/volume_level"},
		{`{"volume_level":"loud"}`, "/volume_level"},
		{`{"a/b":["x","y"]}`, "/a~1b/1"},
	} {
		err := s.Validate([]byte(tc.args))
		if tc.pointer == "-" {
			if err != nil {
				t.Errorf("Validate(%s) = %v, want nil", tc.args, err)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("Validate(%s) = %v, want *ValidationError", tc.args, err)
		}
		if ve.Pointer != tc.pointer || ve.Reason == "" || ve.Tool != "HassSetVolume" {
			t.Errorf("Validate(%s) = %+v, want pointer %s and a reason", tc.args, ve, tc.pointer)
		}
	}
}

func TestSchemaNeverFetchesExternalRefs(t *testing.T) {
	s := NewSchema("t", []byte(`{"type":"object","properties":{"x":{"$ref":"http://127.0.0.1:1/x.json"}}}`))
	if err := s.Compile(); err == nil {
		t.Fatal("Compile succeeded with an external $ref")
	}
}

func TestSchemaDraft07(t *testing.T) {
	s := NewSchema("t", []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"definitions":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/n"}}}`))
	if err := s.Validate([]byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{"x":"1"}`)); err == nil {
		t.Fatal("want error for string x")
	}
}

// TestSchemaRefusesDuplicateKeys checks that arguments repeating a key are
// refused at the pointer of the repeated key, whichever value is valid:
// the server may read another value than the last, which the validator
// would judge.
func TestSchemaRefusesDuplicateKeys(t *testing.T) {
	s := NewSchema("t", []byte(`{"type":"object","properties":{"n":{"type":"integer"},"o":{"type":"object","properties":{"m":{"type":"string"}}}}}`))
	for _, tc := range []struct{ args, pointer string }{
		{`{"n":"x","n":1}`, "/n"},
		{`{"n":1,"n":2}`, "/n"},
		{`{"o":{"m":"a","\u006d":"b"}}`, "/o/m"},
	} {
		err := s.Validate([]byte(tc.args))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || ve.Tool != "t" || !strings.Contains(ve.Reason, "repeats the key") {
			t.Errorf("Validate(%s) = %v, want a *ValidationError at %s saying the key is repeated", tc.args, err, tc.pointer)
		}
	}
	// The same key in two objects is no repetition.
	if err := s.Validate([]byte(`{"n":1,"o":{"n":"x"}}`)); err != nil {
		t.Errorf("Validate of a key in two objects = %v, want nil", err)
	}
}
