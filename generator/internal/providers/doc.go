// Package providers is generated from the provider survey in
// internal/testing/providertest/testdata/survey-tools.json (one tool per schema
// construct and name shape) with every provider part: Gemini, Anthropic and
// OpenAI in strict mode. Its test checks the declarations against each
// provider's rules and drives the generated toolsets through a fake caller.
// Everything but this file and the tests is generated.
package providers

//go:generate go run ../../../cmd/mcpgen generate --snapshot ../../../internal/testing/providertest/testdata/survey-tools.json --package providers --out . --emit types,gemini,anthropic,openai --openai-strict
