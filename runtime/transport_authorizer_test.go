package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// slowSignIn is an Authorizer whose sign-in takes a while, as a person in a
// browser does, and which checks that it runs in the caller's context
// rather than the probe's.
type slowSignIn struct {
	took     time.Duration
	signedIn atomic.Bool
	ctxErr   atomic.Value
}

func (a *slowSignIn) Authorize(req *http.Request) error {
	if a.signedIn.Load() {
		req.Header.Set("Authorization", "Bearer ok")
	}
	return nil
}

func (a *slowSignIn) Refused(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	select {
	case <-time.After(a.took):
	case <-ctx.Done():
		a.ctxErr.Store(ctx.Err())
		return false, ctx.Err()
	}
	a.signedIn.Store(true)
	return true, nil
}

// A sign-in that the version probe's 401 starts may take longer than the
// probe timeout: it runs in the caller's context, and the probe is sent
// again once it is done, instead of the session failing with a probe
// timeout (or, before, the sign-in being cut short).
func TestSignInOutlastsProbeTimeout(t *testing.T) {
	var probes atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			w.Header().Set("WWW-Authenticate", `Bearer`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch m.Method {
		case "server/discover":
			probes.Add(1)
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, modernDiscover))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	// The probe timeout leaves a loaded machine time to answer the probe;
	// the sign-in takes twice as long.
	a := &slowSignIn{took: 4 * time.Second}
	opts := testHTTPOptions(t)
	opts.Authorizer = a
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL, opts), &Options{ProbeTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Connect: %v (sign-in context error: %v)", err, a.ctxErr.Load())
	}
	defer s.Close()
	if v := s.ProtocolVersion(); v != "2026-07-28" {
		t.Errorf("ProtocolVersion = %s, want 2026-07-28", v)
	}
	if n := probes.Load(); n != 1 {
		t.Errorf("the server answered %d probes, want 1", n)
	}
}
