package generator

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestProviderSDKsOnlyOnRequest checks with go list -deps that a package
// generated with the default parts depends on neither the Anthropic nor the
// OpenAI SDK, while one generated with those parts depends on both, and
// that the mcpgen command depends on none of the three providers' SDKs,
// Gemini's included, so that a module adding it as a tool does not need
// them and the binary does not link them.
func TestProviderSDKsOnlyOnRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	sdks := []string{"github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go/v3"}
	cases := []struct {
		pkg   string
		want  bool
		genai bool
	}{
		{"../generated/homeassistant", false, true},
		{"./internal/providers", true, true},
		{"../cmd/mcpgen", false, false},
	}
	for _, c := range cases {
		out, err := exec.Command("go", "list", "-deps", c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, out)
		}
		deps := map[string]bool{}
		for _, line := range strings.Fields(string(out)) {
			deps[line] = true
		}
		if !deps["github.com/mcpgen/mcpgen/runtime"] {
			t.Errorf("%s does not depend on runtime: the dependency list is not what it seems", c.pkg)
		}
		if deps["google.golang.org/genai"] != c.genai {
			t.Errorf("%s depends on genai: %v, want %v", c.pkg, deps["google.golang.org/genai"], c.genai)
		}
		for _, sdk := range sdks {
			got := false
			for d := range deps {
				got = got || d == sdk || strings.HasPrefix(d, sdk+"/")
			}
			if got != c.want {
				t.Errorf("%s depends on %s: %v, want %v", c.pkg, sdk, got, c.want)
			}
		}
	}
}

// TestServerOnlyWithTheFakePart checks that only a package generated with
// the fake part links the server side (runtime/server): the default parts
// do not.
func TestServerOnlyWithTheFakePart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for pkg, want := range map[string]bool{"../generated/sdkserver": false, "./internal/schematable": false, "../generated/homeassistant": true} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if got := slices.Contains(deps, "github.com/mcpgen/mcpgen/runtime/server"); got != want {
			t.Errorf("%s depends on runtime/server: %v, want %v", pkg, got, want)
		}
	}
}
