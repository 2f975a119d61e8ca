package redact

import (
	"net/url"
	"strings"
)

// settingNames are query parameters of database and service URLs whose
// values are settings, not credentials ("sslmode=require"): URL keeps them.
// Names are compared in lower case.
var settingNames = map[string]bool{
	"sslmode": true, "ssl": true, "tls": true, "charset": true, "collation": true,
	"parsetime": true, "loc": true, "timeout": true, "connect_timeout": true,
	"application_name": true, "search_path": true, "replicaset": true,
	"retrywrites": true, "readpreference": true, "directconnection": true,
	"mode": true, "cache": true,
}

// URL returns rawURL as it may be shown, and the credentials it held. A
// password becomes Mark and its user name stays; a user name without a
// password, which is often a token (https://TOKEN@host), becomes Mark. The
// value of every query parameter becomes Mark, except the settings named in
// settingNames unless their name looks secret, and a parameter without "="
// becomes Mark whole. The fragment is left out. ok is false when rawURL does
// not parse; shown is then empty.
func URL(rawURL string) (shown string, secrets []string, ok bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", nil, false
	}
	var userinfo string
	if u.User != nil {
		name := u.User.Username()
		if pw, has := u.User.Password(); has {
			userinfo = url.User(name).String() + ":" + Mark + "@"
			secrets = append(secrets, pw)
		} else {
			userinfo = Mark + "@"
			secrets = append(secrets, name)
		}
	}
	rest := *u
	rest.User, rest.RawQuery, rest.ForceQuery, rest.Fragment, rest.RawFragment = nil, "", false, "", ""
	shown = rest.String()
	if prefix := rest.Scheme + "://"; userinfo != "" && strings.HasPrefix(shown, prefix) {
		shown = prefix + userinfo + shown[len(prefix):]
	}
	if u.RawQuery != "" {
		query, qs := redactQuery(u.RawQuery)
		shown += "?" + query
		secrets = append(secrets, qs...)
	}
	return shown, secrets, true
}

// redactQuery returns the raw query with its values replaced as URL says,
// and the values it replaced, decoded.
func redactQuery(raw string) (string, []string) {
	var secrets []string
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		k, v, hasValue := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			value = v
		}
		switch {
		case part == "":
		case !hasValue:
			parts[i] = Mark
			secrets = append(secrets, name)
		case v == "":
		case settingNames[strings.ToLower(name)] && !SecretName(name):
		default:
			parts[i] = k + "=" + Mark
			secrets = append(secrets, value)
		}
	}
	return strings.Join(parts, "&"), secrets
}
