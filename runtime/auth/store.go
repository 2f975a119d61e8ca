package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// A Client is a registration with an authorization server: pre-registered,
// dynamically registered (RFC 7591), or a client ID metadata document URL.
type Client struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint authentication method:
	// "client_secret_basic", "client_secret_post" or "none". Empty means
	// client_secret_basic with a secret and none without.
	AuthMethod   string   `json:"token_endpoint_auth_method,omitempty"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
}

// Grant is what a Store keeps of one sign-in: the issuer, resource and
// client it belongs to, the token, and the scopes it was granted for.
type Grant struct {
	Issuer   string        `json:"issuer"`
	Resource string        `json:"resource"`
	ClientID string        `json:"client_id"`
	Scopes   []string      `json:"scopes,omitempty"`
	Token    *oauth2.Token `json:"token"`
	// DPoPKey is the PKCS #8 key the token is bound to (RFC 9449), when
	// it is.
	DPoPKey []byte `json:"dpop_key,omitempty"`
}

// A Store keeps client registrations by issuer, and grants by issuer,
// resource and client, across runs. Its methods are called concurrently.
// A missing entry is (nil, nil).
type Store interface {
	Client(ctx context.Context, issuer string) (*Client, error)
	// SaveClient keeps c as the registration with issuer. A new
	// registration supersedes the one before it: the grants made for the
	// superseded client can no longer be used, and MemoryStore and
	// FileStore remove them.
	SaveClient(ctx context.Context, issuer string, c *Client) error
	Grant(ctx context.Context, issuer, resource, clientID string) (*Grant, error)
	SaveGrant(ctx context.Context, g *Grant) error
	// Forget removes every grant for resource, and reports how many.
	Forget(ctx context.Context, resource string) (int, error)
}

// grantLocker is a Store that holds a lock on one grant across processes,
// taken around reading, refreshing and saving the grant: an authorization
// server that rotates refresh tokens takes a refresh token spent twice for
// a stolen one, and revokes the grant.
type grantLocker interface {
	// lockGrant waits for the lock of the grant of issuer, resource and
	// clientID, until ctx ends, and returns the function that releases
	// it.
	lockGrant(ctx context.Context, issuer, resource, clientID string) (unlock func(), err error)
}

// lockGrant takes the lock of g in store, when store has one.
func lockGrant(ctx context.Context, store Store, g *Grant) (func(), error) {
	l, ok := store.(grantLocker)
	if !ok {
		return func() {}, nil
	}
	return l.lockGrant(ctx, g.Issuer, g.Resource, g.ClientID)
}

// maxGrantLockWait bounds the wait for the lock of a grant that another
// process holds: it holds it only while it refreshes the grant, and a
// process that ends releases it.
const maxGrantLockWait = 2 * time.Minute

// MemoryStore is a Store that keeps everything in memory, for one process.
// The zero value is ready to use.
type MemoryStore struct {
	mu      sync.Mutex
	clients map[string]*Client
	grants  map[string]*Grant
}

func grantKey(issuer, resource, clientID string) string {
	return issuer + "\x00" + resource + "\x00" + clientID
}

func (s *MemoryStore) Client(_ context.Context, issuer string) (*Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[issuer]; ok {
		cp := *c
		return &cp, nil
	}
	return nil, nil
}

func (s *MemoryStore) SaveClient(_ context.Context, issuer string, c *Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients == nil {
		s.clients = map[string]*Client{}
	}
	if old, ok := s.clients[issuer]; ok && old.ID != c.ID {
		s.removeGrants(func(g *Grant) bool { return g.Issuer == issuer && g.ClientID == old.ID })
	}
	cp := *c
	s.clients[issuer] = &cp
	return nil
}

func (s *MemoryStore) Grant(_ context.Context, issuer, resource, clientID string) (*Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.grants[grantKey(issuer, resource, clientID)]; ok {
		cp := *g
		return &cp, nil
	}
	return nil, nil
}

func (s *MemoryStore) SaveGrant(_ context.Context, g *Grant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grants == nil {
		s.grants = map[string]*Grant{}
	}
	cp := *g
	s.grants[grantKey(g.Issuer, g.Resource, g.ClientID)] = &cp
	return nil
}

func (s *MemoryStore) Forget(_ context.Context, resource string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeGrants(func(g *Grant) bool { return g.Resource == resource }), nil
}

// removeGrants removes the grants that match, and reports how many.
func (s *MemoryStore) removeGrants(match func(*Grant) bool) int {
	n := 0
	for k, g := range s.grants {
		if match(g) {
			delete(s.grants, k)
			n++
		}
	}
	return n
}

// FileStore is a Store on disk: one JSON file per client registration and
// per grant, readable by the user alone (0600, in 0700 directories). Files
// are named by a hash of their key, so that a URL never becomes a path.
//
// FileStore refuses a directory or file of the store that is a symbolic
// link, and tightens a directory that others may read or write to 0700, or
// refuses it when it cannot.
//
// A process refreshing a grant holds an advisory lock on it (a ".lock"
// file beside the grant's, locked with flock on Unix), so that another
// process refreshing the same grant waits, and then takes the grant the
// first one stored. Elsewhere there is no such lock.
type FileStore struct {
	Dir string
	mu  sync.Mutex
	// outer is a directory above Dir that is checked as Dir is: the
	// mcpgen directory of DefaultFileStore.
	outer string
}

// DefaultFileStore returns the FileStore in os.UserConfigDir()/mcpgen/auth.
func DefaultFileStore() (*FileStore, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("finding the token store: %w", err)
	}
	return &FileStore{Dir: filepath.Join(dir, "mcpgen", "auth"), outer: filepath.Join(dir, "mcpgen")}, nil
}

// checkDir checks the directory dir of the store, when it exists: it must
// be a directory and not a symbolic link, and is made 0700 when others may
// use it.
func checkDir(dir string) error {
	info, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the token store: %w", err)
	}
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("the token store: %s is a symbolic link: refusing to follow it (replace it with a directory)", dir)
	case !info.IsDir():
		return fmt.Errorf("the token store: %s is not a directory", dir)
	case info.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("the token store: %s has mode %#o, which lets others read or change it, and it cannot be made 0700: %w", dir, info.Mode().Perm(), err)
		}
	}
	return nil
}

// checkDirs checks the directories of the store down to sub ("" for Dir
// alone).
func (s *FileStore) checkDirs(sub string) error {
	dirs := []string{s.Dir}
	if s.outer != "" {
		dirs = append([]string{s.outer}, dirs...)
	}
	if sub != "" {
		dirs = append(dirs, filepath.Join(s.Dir, sub))
	}
	for _, d := range dirs {
		if err := checkDir(d); err != nil {
			return err
		}
	}
	return nil
}

func fileName(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16]) + ".json"
}

func (s *FileStore) read(sub, name string, v any) (bool, error) {
	if err := s.checkDirs(sub); err != nil {
		return false, err
	}
	b, err := readNoFollow(filepath.Join(s.Dir, sub, name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the token store: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("reading the token store: %s: %w", filepath.Join(s.Dir, sub, name), err)
	}
	return true, nil
}

// readNoFollow reads the file at path, refusing a symbolic link.
func readNoFollow(path string) ([]byte, error) {
	if openNoFollow == 0 {
		if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: refusing to follow it", path)
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: refusing to follow it", path)
		}
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxMetadataSize))
}

// write replaces a file atomically, with mode 0600.
func (s *FileStore) write(sub, name string, v any) error {
	dir := filepath.Join(s.Dir, sub)
	if err := s.checkDirs(sub); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	// MkdirAll follows a link made since the check.
	if err := s.checkDirs(sub); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("writing the token store: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	return nil
}

func (s *FileStore) Client(_ context.Context, issuer string) (*Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec struct {
		Issuer string `json:"issuer"`
		Client
	}
	ok, err := s.read("clients", fileName(issuer), &rec)
	if !ok || err != nil || rec.Issuer != issuer {
		return nil, err
	}
	return &rec.Client, nil
}

func (s *FileStore) SaveClient(_ context.Context, issuer string, c *Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var old struct {
		Issuer string `json:"issuer"`
		Client
	}
	if ok, err := s.read("clients", fileName(issuer), &old); err == nil && ok && old.Issuer == issuer && old.ID != c.ID {
		if _, err := s.removeGrants(func(g *Grant) bool { return g != nil && g.Issuer == issuer && g.ClientID == old.ID }); err != nil {
			return err
		}
	}
	rec := struct {
		Issuer string `json:"issuer"`
		Client
	}{issuer, *c}
	return s.write("clients", fileName(issuer), &rec)
}

func (s *FileStore) Grant(_ context.Context, issuer, resource, clientID string) (*Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g Grant
	ok, err := s.read("grants", fileName(issuer, resource, clientID), &g)
	if !ok || err != nil || g.Issuer != issuer || g.Resource != resource || g.ClientID != clientID {
		return nil, err
	}
	return &g, nil
}

func (s *FileStore) SaveGrant(_ context.Context, g *Grant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write("grants", fileName(g.Issuer, g.Resource, g.ClientID), g)
}

// lockGrant implements grantLocker.
func (s *FileStore) lockGrant(ctx context.Context, issuer, resource, clientID string) (func(), error) {
	s.mu.Lock()
	dir := filepath.Join(s.Dir, "grants")
	err := s.checkDirs("grants")
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		// MkdirAll follows a link made since the check.
		err = s.checkDirs("grants")
	}
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("locking a grant in the token store: %w", err)
	}
	wait, cancel := context.WithTimeout(ctx, maxGrantLockWait)
	defer cancel()
	path := filepath.Join(dir, strings.TrimSuffix(fileName(issuer, resource, clientID), ".json")+".lock")
	unlock, err := lockFile(wait, path)
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case wait.Err() != nil:
		return nil, fmt.Errorf("locking a grant in the token store: another process has held %s for %v", path, maxGrantLockWait)
	}
	return nil, fmt.Errorf("locking a grant in the token store: %w", err)
}

// Forget implements Store. It also removes the grant files it cannot read
// or decode, counting them: no server can use them, and one of them may
// have been for resource.
func (s *FileStore) Forget(_ context.Context, resource string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeGrants(func(g *Grant) bool { return g == nil || g.Resource == resource })
}

// removeGrants removes the grant files that match, and reports how many.
// A file it cannot read or decode is matched as nil.
func (s *FileStore) removeGrants(match func(*Grant) bool) (int, error) {
	if err := s.checkDirs("grants"); err != nil {
		return 0, err
	}
	dir := filepath.Join(s.Dir, "grants")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the token store: %w", err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		var g Grant
		ok, err := s.read("grants", e.Name(), &g)
		switch {
		case err != nil:
			if !match(nil) {
				continue
			}
		case !ok || !match(&g):
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return n, fmt.Errorf("removing a grant from the token store: %w", err)
		}
		n++
	}
	return n, nil
}
