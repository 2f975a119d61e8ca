package ir

import (
	"errors"
	"testing"
)

// TestOptionsCheck checks the one place that judges generation options:
// each refusal is an *OptionError that names the option.
func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		option string // "" when accepted
	}{
		{"defaults", Options{Package: "p"}, ""},
		{"every part", Options{Package: "p", Parts: Parts, Gemini: GeminiJSON}, ""},
		{"keyword package", Options{Package: "func"}, "package"},
		{"blank package", Options{Package: "_"}, "package"},
		{"dashed package", Options{Package: "my-tools"}, "package"},
		{"empty package", Options{}, "package"},
		{"no part", Options{Package: "p", Parts: []string{}}, "parts"},
		{"unknown part", Options{Package: "p", Parts: []string{"types", "docs"}}, "parts"},
		{"client alone", Options{Package: "p", Parts: []string{PartClient}}, "parts"},
		{"openai alone", Options{Package: "p", Parts: []string{PartOpenAI}}, "parts"},
		{"fake alone", Options{Package: "p", Parts: []string{PartFake, PartGemini}}, "parts"},
		{"unknown gemini form", Options{Package: "p", Gemini: "yaml"}, "gemini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Check()
			var oe *OptionError
			switch {
			case tc.option == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tc.option != "" && !errors.As(err, &oe):
				t.Errorf("Check() = %v, want an *OptionError about %s", err, tc.option)
			case tc.option != "" && oe.Option != tc.option:
				t.Errorf("Check() refused %s (%v), want %s", oe.Option, err, tc.option)
			}
		})
	}
}
