package auth

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// TestFileStore checks the file store: files 0600 in 0700 directories,
// named by a hash so that no URL becomes a path, grants keyed by issuer,
// resource and client, clients by issuer, and Forget by resource.
func TestFileStore(t *testing.T) {
	ctx := context.Background()
	s := &FileStore{Dir: filepath.Join(t.TempDir(), "auth")}
	const iss, res = "https://as.example/t1", "https://mcp.example/mcp"
	if err := s.SaveClient(ctx, iss, &Client{ID: "c1", Secret: "client-secret"}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Grant{
		{Issuer: iss, Resource: res, ClientID: "c1", Token: &oauth2.Token{AccessToken: "a1"}},
		{Issuer: iss, Resource: res, ClientID: "c2", Token: &oauth2.Token{AccessToken: "a2"}},
		{Issuer: "https://as2.example", Resource: res, ClientID: "c1", Token: &oauth2.Token{AccessToken: "a3"}},
		{Issuer: iss, Resource: "https://other.example/mcp", ClientID: "c1", Token: &oauth2.Token{AccessToken: "a4"}},
	} {
		if err := s.SaveGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ iss, res, client, want string }{
		{iss, res, "c1", "a1"},
		{iss, res, "c2", "a2"},
		{"https://as2.example", res, "c1", "a3"},
		{iss, "https://other.example/mcp", "c1", "a4"},
		{iss, res, "c3", ""},
		{iss + "/", res, "c1", ""},
	} {
		g, err := s.Grant(ctx, tc.iss, tc.res, tc.client)
		got := ""
		if g != nil {
			got = g.Token.AccessToken
		}
		if err != nil || got != tc.want {
			t.Errorf("Grant(%s, %s, %s) = %q, %v, want %q", tc.iss, tc.res, tc.client, got, err, tc.want)
		}
	}
	if c, err := s.Client(ctx, iss); err != nil || c == nil || c.ID != "c1" || c.Secret != "client-secret" {
		t.Errorf("Client(%s) = %+v, %v", iss, c, err)
	}
	if c, err := s.Client(ctx, "https://as2.example"); err != nil || c != nil {
		t.Errorf("Client of another issuer = %+v, %v, want none", c, err)
	}
	files := 0
	filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		switch {
		case d.IsDir() && info.Mode().Perm() != 0o700:
			t.Errorf("%s has mode %v, want 0700", p, info.Mode().Perm())
		case !d.IsDir() && info.Mode().Perm() != 0o600:
			t.Errorf("%s has mode %v, want 0600", p, info.Mode().Perm())
		case !d.IsDir():
			files++
			if strings.Contains(d.Name(), "example") || strings.HasPrefix(d.Name(), ".") {
				t.Errorf("file name %s", d.Name())
			}
		}
		return nil
	})
	if files != 5 {
		t.Errorf("%d files, want 5 (one client, four grants)", files)
	}
	n, err := s.Forget(ctx, res)
	if err != nil || n != 3 {
		t.Errorf("Forget = %d, %v, want 3", n, err)
	}
	if g, _ := s.Grant(ctx, iss, res, "c1"); g != nil {
		t.Error("a forgotten grant is still there")
	}
	if g, _ := s.Grant(ctx, iss, "https://other.example/mcp", "c1"); g == nil {
		t.Error("Forget removed the grant of another resource")
	}
	if c, _ := s.Client(ctx, iss); c == nil {
		t.Error("Forget removed the client registration")
	}
	if n, err := (&FileStore{Dir: filepath.Join(t.TempDir(), "none")}).Forget(ctx, res); n != 0 || err != nil {
		t.Errorf("Forget on an empty store = %d, %v", n, err)
	}
}

// TestFileStoreUnreadable checks that a damaged store file is an error that
// names the file, not a silent sign-out.
func TestFileStoreUnreadable(t *testing.T) {
	ctx := context.Background()
	s := &FileStore{Dir: t.TempDir()}
	if err := s.SaveClient(ctx, "https://as.example", &Client{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir, "clients", fileName("https://as.example"))
	os.WriteFile(p, []byte("{"), 0o600)
	if _, err := s.Client(ctx, "https://as.example"); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v, want one naming %s", err, p)
	}
}

// TestMemoryStoreCopies checks that the memory store keeps copies, so that
// a caller changing what it saved or got does not change the store.
func TestMemoryStoreCopies(t *testing.T) {
	ctx := context.Background()
	var s MemoryStore
	c := &Client{ID: "c"}
	s.SaveClient(ctx, "i", c)
	c.ID = "changed"
	got, _ := s.Client(ctx, "i")
	got.Secret = "x"
	again, _ := s.Client(ctx, "i")
	if again.ID != "c" || again.Secret != "" {
		t.Errorf("stored client %+v", again)
	}
	s.SaveGrant(ctx, &Grant{Issuer: "i", Resource: "r", ClientID: "c"})
	s.SaveGrant(ctx, &Grant{Issuer: "i", Resource: "r2", ClientID: "c"})
	if n, _ := s.Forget(ctx, "r"); n != 1 {
		t.Errorf("Forget = %d, want 1", n)
	}
}

// TestNewRegistrationDropsStaleGrants checks that a client registered anew
// with an issuer (as each sign-in on another loopback port does) takes the
// superseded client's grants for that issuer out of the store, and leaves
// other issuers' grants and the same client's other registrations alone.
func TestNewRegistrationDropsStaleGrants(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]Store{
		"memory": &MemoryStore{},
		"file":   &FileStore{Dir: filepath.Join(t.TempDir(), "auth")},
	} {
		t.Run(name, func(t *testing.T) {
			const iss, other, res = "https://as.example", "https://as2.example", "https://mcp.example/mcp"
			for _, step := range []func() error{
				func() error { return s.SaveClient(ctx, iss, &Client{ID: "old"}) },
				func() error { return s.SaveClient(ctx, other, &Client{ID: "old"}) },
				func() error {
					return s.SaveGrant(ctx, &Grant{Issuer: iss, Resource: res, ClientID: "old", Token: &oauth2.Token{AccessToken: "a1"}})
				},
				func() error {
					return s.SaveGrant(ctx, &Grant{Issuer: other, Resource: res, ClientID: "old", Token: &oauth2.Token{AccessToken: "a2"}})
				},
				func() error { return s.SaveClient(ctx, iss, &Client{ID: "old", Secret: "same client again"}) },
			} {
				if err := step(); err != nil {
					t.Fatal(err)
				}
			}
			if g, _ := s.Grant(ctx, iss, res, "old"); g == nil {
				t.Fatal("saving the same client again removed its grant")
			}
			if err := s.SaveClient(ctx, iss, &Client{ID: "new"}); err != nil {
				t.Fatal(err)
			}
			if g, err := s.Grant(ctx, iss, res, "old"); g != nil || err != nil {
				t.Errorf("the superseded client's grant = %+v, %v, want none", g, err)
			}
			if g, _ := s.Grant(ctx, other, res, "old"); g == nil {
				t.Error("a new registration removed another issuer's grant")
			}
			if c, _ := s.Client(ctx, iss); c == nil || c.ID != "new" {
				t.Errorf("Client = %+v, want the new registration", c)
			}
		})
	}
}
