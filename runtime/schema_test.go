package runtime

import (
	"errors"
	"fmt"
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

// TestSchemaRefusesNumbersBeyondFloat64 validates values holding numbers a
// float64 cannot hold, as a hostile server's structured result may: one
// whose exponent the validator's exact arithmetic cannot read made it
// panic, and one of a million digits took seconds. Each is a violation at
// its pointer; the numbers a float64 holds, and long integers, are judged
// as before.
func TestSchemaRefusesNumbersBeyondFloat64(t *testing.T) {
	s := NewSchema("t", []byte(`{"type":"object","properties":{
		"a":{"type":"integer","maximum":10},"b":{"minimum":-10},"c":{"multipleOf":3},
		"d":{"type":"array","items":{"type":"number","exclusiveMinimum":-1e300}}}}`))
	digits := strings.Repeat("7", 1<<20)
	for _, tc := range []struct {
		value, pointer, reason string
	}{
		{`{"a":1e99999999}`, "/a", "the number 1e99999999 is beyond the range of a float64"},
		{`{"b":-1e99999999}`, "/b", "the number -1e99999999 is beyond the range of a float64"},
		{`{"c":1e-99999999}`, "/c", "the number 1e-99999999 is too small for a float64, which reads it as 0"},
		{`{"a":1e400}`, "/a", "the number 1e400 is beyond the range of a float64"},
		{`{"b":-1e400}`, "/b", "the number -1e400 is beyond the range of a float64"},
		{`{"d":[1,1e-400]}`, "/d/1", "the number 1e-400 is too small for a float64, which reads it as 0"},
		{`{"c":0.` + digits + `}`, "/c", "the number 0." + digits[:62] + "… is longer than 1000 characters"},
		{`{"x":{"y":[0,1e400]},"b":1e400,"c":[1e400]}`, "/b", "the number 1e400 is beyond the range of a float64"},
	} {
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			err = s.Validate([]byte(tc.value))
		}()
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Tool != "t" || ve.Pointer != tc.pointer || ve.Reason != tc.reason {
			t.Errorf("Validate(%.40s) = %v, want a violation at %s: %s", tc.value, err, tc.pointer, tc.reason)
		}
	}
	for _, v := range []string{`{"a":-0}`, `{"a":1.0}`, `{"a":-123456789012345678901234567890}`, `{"b":1.7976931348623157e308}`, `{"c":0.0e-99999999}`, `{"d":[5e-324,-0.0]}`} {
		if err := s.Validate([]byte(v)); err != nil {
			t.Errorf("Validate(%s) = %v, want nil", v, err)
		}
	}
}
