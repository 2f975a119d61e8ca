// Package config reads mcpgen.yaml, the optional file for repositories that
// use several MCP servers. It lists each server once: where its snapshot is
// checked in, where its package is generated and how to reach it, so that
// "mcpgen snapshot --config", "mcpgen generate --config" and "mcpgen check
// --config" work on all of them (or on the ones named) in one run. A single server needs no file: the command-line flags say the same.
//
//	servers:
//	  everything:
//	    snapshot: tools/everything.json
//	    out: internal/everything
//	    command: [npx, -y, "@modelcontextprotocol/server-everything", stdio]
//	  homeassistant:
//	    snapshot: tools/homeassistant.json
//	    out: internal/homeassistant
//	    overrides:
//	      "HassSetVolume#/inputSchema/properties/volume_level":
//	        go_name: Volume
//	        go_type: int
//	    tools:
//	      include: ["Hass*"]
//	      exclude: ["HassCancel*"]
//	    pinned: [HassTurnOn, HassTurnOff] # deferred mode: the rest is found by search
//	    per_tool_types: [DeviceClass]   # or shared_types: false
//	    strict: true                    # refuse a tool that can never be called
//	    url: https://staging.example.com/api/mcp
//	    bearer_env: STAGING_TOKEN
//	    headers:
//	      X-Tenant: ci
//	  tickets:
//	    snapshot: tools/tickets.json
//	    url: https://tickets.example.com/mcp
//	    auth:
//	      client_id: mcpgen-ci
//	      client_secret_env: TICKETS_CLIENT_SECRET
//	      issuer: https://login.example.com
//	      scopes: [tickets:read]
//
// An auth block says how to sign in to an HTTP server that requires OAuth
// authorization, with the keys of the OAuth flags of the commands:
// client_id, client_secret_env, client_key (a PEM file, for private_key_jwt),
// issuer (the authorization server the client is registered with, which a
// secret or key needs), scopes, client_metadata_url, allow_missing_issuer,
// allow_unadvertised_pkce and redirect_port. It cannot be combined with
// bearer_env or an Authorization header.
//
// Relative paths are relative to the directory of the file. Unknown keys are
// errors, so that a typo never goes unnoticed. So are YAML anchors and
// aliases (&name, *name), and a file larger than 1 MiB: they bound the work
// of reading the file, however it is written.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// File is a parsed mcpgen.yaml.
type File struct {
	// Path is the file as given; Dir is its directory, which relative paths
	// in the file are relative to.
	Path, Dir string
	// Servers are the servers in file order.
	Servers []*Server
}

// Server is one server entry.
type Server struct {
	// Name is the entry's key.
	Name string
	// Snapshot is the path of the server's checked-in snapshot, joined to
	// File.Dir when relative.
	Snapshot string
	// Out is the directory "mcpgen generate --config" writes the server's
	// package to, joined to File.Dir when relative; empty when the entry
	// is not generated. Package is the package name, by default the last
	// element of Out.
	Out, Package string
	// Overrides change how properties are generated, in file order.
	Overrides []Override
	// Tools selects the tools the package declares; the zero value keeps
	// every tool. The snapshot and check always cover the whole server.
	Tools Tools
	// Pinned (pinned: [GLOB, ...]) puts the package's toolsets in
	// deferred mode, as --pinned does: the tools matching these globs are
	// declared on every request, the others are found by search. Empty
	// when the package declares every tool.
	Pinned []Pattern
	// NoSharedTypes (shared_types: false) gives every tool types of its
	// own instead of sharing identical ones; PerToolTypes keeps the types
	// it names per tool: by their shared name, or by a TOOL#pointer use.
	NoSharedTypes bool
	PerToolTypes  []PerToolType
	// Strict (strict: true) makes "mcpgen generate --config" refuse a tool
	// list with a tool no call of which can succeed, as --strict does,
	// instead of leaving that tool out with a warning.
	Strict bool
	// At most one of URL (Streamable HTTP, falling back to HTTP+SSE), SSE
	// (legacy HTTP+SSE only) and Command (a stdio server) is set. An entry
	// with none serves the commands that need no server, generate and diff;
	// see HasServer.
	URL     string
	SSE     string
	Command []string
	// Headers are sent with every HTTP request, in file order.
	Headers []Header
	// BearerEnv names the environment variable holding a bearer token.
	BearerEnv string
	// Auth says how to sign in with OAuth; nil uses the defaults.
	Auth *Auth
	// ProtocolVersion pins the protocol version; empty negotiates.
	ProtocolVersion string
	// Timeout bounds the capture; zero means the command's default.
	Timeout time.Duration
	// Line is where the entry starts in the file.
	Line int
}

// HasServer reports whether the entry says how to reach the server: by url,
// sse or command.
func (s *Server) HasServer() bool { return s.URL != "" || s.SSE != "" || len(s.Command) > 0 }

// Override changes how one property is generated. Key is the tool name
// and the JSON pointer of the property's schema within the tool, joined by
// "#": "HassSetVolume#/inputSchema/properties/volume_level". GoName is the
// field's Go name; GoType the Go type of an integer property (int, int32,
// uint8, ...). Line is where the key is in the file.
type Override struct {
	Key, GoName, GoType string
	Line                int
}

// PerToolType is an entry of per_tool_types: a shared type's name, or the
// tool name, "#" and the JSON pointer of one use of it. Line is where it is
// in the file.
type PerToolType struct {
	Name string
	Line int
}

// Auth is the auth block of a server: how mcpgen signs in to it with OAuth.
type Auth struct {
	// ClientID is a client registered with the authorization server.
	// With ClientSecretEnv or ClientKey, tokens come from the client
	// credentials grant.
	ClientID string
	// ClientSecretEnv names the environment variable holding the client
	// secret.
	ClientSecretEnv string
	// ClientKey is a PEM private key file (private_key_jwt), joined to
	// File.Dir when relative.
	ClientKey string
	// Issuer is the authorization server the client is registered with;
	// its secret or key is sent to that server alone.
	Issuer string
	// Scopes are asked for instead of the ones the server names.
	Scopes []string
	// ClientMetadataURL is the URL of a client ID metadata document.
	ClientMetadataURL string
	// AllowMissingIssuer accepts authorization server metadata without an
	// issuer.
	AllowMissingIssuer bool
	// AllowUnadvertisedPKCE accepts authorization server metadata without
	// code_challenge_methods_supported.
	AllowUnadvertisedPKCE bool
	// RedirectPort is the loopback port of "mcpgen login"; zero picks one.
	RedirectPort int
}

// Header is one HTTP header.
type Header struct {
	Name, Value string
}

// maxFileBytes bounds the size of a config file.
const maxFileBytes = 1 << 20

// Error is a problem in the file, with its line.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Load reads and checks the file at path. It reads no more than one byte
// beyond maxFileBytes.
func Load(path string) (*File, error) {
	data, err := readLimited(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("reading config %s: %v", path, err)
	}
	return Parse(path, data)
}

// readLimited reads the file at path, up to one byte more than
// maxFileBytes.
func readLimited(path string) ([]byte, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	return io.ReadAll(io.LimitReader(fd, maxFileBytes+1))
}

// Parse checks the contents of a config file; path names it in errors and
// gives the directory relative paths are resolved against.
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path, Dir: filepath.Dir(path)}
	fail := func(line int, format string, args ...any) error {
		return &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > maxFileBytes {
		return nil, fail(0, "the file is larger than %d bytes", maxFileBytes)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fail(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, fail(0, "the file is empty: want a servers mapping")
	}
	if n := firstAnchor(&doc); n != nil {
		name := n.Anchor
		if n.Kind == yaml.AliasNode {
			name = n.Value
		}
		return nil, fail(n.Line, "anchors and aliases are not allowed (&%s)", name)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "want a mapping with a servers key")
	}
	var servers *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "servers":
			servers = v
		default:
			return nil, fail(k.Line, "unknown key %q (want servers)", k.Value)
		}
	}
	if servers == nil || servers.Kind != yaml.MappingNode || len(servers.Content) == 0 {
		line := root.Line
		if servers != nil {
			line = servers.Line
		}
		return nil, fail(line, "servers must map each server's name to its entry")
	}
	seen := map[string]int{}
	// outs maps each out directory, made absolute so that a relative and
	// an absolute spelling of one directory meet, to the server
	// generating into it: two packages in one directory have files of the
	// same names, and generating the second would replace the first.
	outs := map[string]*Server{}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		k, v := servers.Content[i], servers.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			return nil, fail(k.Line, "server %s is listed twice (first at line %d)", k.Value, first)
		}
		seen[k.Value] = k.Line
		s, err := parseServer(f, k, v, fail)
		if err != nil {
			return nil, err
		}
		if s.Out != "" {
			key := s.Out
			if abs, err := filepath.Abs(key); err == nil {
				key = abs
			}
			if other := outs[key]; other != nil {
				return nil, fail(s.Line, "server %s: out %s is also the out of server %s (line %d): each package needs a directory of its own", s.Name, s.Out, other.Name, other.Line)
			}
			outs[key] = s
		}
		f.Servers = append(f.Servers, s)
	}
	return f, nil
}

// firstAnchor returns the first node of the tree under n, in document
// order, that has an anchor or is an alias, or nil. The file has no use for
// them, and refusing them keeps nested aliases from multiplying the work of
// reading it, and an entry that repeats another from being reported by a
// line it does not have.
func firstAnchor(n *yaml.Node) *yaml.Node {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := firstAnchor(c); a != nil {
			return a
		}
	}
	return nil
}

func parseServer(f *File, k, v *yaml.Node, fail func(int, string, ...any) error) (*Server, error) {
	name := k.Value
	if strings.TrimSpace(name) == "" {
		return nil, fail(k.Line, "a server has an empty name")
	}
	if v.Kind != yaml.MappingNode {
		return nil, fail(v.Line, "server %s: want a mapping of its settings", name)
	}
	s := &Server{Name: name, Line: k.Line}
	str := func(n *yaml.Node, key string) (string, error) {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return "", fail(n.Line, "server %s: %s must be a string", name, key)
		}
		return n.Value, nil
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kk, vv := v.Content[i], v.Content[i+1]
		var err error
		switch kk.Value {
		case "snapshot":
			s.Snapshot, err = str(vv, kk.Value)
		case "out":
			s.Out, err = str(vv, kk.Value)
		case "package":
			if s.Package, err = str(vv, kk.Value); err == nil {
				if perr := ir.CheckPackageName(s.Package); perr != nil {
					err = fail(vv.Line, "server %s: %v", name, perr)
				}
			}
		case "url":
			s.URL, err = str(vv, kk.Value)
		case "sse":
			s.SSE, err = str(vv, kk.Value)
		case "bearer_env":
			s.BearerEnv, err = str(vv, kk.Value)
		case "protocol_version":
			s.ProtocolVersion, err = str(vv, kk.Value)
		case "timeout":
			var t string
			if t, err = str(vv, kk.Value); err == nil {
				if s.Timeout, err = time.ParseDuration(t); err != nil || s.Timeout < 0 {
					err = fail(vv.Line, "server %s: timeout %q is not a duration such as 30s", name, t)
				}
			}
		case "command":
			if vv.Kind != yaml.SequenceNode || len(vv.Content) == 0 {
				return nil, fail(vv.Line, "server %s: command must be a list: the program, then its arguments", name)
			}
			for _, a := range vv.Content {
				w, err := str(a, "each word of command")
				if err != nil {
					return nil, err
				}
				s.Command = append(s.Command, w)
			}
		case "auth":
			if s.Auth, err = parseAuth(f, name, vv, str, fail); err != nil {
				return nil, err
			}
		case "overrides":
			if s.Overrides, err = parseOverrides(name, vv, str, fail); err != nil {
				return nil, err
			}
		case "tools":
			if s.Tools, err = parseTools(name, vv, str, fail); err != nil {
				return nil, err
			}
		case "pinned":
			if s.Pinned, err = parsePinned(name, vv, str, fail); err != nil {
				return nil, err
			}
		case "shared_types":
			if vv.Kind != yaml.ScalarNode || vv.Tag != "!!bool" {
				return nil, fail(vv.Line, "server %s: shared_types must be true or false", name)
			}
			s.NoSharedTypes = vv.Value == "false"
		case "strict":
			if vv.Kind != yaml.ScalarNode || vv.Tag != "!!bool" {
				return nil, fail(vv.Line, "server %s: strict must be true or false", name)
			}
			s.Strict = vv.Value == "true"
		case "per_tool_types":
			if vv.Kind != yaml.SequenceNode {
				return nil, fail(vv.Line, "server %s: per_tool_types must be a list of type names or TOOL#/pointer uses", name)
			}
			for _, it := range vv.Content {
				w, err := str(it, "each entry of per_tool_types")
				if err != nil {
					return nil, err
				}
				if w == "" {
					return nil, fail(it.Line, "server %s: per_tool_types has an empty entry", name)
				}
				s.PerToolTypes = append(s.PerToolTypes, PerToolType{Name: w, Line: it.Line})
			}
		case "headers":
			if vv.Kind != yaml.MappingNode {
				return nil, fail(vv.Line, "server %s: headers must map header names to values", name)
			}
			for j := 0; j+1 < len(vv.Content); j += 2 {
				val, err := str(vv.Content[j+1], "header "+vv.Content[j].Value)
				if err != nil {
					return nil, err
				}
				s.Headers = append(s.Headers, Header{Name: vv.Content[j].Value, Value: val})
			}
		default:
			return nil, fail(kk.Line, "server %s: unknown key %q (want snapshot, out, package, overrides, tools, pinned, shared_types, per_tool_types, strict, url, sse, command, headers, bearer_env, auth, protocol_version or timeout)", name, kk.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Snapshot == "" {
		return nil, fail(s.Line, "server %s: snapshot is required", name)
	}
	if !filepath.IsAbs(s.Snapshot) {
		s.Snapshot = filepath.Join(f.Dir, s.Snapshot)
	}
	if s.Out != "" {
		if !filepath.IsAbs(s.Out) {
			s.Out = filepath.Join(f.Dir, s.Out)
		}
		if s.Package == "" {
			// The name of the directory out stands for: "." and ".." in
			// a file read from a relative path name one.
			dir := s.Out
			if abs, aerr := filepath.Abs(dir); aerr == nil {
				dir = abs
			}
			s.Package = filepath.Base(dir)
			if perr := ir.CheckPackageName(s.Package); perr != nil {
				if s.Package == "main" {
					return nil, fail(s.Line, "server %s: the directory name %q of out cannot be the package's name: %v: set package", name, s.Package, perr)
				}
				return nil, fail(s.Line, "server %s: the directory name %q of out is not a Go identifier: set package", name, s.Package)
			}
		}
	} else if s.Package != "" {
		return nil, fail(s.Line, "server %s: package needs out, the directory to generate into", name)
	}
	n := 0
	for _, set := range []bool{s.URL != "", s.SSE != "", len(s.Command) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, fail(s.Line, "server %s: give only one of url, sse and command", name)
	}
	if s.Auth != nil {
		switch {
		case len(s.Command) > 0:
			return nil, fail(s.Line, "server %s: auth applies to url and sse servers, not to a command", name)
		case s.BearerEnv != "":
			return nil, fail(s.Line, "server %s: give auth or bearer_env, not both", name)
		}
		for _, h := range s.Headers {
			if strings.EqualFold(h.Name, "Authorization") {
				return nil, fail(s.Line, "server %s: give auth or an Authorization header, not both", name)
			}
		}
	}
	return s, nil
}

// parseAuth reads the auth block of server name.
func parseAuth(f *File, name string, v *yaml.Node, str func(*yaml.Node, string) (string, error), fail func(int, string, ...any) error) (*Auth, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fail(v.Line, "server %s: auth must be a mapping of client_id, client_secret_env, client_key, scopes, client_metadata_url, allow_missing_issuer and redirect_port", name)
	}
	a := &Auth{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, vv := v.Content[i], v.Content[i+1]
		key := "auth: " + k.Value
		var err error
		switch k.Value {
		case "client_id":
			a.ClientID, err = str(vv, key)
		case "client_secret_env":
			a.ClientSecretEnv, err = str(vv, key)
		case "issuer":
			a.Issuer, err = str(vv, key)
		case "client_key":
			if a.ClientKey, err = str(vv, key); err == nil && a.ClientKey != "" && !filepath.IsAbs(a.ClientKey) {
				a.ClientKey = filepath.Join(f.Dir, a.ClientKey)
			}
		case "client_metadata_url":
			a.ClientMetadataURL, err = str(vv, key)
		case "scopes":
			switch vv.Kind {
			case yaml.SequenceNode:
				for _, sc := range vv.Content {
					w, err := str(sc, "each scope of auth: scopes")
					if err != nil {
						return nil, err
					}
					a.Scopes = append(a.Scopes, strings.Fields(w)...)
				}
			default:
				var w string
				if w, err = str(vv, key); err == nil {
					a.Scopes = strings.Fields(w)
				}
			}
		case "allow_missing_issuer":
			if vv.Kind != yaml.ScalarNode || vv.Tag != "!!bool" {
				return nil, fail(vv.Line, "server %s: auth: allow_missing_issuer must be true or false", name)
			}
			a.AllowMissingIssuer = vv.Value == "true"
		case "allow_unadvertised_pkce":
			if vv.Kind != yaml.ScalarNode || vv.Tag != "!!bool" {
				return nil, fail(vv.Line, "server %s: auth: allow_unadvertised_pkce must be true or false", name)
			}
			a.AllowUnadvertisedPKCE = vv.Value == "true"
		case "redirect_port":
			var p int
			if vv.Kind != yaml.ScalarNode || vv.Tag != "!!int" || vv.Decode(&p) != nil || p < 1 || p > 65535 {
				return nil, fail(vv.Line, "server %s: auth: redirect_port must be a TCP port number", name)
			}
			a.RedirectPort = p
		default:
			return nil, fail(k.Line, "server %s: auth: unknown key %q (want client_id, client_secret_env, client_key, issuer, scopes, client_metadata_url, allow_missing_issuer, allow_unadvertised_pkce or redirect_port)", name, k.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case a.ClientSecretEnv != "" && a.ClientKey != "":
		return nil, fail(v.Line, "server %s: auth: give client_secret_env or client_key, not both", name)
	case (a.ClientSecretEnv != "" || a.ClientKey != "") && a.ClientID == "":
		return nil, fail(v.Line, "server %s: auth: client_secret_env and client_key need client_id", name)
	case (a.ClientSecretEnv != "" || a.ClientKey != "") && a.Issuer == "":
		return nil, fail(v.Line, "server %s: auth: client_secret_env and client_key need issuer: the authorization server the client is registered with, whose token endpoint alone receives the secret or key", name)
	}
	return a, nil
}

// parseOverrides reads the overrides mapping of server name.
func parseOverrides(name string, v *yaml.Node, str func(*yaml.Node, string) (string, error), fail func(int, string, ...any) error) ([]Override, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fail(v.Line, "server %s: overrides must map \"TOOL#/inputSchema/properties/NAME\" keys to a go_name and a go_type", name)
	}
	var out []Override
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, vv := v.Content[i], v.Content[i+1]
		o := Override{Key: k.Value, Line: k.Line}
		if tool, ptr, ok := strings.Cut(o.Key, "#"); !ok || tool == "" || !strings.HasPrefix(ptr, "/") {
			return nil, fail(k.Line, "server %s: override %q: want the tool name, \"#\" and a JSON pointer, such as HassSetVolume#/inputSchema/properties/volume_level", name, o.Key)
		}
		if first, dup := seen[o.Key]; dup {
			return nil, fail(k.Line, "server %s: override %s is given twice (first at line %d)", name, o.Key, first)
		}
		seen[o.Key] = k.Line
		if vv.Kind != yaml.MappingNode {
			return nil, fail(vv.Line, "server %s: override %s: want a mapping with go_name and/or go_type", name, o.Key)
		}
		for j := 0; j+1 < len(vv.Content); j += 2 {
			kk, val := vv.Content[j], vv.Content[j+1]
			var err error
			switch kk.Value {
			case "go_name":
				o.GoName, err = str(val, "override "+o.Key+": go_name")
			case "go_type":
				o.GoType, err = str(val, "override "+o.Key+": go_type")
			default:
				return nil, fail(kk.Line, "server %s: override %s: unknown key %q (want go_name or go_type)", name, o.Key, kk.Value)
			}
			if err != nil {
				return nil, err
			}
		}
		if o.GoName == "" && o.GoType == "" {
			return nil, fail(k.Line, "server %s: override %s sets neither go_name nor go_type", name, o.Key)
		}
		out = append(out, o)
	}
	return out, nil
}

// Select returns the servers named in names, in file order, or every server
// when names is empty. An unknown name is an error that lists the known
// ones.
func (f *File) Select(names []string) ([]*Server, error) {
	if len(names) == 0 {
		return f.Servers, nil
	}
	var known []string
	for _, s := range f.Servers {
		known = append(known, s.Name)
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("%s has no server %q (it has %s)", f.Path, n, strings.Join(known, ", "))
		}
	}
	var out []*Server
	for _, s := range f.Servers {
		if slices.Contains(names, s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}
