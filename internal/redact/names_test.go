package redact

import (
	"reflect"
	"testing"
)

func TestSecretName(t *testing.T) {
	secret := []string{
		"token", "tokens", "accessToken", "access_token", "refresh_token", "id_token", "X-Auth-Token",
		"Authorization", "auth", "x-auth", "AUTH_HEADER", "password", "db-passwd", "client_secret",
		"apiKey", "api_key", "API-KEY", "x-api-key", "APIKey", "Cookie", "Set-Cookie", "credentials",
		"private_key", "privateKey", "bearer", "githubToken", "GITHUB_TOKEN", "refreshTokens",
	}
	for _, n := range secret {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false, want true", n)
		}
	}
	plain := []string{
		"maxTokens", "max_tokens", "budget_tokens", "tokenCount", "totalTokens", "inputTokens",
		"output_tokens", "progressToken", "nextPageToken", "page_token", "author", "authors",
		"authority", "name", "volume_level", "key", "monkey", "cursor", "nextCursor", "",
	}
	for _, n := range plain {
		if SecretName(n) {
			t.Errorf("SecretName(%q) = true, want false", n)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"X-Auth-Token":  {"x", "auth", "token"},
		"maxTokens":     {"max", "tokens"},
		"APIKey":        {"api", "key"},
		"api_key":       {"api", "key"},
		"nextPageToken": {"next", "page", "token"},
		"  ":            nil,
	} {
		if got := splitWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
