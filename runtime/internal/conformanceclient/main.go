// Command conformanceclient is the client program that the MCP conformance
// suite (@modelcontextprotocol/conformance) drives to test the runtime. The
// suite starts a test server per scenario, runs this program with the
// server's URL as its last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and the spec version it runs at in
// MCP_CONFORMANCE_PROTOCOL_VERSION, and judges the traffic it sees.
//
// The program is a thin dispatcher over the runtime's public API: it knows
// which generic steps each scenario takes and nothing of the protocol. For
// every scenario it connects with auto-detection, pinned to the suite's
// version, lists the tools, and then calls the tools the scenario is about:
//
//   - initialize, json-schema-ref-no-deref, request-metadata: none.
//   - tools_call: add_numbers; sse-retry: test_reconnection.
//   - http-standard-headers, http-invalid-tool-headers: every tool the
//     listing kept, with no arguments.
//   - http-custom-headers: the calls MCP_CONFORMANCE_CONTEXT lists in
//     toolCalls, with their arguments as given.
//   - json-schema-2020-12-preservation: json_schema_echo, with the input
//     schema of json_schema_2020_12_tool, as listed, in its argument schema.
//
// elicitation-sep1034-client-defaults calls
// test_client_elicitation_defaults, its elicitation handler accepting with
// no values, so that the runtime fills in the defaults;
// sep-2322-client-request-state calls the test_mrtr_ tools, its handler
// accepting after making the unrelated call the scenario checks for
// isolation.
//
// The sep-2640-client-* scenarios (the Skills extension) list the skills
// instead; the verify ones then load each skill and read its other files,
// and pass when the runtime rejects the tampered SKILL.md before reading
// anything else.
//
// The auth/ scenarios call test-tool through a runtime/auth.OAuth
// authorizer, configured from the scenario's name and
// MCP_CONFORMANCE_CONTEXT (pre-registered clients, keys, workload and
// identity provider tokens): the package does the work. The headers, the
// _meta of each request, the retry after an unsupported-version error and
// the rejection of tools with invalid x-mcp-header annotations are all the
// runtime's. The program exits non-zero, with the error on standard error,
// when any step fails.
//
// run.sh in this directory runs the scenarios CI requires.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// scenarioCalls lists, per scenario, the tools to call and their arguments.
// Every auth/ scenario calls test-tool.
var scenarioCalls = map[string][]call{
	"initialize":               nil,
	"tools_call":               {{tool: "add_numbers", args: `{"a":5,"b":3}`, wantText: "The sum of 5 and 3 is 8"}},
	"sse-retry":                {{tool: "test_reconnection", args: `{}`}},
	"json-schema-ref-no-deref": nil,
	"request-metadata":         nil,
	// The scenario hands the calls, with their arguments, in
	// MCP_CONFORMANCE_CONTEXT.
	"http-custom-headers": nil,
	// The focal tool's input schema, as listed, is echoed back.
	"json-schema-2020-12-preservation": {{tool: "json_schema_echo", echoSchemaOf: "json_schema_2020_12_tool"}},
	"elicitation-sep1034-client-defaults": {
		{tool: "test_client_elicitation_defaults", args: `{}`, wantText: "Elicitation completed: "},
	},
	"sep-2322-client-request-state": {
		{tool: "test_mrtr_echo_state", args: `{}`},
		{tool: "test_mrtr_no_state", args: `{}`},
		{tool: "test_mrtr_no_result_type", args: `{}`},
	},
}

// callEveryListed names the scenarios that call every tool the server lists,
// with no arguments: whatever the listing kept must work, whatever it left
// out must never be called.
var callEveryListed = map[string]bool{
	"http-standard-headers":     true,
	"http-invalid-tool-headers": true,
}

// skillSteps is what a scenario does with the server's skills, which it
// always lists.
type skillSteps struct {
	// load loads every listed skill, then reads each of its other files.
	load bool
	// wantRejected expects the runtime to reject each skill's SKILL.md
	// (a *runtime.SkillVerificationError), so that no other file is read.
	wantRejected bool
}

// scenarioSkills lists the scenarios about skills and their steps.
var scenarioSkills = map[string]skillSteps{
	"sep-2640-client-no-prefetch":        {},
	"sep-2640-client-verify-digest":      {load: true, wantRejected: true},
	"sep-2640-client-verify-size":        {load: true, wantRejected: true},
	"sep-2640-client-verify-frontmatter": {load: true, wantRejected: true},
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
	Name             string        `json:"name"`
	ClientID         string        `json:"client_id"`
	ClientSecret     string        `json:"client_secret"`
	PrivateKeyPEM    string        `json:"private_key_pem"`
	SigningAlgorithm string        `json:"signing_algorithm"`
	IdPClientID      string        `json:"idp_client_id"`
	IdPIDToken       string        `json:"idp_id_token"`
	IdPTokenEndpoint string        `json:"idp_token_endpoint"`
	ValidJWT         string        `json:"valid_jwt"`
	ToolCalls        []contextCall `json:"toolCalls"`
}

// call is one tool call of a scenario; wantText, when set, is the text the
// result must hold. echoSchemaOf, when set, names a listed tool whose input
// schema is passed on, as listed, in the argument "schema".
type call struct {
	tool         string
	args         string
	wantText     string
	echoSchemaOf string
}

// contextCall is one call MCP_CONFORMANCE_CONTEXT lists in toolCalls.
type contextCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
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
	ok = ok || callEveryListed[scenario]
	skills, useSkills := scenarioSkills[scenario]
	ok = ok || useSkills
	var authorizer runtime.Authorizer
	if strings.HasPrefix(scenario, "auth/") {
		var err error
		o, err := oauthFor(os.Getenv("MCP_CONFORMANCE_CONTEXT"))
		if err != nil {
			return err
		}
		if o.Flow != nil || o.Client != nil && o.Client.Secret != "" {
			// The suite names no issuer for its credentials; they
			// are bound to the one the server names.
			if o.ClientIssuer, err = suiteIssuer(args[len(args)-1]); err != nil {
				return err
			}
		}
		authorizer = o
		calls, ok = authCalls, true
	}
	if !ok {
		return fmt.Errorf("scenario %q is not one this client knows (%s, auth/*)", scenario, strings.Join(knownScenarios(), ", "))
	}
	if scenario == "http-custom-headers" {
		var err error
		if calls, err = contextCalls(os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
			return err
		}
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
		Elicitation:     elicitationHandler(scenario, &s),
		ClientName:      "mcpgen-conformance-client",
		ClientVersion:   "1.0.0",
		ProtocolVersion: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
		Logger:          logger,
		LogTraffic:      level == slog.LevelDebug,
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
	listed := map[string]runtime.Tool{}
	for _, tool := range tools {
		listed[tool.Name] = tool
		if callEveryListed[scenario] {
			calls = append(calls, call{tool: tool.Name, args: `{}`})
		}
	}
	for _, c := range calls {
		if _, ok := listed[c.tool]; !ok {
			return fmt.Errorf("scenario %s: the server does not list tool %s", scenario, c.tool)
		}
		args := json.RawMessage(c.args)
		if c.echoSchemaOf != "" {
			focal, ok := listed[c.echoSchemaOf]
			if !ok {
				return fmt.Errorf("scenario %s: the server does not list tool %s", scenario, c.echoSchemaOf)
			}
			args = json.RawMessage(`{"schema":` + string(focal.InputSchema) + `}`)
		}
		res, err := s.CallTool(ctx, c.tool, args)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", scenario, err)
		}
		if c.wantText != "" && !strings.HasPrefix(res.Text(), c.wantText) {
			return fmt.Errorf("scenario %s: %s returned %q, want %q", scenario, c.tool, res.Text(), c.wantText)
		}
		logger.Info("called", "tool", c.tool, "result", res.Text())
	}
	if useSkills {
		if err := runSkills(ctx, logger, s, skills); err != nil {
			return fmt.Errorf("scenario %s: %w", scenario, err)
		}
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("closing: %w", err)
	}
	return nil
}

// knownScenarios returns the names of the scenarios other than auth/ ones,
// sorted.
func knownScenarios() []string {
	var names []string
	for name := range scenarioCalls {
		names = append(names, name)
	}
	for name := range callEveryListed {
		names = append(names, name)
	}
	for name := range scenarioSkills {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// contextCalls returns the calls MCP_CONFORMANCE_CONTEXT lists, with their
// arguments as the suite wrote them.
func contextCalls(rawContext string) ([]call, error) {
	var c conformanceContext
	if err := json.Unmarshal([]byte(rawContext), &c); err != nil {
		return nil, fmt.Errorf("decoding MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	if len(c.ToolCalls) == 0 {
		return nil, errors.New("MCP_CONFORMANCE_CONTEXT lists no toolCalls")
	}
	calls := make([]call, 0, len(c.ToolCalls))
	for _, tc := range c.ToolCalls {
		calls = append(calls, call{tool: tc.Name, args: string(tc.Arguments)})
	}
	return calls, nil
}

// runSkills lists the server's skills and takes the steps.
func runSkills(ctx context.Context, logger *slog.Logger, s *runtime.Session, steps skillSteps) error {
	skills, err := s.ListSkills(ctx)
	if err != nil {
		return err
	}
	logger.Info("listed skills", "count", len(skills))
	if !steps.load {
		return nil
	}
	for i := range skills {
		sk := &skills[i]
		loaded, err := s.LoadSkill(ctx, sk)
		var ve *runtime.SkillVerificationError
		if steps.wantRejected && errors.As(err, &ve) {
			logger.Info("rejected", "skill", sk.Name, "reason", err)
			continue
		}
		if err != nil {
			return err
		}
		logger.Info("loaded", "skill", sk.Name, "bytes", len(loaded.Markdown))
		// The skill is in use, as a host would use it: its files are
		// read, which the verify scenarios see as a failure to reject.
		for _, f := range sk.Files {
			if f.URI == sk.URI {
				continue
			}
			if _, err := s.ReadSkillFile(ctx, sk, f.URI); err != nil {
				return err
			}
		}
		if steps.wantRejected {
			return fmt.Errorf("skill %s: its SKILL.md passed verification, but the scenario serves a tampered one", sk.Name)
		}
	}
	return nil
}

// suiteIssuer returns the issuer of the authorization server that the
// suite's MCP server at serverURL names, found as OAuth would find it: from
// the protected resource metadata its 401 points to, at its well-known
// URLs, or else its origin (the 2025-03-26 rules).
func suiteIssuer(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || !u.IsAbs() {
		return "", fmt.Errorf("the server URL %q is not absolute", serverURL)
	}
	resp, err := http.Post(serverURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`))
	if err != nil {
		return "", fmt.Errorf("finding the suite's issuer: %w", err)
	}
	resp.Body.Close()
	chs, _ := auth.Challenges(resp.Header)
	ch, _ := auth.Find(chs, "bearer")
	origin := u.Scheme + "://" + u.Host
	candidates := []string{origin + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/"), origin + "/.well-known/oauth-protected-resource"}
	if m := ch.Params["resource_metadata"]; m != "" {
		candidates = append([]string{m}, candidates...)
	}
	for _, c := range candidates {
		r, err := http.Get(c)
		if err != nil {
			continue
		}
		var prm auth.ResourceMetadata
		err = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&prm)
		r.Body.Close()
		if r.StatusCode == http.StatusOK && err == nil && len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0], nil
		}
	}
	return origin, nil
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
