// Command conformanceclient is the client program that the MCP conformance
// suite (@modelcontextprotocol/conformance) drives to test the runtime. The
// suite starts a test server per scenario, runs this program with the
// server's URL as its last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO, and judges the traffic it sees.
//
// For every scenario the program connects with auto-detection, lists the
// tools, and then calls the tools the scenario is about: add_numbers for
// tools_call, test_reconnection for sse-retry, none for initialize,
// test_client_elicitation_defaults for elicitation-sep1034-client-defaults
// (its elicitation handler accepts with no values, so that the runtime
// fills in the defaults), and the test_mrtr_ tools for
// sep-2322-client-request-state (its handler accepts, after making the
// unrelated call the scenario checks for isolation). The
// auth/ scenarios call test-tool through a runtime/auth.OAuth authorizer,
// configured from the scenario's name and MCP_CONFORMANCE_CONTEXT
// (pre-registered clients, keys, workload and identity provider tokens):
// the package does the work. It exits non-zero, with the error on standard
// error, when any step fails.
//
// run.sh in this directory runs the scenarios CI requires.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// scenarioCalls lists, per scenario, the tools to call and their arguments.
// Every auth/ scenario calls test-tool.
var scenarioCalls = map[string][]call{
	"initialize": nil,
	"tools_call": {{tool: "add_numbers", args: `{"a":5,"b":3}`, wantText: "The sum of 5 and 3 is 8"}},
	"sse-retry":  {{tool: "test_reconnection", args: `{}`}},
	"elicitation-sep1034-client-defaults": {
		{tool: "test_client_elicitation_defaults", args: `{}`, wantText: "Elicitation completed: "},
	},
	"sep-2322-client-request-state": {
		{tool: "test_mrtr_echo_state", args: `{}`},
		{tool: "test_mrtr_no_state", args: `{}`},
		{tool: "test_mrtr_no_result_type", args: `{}`},
	},
}

// elicitationHandler returns the elicitation handler of a scenario, nil for
// scenarios without one. session is the Session once connected.
func elicitationHandler(scenario string, session **runtime.Session) runtime.ElicitationHandler {
	switch scenario {
	case "elicitation-sep1034-client-defaults":
		return func(context.Context, *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
			return &runtime.ElicitResult{Action: runtime.ElicitAccept}, nil
		}
	case "sep-2322-client-request-state":
		var once sync.Once
		return func(ctx context.Context, _ *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
			var err error
			once.Do(func() { _, err = (*session).CallTool(ctx, "test_mrtr_unrelated", json.RawMessage(`{}`)) })
			if err != nil {
				return nil, err
			}
			return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: map[string]any{"confirmed": true}}, nil
		}
	}
	return nil
}

// authCalls are the calls of the auth/ scenarios.
var authCalls = []call{{tool: "test-tool", args: `{}`}}

// clientMetadataURL is the client ID metadata document URL the auth
// scenarios accept as a client ID.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// conformanceContext is the scenario data the suite passes in
// MCP_CONFORMANCE_CONTEXT: pre-registered credentials and keys.
type conformanceContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
}

// call is one tool call of a scenario; wantText, when set, is the text the
// result must hold.
type call struct {
	tool     string
	args     string
	wantText string
}

func main() {
	if err := run(os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintf(os.Stderr, "conformanceclient: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, scenario string) error {
	if len(args) == 0 {
		return errors.New("usage: conformanceclient [-v] SERVER-URL (with MCP_CONFORMANCE_SCENARIO set)")
	}
	calls, ok := scenarioCalls[scenario]
	var authorizer runtime.Authorizer
	if strings.HasPrefix(scenario, "auth/") {
		var err error
		if authorizer, err = oauthFor(os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
			return err
		}
		calls, ok = authCalls, true
	}
	if !ok {
		return fmt.Errorf("scenario %q is not one this client knows (initialize, tools_call, sse-retry, elicitation-sep1034-client-defaults, sep-2322-client-request-state, auth/*)", scenario)
	}
	serverURL := args[len(args)-1]
	level := slog.LevelInfo
	for _, a := range args[:len(args)-1] {
		if a == "-v" {
			level = slog.LevelDebug
		}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	t := runtime.HTTP(serverURL, &runtime.HTTPOptions{Logger: logger, Authorizer: authorizer})
	var s *runtime.Session
	s, err := runtime.Connect(ctx, t, &runtime.Options{
		Elicitation:   elicitationHandler(scenario, &s),
		ClientName:    "mcpgen-conformance-client",
		ClientVersion: "1.0.0",
		Logger:        logger,
		LogTraffic:    level == slog.LevelDebug,
	})
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", serverURL, err)
	}
	defer s.Close()
	logger.Info("connected", "protocol", s.ProtocolVersion(), "server", s.ServerInfo().Name)

	tools, err := s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	listed := map[string]bool{}
	for _, tool := range tools {
		listed[tool.Name] = true
	}
	for _, c := range calls {
		if !listed[c.tool] {
			return fmt.Errorf("scenario %s: the server does not list tool %s", scenario, c.tool)
		}
		res, err := s.CallTool(ctx, c.tool, json.RawMessage(c.args))
		if err != nil {
			return fmt.Errorf("scenario %s: %w", scenario, err)
		}
		if c.wantText != "" && !strings.HasPrefix(res.Text(), c.wantText) {
			return fmt.Errorf("scenario %s: %s returned %q, want %q", scenario, c.tool, res.Text(), c.wantText)
		}
		logger.Info("called", "tool", c.tool, "result", res.Text())
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("closing: %w", err)
	}
	return nil
}

// oauthFor returns the authorizer of an auth/ scenario: the OAuth flow with
// the suite's client metadata URL and any pre-registered client, completed
// by following the authorization server's redirects, which approve at once.
func oauthFor(rawContext string) (*auth.OAuth, error) {
	o := &auth.OAuth{
		ClientName:        "mcpgen-conformance-client",
		ClientMetadataURL: clientMetadataURL,
		Redirector:        &auth.Loopback{Open: auth.FollowRedirects(nil), Timeout: 10 * time.Second},
	}
	if rawContext == "" {
		return o, nil
	}
	var c conformanceContext
	if err := json.Unmarshal([]byte(rawContext), &c); err != nil {
		return nil, fmt.Errorf("decoding MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	switch c.Name {
	case "auth/client-credentials-basic":
		o.Flow = &auth.ClientCredentials{ID: c.ClientID, Secret: c.ClientSecret}
	case "auth/client-credentials-jwt":
		key, err := auth.ParsePrivateKey([]byte(c.PrivateKeyPEM))
		if err != nil {
			return nil, err
		}
		o.Flow = &auth.ClientCredentials{ID: c.ClientID, PrivateKey: key, Algorithm: c.SigningAlgorithm}
	case "auth/enterprise-managed-authorization":
		idp := &auth.IdentityProvider{
			TokenEndpoint: c.IdPTokenEndpoint,
			ClientID:      c.IdPClientID,
			IDToken:       func(context.Context) (string, error) { return c.IdPIDToken, nil },
		}
		o.Flow = &auth.JWTBearer{ID: c.ClientID, Secret: c.ClientSecret, Assertion: idp.IDJAG}
	case "auth/wif-jwt-bearer":
		o.Flow = &auth.JWTBearer{ID: c.ClientID, Assertion: auth.StaticAssertion(c.ValidJWT)}
	default:
		if c.ClientID != "" {
			o.Client = &auth.Client{ID: c.ClientID, Secret: c.ClientSecret}
		}
	}
	return o, nil
}
