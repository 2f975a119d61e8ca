package runtime

import (
	"context"
	"errors"
	"net/http"
)

// An Authorizer supplies the credentials of the HTTP transports' requests and
// obtains new ones when a server refuses them. HTTPOptions.Authorizer takes
// one; the package runtime/auth implements OAuth 2.1 authorization, client
// credentials and static tokens.
//
// The transports call Authorize before they send each request. When the
// server answers 401 or 403, they call Refused with the response; when it
// reports true, they send the request again, with the credentials Authorize
// then sets, at most MaxAuthRetries times per request.
//
// An Authorizer is used by every request of a connection, concurrently.
type Authorizer interface {
	// Authorize sets the credentials of req, such as its Authorization
	// header. It must not read req.Body.
	Authorize(req *http.Request) error

	// Refused is called with a 401 or 403 response to req. It obtains new
	// credentials (an authorization flow, a token refresh, a step up to
	// more scopes) and reports whether sending req again may succeed. An
	// error ends the request with that error. Refused must not close
	// resp.Body.
	Refused(ctx context.Context, req *http.Request, resp *http.Response) (retry bool, err error)
}

// MaxAuthRetries bounds how often one request is sent again after its
// Authorizer obtained new credentials: a server that keeps refusing them ends
// in an *AuthError rather than a loop. Two retries allow a first
// authorization followed by one step up to more scopes.
const MaxAuthRetries = 2

// signInContextKey keys, in a request's context, the context an Authorizer's
// Refused runs in when it differs from the request's: the version probe's
// request is bounded by the probe timeout, a sign-in only by the caller.
type signInContextKey struct{}

// withSignInContext returns ctx carrying actx as the context of sign-ins made
// while a request in ctx runs.
func withSignInContext(ctx, actx context.Context) context.Context {
	return context.WithValue(ctx, signInContextKey{}, actx)
}

// authContext returns the context a sign-in for a request in ctx runs in.
func signInContext(ctx context.Context) context.Context {
	if a, ok := ctx.Value(signInContextKey{}).(context.Context); ok {
		return a
	}
	return ctx
}

// errAuthorizedLate reports a request whose own context ended while its
// Authorizer obtained new credentials: the request was not sent again, and
// may be, now that the credentials are there.
var errAuthorizedLate = errors.New("the request's time ran out while signing in")
