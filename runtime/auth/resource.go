package auth

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// resourceTransport adds the resource indicator to the refresh token
// requests it carries that have none (RFC 8707 section 2.2): oauth2 refreshes
// with the grant type and the refresh token alone, and an authorization
// server would then issue a token for no resource, or its default one.
type resourceTransport struct {
	base     http.RoundTripper
	resource string
}

func (t *resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || req.Body == nil || mt != "application/x-www-form-urlencoded" {
		return t.base.RoundTrip(req)
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err == nil && form.Get("grant_type") == "refresh_token" && !form.Has("resource") {
		form.Set("resource", t.resource)
		b = []byte(form.Encode())
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return t.base.RoundTrip(r)
}
