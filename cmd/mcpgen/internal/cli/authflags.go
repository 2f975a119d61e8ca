package cli

import (
	"crypto"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/config"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// authFlags say how a command signs in to an HTTP server that requires
// OAuth authorization. With none of them, mcpgen uses the tokens "mcpgen
// login" stored, registering itself with the authorization server when it
// supports dynamic registration.
type authFlags struct {
	clientID           string
	clientSecretEnv    string
	clientKey          string
	issuer             string
	scopes             string
	clientMetadataURL  string
	allowMissingIssuer bool
	allowNoPKCE        bool
	// redirectPort is the loopback port of "mcpgen login"; 0 picks one.
	redirectPort int
}

func (a *authFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.clientID, "client-id", "", "OAuth: the client `ID` registered with the authorization server (with --client-secret-env or --client-key: the client credentials grant, for CI)")
	fs.StringVar(&a.clientSecretEnv, "client-secret-env", "", "OAuth: the environment `VARIABLE` holding the secret of --client-id, for the client credentials grant; never printed")
	fs.StringVar(&a.clientKey, "client-key", "", "OAuth: a PEM private key `file` that --client-id authenticates with (private_key_jwt), for the client credentials grant")
	fs.StringVar(&a.issuer, "issuer", "", "OAuth: the issuer `URL` of the authorization server --client-id is registered with; its secret or key goes to that server's token endpoint alone (needed with --client-secret-env and --client-key)")
	fs.StringVar(&a.scopes, "scope", "", "OAuth: the `scopes` to ask for, separated by spaces (default: the ones the server names)")
	fs.StringVar(&a.clientMetadataURL, "client-metadata-url", "", "OAuth: the `URL` of mcpgen's client ID metadata document, used as the client ID by authorization servers that accept one (Home Assistant)")
	fs.BoolVar(&a.allowMissingIssuer, "allow-missing-issuer", false, "OAuth: accept authorization server metadata without an issuer, as a server reached through a local address may serve (Home Assistant)")
	fs.BoolVar(&a.allowNoPKCE, "allow-unadvertised-pkce", false, "OAuth: sign in with PKCE (S256) even where the authorization server metadata lists no code_challenge_methods_supported (Home Assistant)")
}

// fromConfig takes the settings of an auth block of mcpgen.yaml.
func (a *authFlags) fromConfig(c *config.Auth) {
	if c == nil {
		return
	}
	a.clientID = c.ClientID
	a.clientSecretEnv = c.ClientSecretEnv
	a.clientKey = c.ClientKey
	a.issuer = c.Issuer
	a.scopes = strings.Join(c.Scopes, " ")
	a.clientMetadataURL = c.ClientMetadataURL
	a.allowMissingIssuer = c.AllowMissingIssuer
	a.allowNoPKCE = c.AllowUnadvertisedPKCE
	a.redirectPort = c.RedirectPort
}

// given reports whether any setting was given.
func (a *authFlags) given() bool {
	return a.clientID != "" || a.clientSecretEnv != "" || a.clientKey != "" || a.issuer != "" || a.scopes != "" ||
		a.clientMetadataURL != "" || a.allowMissingIssuer || a.allowNoPKCE || a.redirectPort != 0
}

// machine reports whether the settings are those of the client credentials
// grant: a client that signs in with its own secret or key.
func (a *authFlags) machine() bool {
	return a.clientSecretEnv != "" || a.clientKey != ""
}

// check reports a mistake in how the settings combine, in flag names.
func (a *authFlags) check() error {
	switch {
	case a.clientSecretEnv != "" && a.clientKey != "":
		return errors.New("give --client-secret-env or --client-key, not both")
	case a.machine() && a.clientID == "":
		return errors.New("--client-secret-env and --client-key need --client-id")
	case a.machine() && a.issuer == "":
		return errors.New("--client-secret-env and --client-key need --issuer: the authorization server the client is registered with, whose token endpoint alone receives the secret or key")
	case a.issuer != "" && a.clientID == "":
		return errors.New("--issuer says which authorization server --client-id is registered with: give --client-id too")
	case a.machine() && a.clientMetadataURL != "":
		return errors.New("--client-metadata-url is for signing in with a browser; the client credentials grant (--client-secret-env, --client-key) does not use it")
	case a.redirectPort < 0 || a.redirectPort > 65535:
		return fmt.Errorf("--redirect-port %d is not a TCP port", a.redirectPort)
	}
	if a.issuer != "" {
		if u, err := url.Parse(a.issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return errors.New("--issuer wants the authorization server's issuer URL, such as https://login.example.com")
		}
	}
	if a.clientMetadataURL != "" {
		if u, err := url.Parse(a.clientMetadataURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return errors.New("--client-metadata-url wants an https:// URL")
		}
	}
	return nil
}

// checkEnv checks what the settings need from the environment and the
// disk: the secret variable must be set, the key file readable.
func (a *authFlags) checkEnv() error {
	if a.clientSecretEnv != "" && strings.TrimSpace(os.Getenv(a.clientSecretEnv)) == "" {
		return fmt.Errorf("--client-secret-env %s: the variable is unset or empty", a.clientSecretEnv)
	}
	if a.clientKey != "" {
		if _, err := a.privateKey(); err != nil {
			return err
		}
	}
	return nil
}

// privateKey reads the --client-key file.
func (a *authFlags) privateKey() (crypto.Signer, error) {
	data, err := os.ReadFile(a.clientKey)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("--client-key %s: %v", a.clientKey, err)
	}
	key, err := auth.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("--client-key %s: %v", a.clientKey, err)
	}
	return key, nil
}

// secret returns the client secret, if any.
func (a *authFlags) secret() string {
	if a.clientSecretEnv == "" {
		return ""
	}
	return strings.TrimSpace(os.Getenv(a.clientSecretEnv))
}

// oauth returns the Authorizer of the settings, keeping its grants in
// store; loginHint says how to sign in when a sign-in is needed.
func (a *authFlags) oauth(store auth.Store, loginHint string) (*auth.OAuth, error) {
	o := &auth.OAuth{
		ClientName:         "mcpgen",
		ClientMetadataURL:  a.clientMetadataURL,
		Store:              store,
		Scopes:             strings.Fields(a.scopes),
		AllowMissingIssuer: a.allowMissingIssuer,
		LoginHint:          loginHint,
		ClientIssuer:       a.issuer,
	}
	o.AllowUnadvertisedPKCE = a.allowNoPKCE
	switch {
	case a.clientSecretEnv != "":
		o.Flow = &auth.ClientCredentials{ID: a.clientID, Secret: a.secret()}
	case a.clientKey != "":
		k, err := a.privateKey()
		if err != nil {
			return nil, err
		}
		o.Flow = &auth.ClientCredentials{ID: a.clientID, PrivateKey: k}
	case a.clientID != "":
		o.Client = &auth.Client{ID: a.clientID}
	}
	return o, nil
}

// hasAuthorization reports whether h sets the Authorization header.
func hasAuthorization(h http.Header) bool {
	return len(h.Values("Authorization")) > 0
}
