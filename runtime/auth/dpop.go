package auth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// dpopAlgorithm is the proof algorithm this client signs with: ES256 on a
// P-256 key, the one every DPoP server supports.
const dpopAlgorithm = "ES256"

// dpopKey binds tokens to a key (RFC 9449): it signs a proof for each token
// request and each request to the MCP server, and keeps the nonces servers
// hand out, by origin.
type dpopKey struct {
	key    *ecdsa.PrivateKey
	signer jose.Signer
	mu     sync.Mutex
	nonces map[string]string
}

// newDPoPKey returns a dpopKey over key, or over a new P-256 key when key is
// nil.
func newDPoPKey(key *ecdsa.PrivateKey) (*dpopKey, error) {
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, fmt.Errorf("generating the DPoP key: %w", err)
		}
	}
	jwk := jose.JSONWebKey{Key: key.Public(), Algorithm: dpopAlgorithm}
	opts := (&jose.SignerOptions{}).WithType("dpop+jwt").WithHeader("jwk", jwk)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		return nil, fmt.Errorf("creating the DPoP signer: %w", err)
	}
	return &dpopKey{key: key, signer: signer, nonces: map[string]string{}}, nil
}

// supportsDPoP reports whether an authorization server accepts proofs this
// client can sign.
func supportsDPoP(md *ServerMetadata) bool {
	return slices.Contains(md.DPoPSigningAlgs, dpopAlgorithm)
}

// marshal returns the key in PKCS #8 DER, for the store.
func (k *dpopKey) marshal() ([]byte, error) {
	return x509.MarshalPKCS8PrivateKey(k.key)
}

// parseDPoPKey reads a key marshal wrote.
func parseDPoPKey(der []byte) (*dpopKey, error) {
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("reading the stored DPoP key: %w", err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("reading the stored DPoP key: a %T is not a P-256 key", key)
	}
	return newDPoPKey(ec)
}

// proof signs a proof for a request with method to rawURL; accessToken,
// when set, is bound by its hash (ath).
func (k *dpopKey) proof(method string, u *url.URL, accessToken string) (string, error) {
	jti, err := randomString()
	if err != nil {
		return "", err
	}
	claims := map[string]any{
		"jti": jti,
		"htm": method,
		"htu": htu(u),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if n := k.nonce(u); n != "" {
		claims["nonce"] = n
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := k.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("signing a DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

// htu is the htu claim of a request to u: without query and fragment.
func htu(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

func originOf(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func (k *dpopKey) nonce(u *url.URL) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nonces[originOf(u)]
}

// learnNonce keeps the DPoP-Nonce of a response, and reports whether it was
// new.
func (k *dpopKey) learnNonce(u *url.URL, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if n == "" {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	o := originOf(u)
	if k.nonces[o] == n {
		return false
	}
	k.nonces[o] = n
	return true
}

// dpopTransport adds a DPoP proof to the token endpoint requests it carries,
// and sends a request once more with the nonce an authorization server asks
// for (RFC 9449 section 8).
type dpopTransport struct {
	base http.RoundTripper
	key  *dpopKey
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		p, err := t.key.proof(req.Method, req.URL, "")
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.key.learnNonce(req.URL, resp.Header)
		if attempt > 0 || !fresh || resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
			return resp, nil
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize))
		resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp, nil
		}
	}
}
