package providertest

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckProviders reports what breaks the Anthropic and OpenAI rules,
// and nothing for declarations that keep them.
func TestCheckProviders(t *testing.T) {
	good := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}}},"required":["a","b"],"additionalProperties":false}`
	if errs := CheckAnthropic([]byte(`[{"name":"t","input_schema":` + good + `}]`)); len(errs) != 0 {
		t.Errorf("CheckAnthropic: %v", errs)
	}
	if errs := CheckOpenAI([]byte(`[{"name":"t","strict":true,"parameters":` + good + `}]`)); len(errs) != 0 {
		t.Errorf("CheckOpenAI: %v", errs)
	}
	got := fmt.Sprint(CheckAnthropic([]byte(`[{"name":"t t","input_schema":{"type":"string","anyOf":[]}},{"name":"t t"},{"name":"x","input_schema":{"properties":{}}}]`)))
	for _, want := range []string{"tool 0 (t t): invalid name", `tool 0 (t t): input_schema type is "string", not object`,
		"tool 0 (t t): input_schema has anyOf at its top level", "tool 1 (t t): name declared twice", "tool 1 (t t): no input_schema",
		"tool 2 (x): input_schema has no type"} {
		if !strings.Contains(got, want) {
			t.Errorf("CheckAnthropic: %s\nlacks %s", got, want)
		}
	}
	got = fmt.Sprint(CheckOpenAI([]byte(`[{"name":"f","strict":true,"parameters":{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"minimum":"1","type":"number"}},"required":["y"]},"u":{"oneOf":[]}},"required":["o"],"additionalProperties":false}}]`)))
	for _, want := range []string{"parameters.properties.o: object without additionalProperties: false",
		`parameters.properties.o: required "y" is not a property`, `parameters.properties.o.properties.x: minimum is "1", not a number`,
		"parameters: required lists 1 names for 2 properties", "parameters.properties.u: keyword oneOf is not allowed in strict mode",
		"parameters.properties.u: schema has no type"} {
		if !strings.Contains(got, want) {
			t.Errorf("CheckOpenAI: %s\nlacks %s", got, want)
		}
	}
}
