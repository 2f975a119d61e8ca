package auth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// TestFileStoreTightensLooseDirs checks that directories of the store that
// others may read or write (0777) are made 0700 before use, the mcpgen
// directory above the store's included.
func TestFileStoreTightensLooseDirs(t *testing.T) {
	outer := filepath.Join(t.TempDir(), "mcpgen")
	s := &FileStore{Dir: filepath.Join(outer, "auth"), outer: outer}
	for _, d := range []string{outer, s.Dir, filepath.Join(s.Dir, "grants")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	g := &Grant{Issuer: "https://as.example", Resource: "https://mcp.example/mcp", ClientID: "c", Token: &oauth2.Token{AccessToken: "a"}}
	if err := s.SaveGrant(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{outer, s.Dir, filepath.Join(s.Dir, "grants")} {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %#o after use, want 0700", d, info.Mode().Perm())
		}
	}
}

// TestFileStoreRefusesSymlinks checks that a grants directory or a grant
// file that is a symbolic link is refused, with a message that says so, and
// that nothing is written where the link points.
func TestFileStoreRefusesSymlinks(t *testing.T) {
	ctx := context.Background()
	g := &Grant{Issuer: "https://as.example", Resource: "https://mcp.example/mcp", ClientID: "c", Token: &oauth2.Token{AccessToken: "a"}}

	s := &FileStore{Dir: t.TempDir()}
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(s.Dir, "grants")); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveGrant(ctx, g); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("SaveGrant through a linked grants directory: %v, want a refusal", err)
	}
	if _, err := s.Grant(ctx, g.Issuer, g.Resource, g.ClientID); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Grant through a linked grants directory: %v, want a refusal", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("files were written where the link points: %v", entries)
	}

	s = &FileStore{Dir: t.TempDir()}
	if err := s.SaveGrant(ctx, g); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(s.Dir, "grants", fileName(g.Issuer, g.Resource, g.ClientID))
	target := filepath.Join(t.TempDir(), "target.json")
	b, _ := os.ReadFile(name)
	os.WriteFile(target, b, 0o600)
	os.Remove(name)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Grant(ctx, g.Issuer, g.Resource, g.ClientID); err == nil || got != nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Grant of a linked file: %+v, %v, want a refusal", got, err)
	}
}

// TestFileStoreForgetRemovesUnreadable checks that Forget removes the grant
// files it cannot read or decode, which no server can use, and counts them,
// while the grants of other resources stay.
func TestFileStoreForgetRemovesUnreadable(t *testing.T) {
	ctx := context.Background()
	s := &FileStore{Dir: t.TempDir()}
	other := &Grant{Issuer: "https://as.example", Resource: "https://other.example/mcp", ClientID: "c", Token: &oauth2.Token{AccessToken: "a"}}
	if err := s.SaveGrant(ctx, other); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir, "grants")
	if err := os.WriteFile(filepath.Join(dir, "0123456789abcdef0123456789abcdef.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent", filepath.Join(dir, "fedcba9876543210fedcba9876543210.json")); err != nil {
		t.Fatal(err)
	}
	n, err := s.Forget(ctx, "https://mcp.example/mcp")
	if err != nil || n != 2 {
		t.Errorf("Forget = %d, %v, want the 2 unreadable files", n, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want the other resource's grant alone", len(entries))
	}
	if g, err := s.Grant(ctx, other.Issuer, other.Resource, other.ClientID); err != nil || g == nil {
		t.Errorf("the other resource's grant: %+v, %v", g, err)
	}
}
