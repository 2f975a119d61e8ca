// Package schema is the module's one reading of JSON Schema documents held
// as jsontree nodes. It owns the rules every consumer must agree on: how a
// local $ref or $anchor resolves, which keywords hold data
// rather than schemas, and how drafts differ. The generator's IR, the
// provider converters and diff build on it and keep only their own
// decisions.
package schema

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// DataKeywords hold JSON data rather than schemas: a "$ref" or "$anchor"
// inside them is not a keyword.
var DataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true, "example": true}

// Resolve resolves the local reference ref within the schema document root.
// Only references into the document itself are supported: JSON pointers
// ("#/$defs/x"), the root ("#"), plain-name anchors ("#name", matched
// against $anchor or $dynamicAnchor), and either form after the root's own
// $id. It returns the target and its JSON pointer within root.
func Resolve(root *jsontree.Node, ref string) (*jsontree.Node, string, error) {
	if err := checkRef(ref); err != nil {
		return nil, "", err
	}
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		id, _ := root.Get("$id").StringValue()
		if id == "" || !strings.HasPrefix(ref, strings.TrimSuffix(id, "#")) {
			return nil, "", fmt.Errorf("$ref %q points outside the schema, which mcpgen does not fetch", ref)
		}
		rest := strings.TrimPrefix(ref, strings.TrimSuffix(id, "#"))
		if frag, ok = strings.CutPrefix(rest, "#"); !ok && rest != "" {
			return nil, "", fmt.Errorf("$ref %q points outside the schema, which mcpgen does not fetch", ref)
		}
	}
	frag = unescapeURI(frag)
	if frag == "" || strings.HasPrefix(frag, "/") {
		t, err := root.Lookup(frag)
		if err != nil {
			if _, why, ok := strings.Cut(err.Error(), "does not resolve: "); ok {
				return nil, "", fmt.Errorf("$ref %q does not resolve: %s", ref, why)
			}
			return nil, "", fmt.Errorf("$ref %q does not resolve", ref)
		}
		return t, frag, nil
	}
	if t, p := findAnchor(root, frag, ""); t != nil {
		return t, p, nil
	}
	return nil, "", fmt.Errorf("$ref %q does not resolve: no $anchor %q", ref, frag)
}

func findAnchor(v *jsontree.Node, name, ptr string) (*jsontree.Node, string) {
	switch v.Kind {
	case jsontree.Object:
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := v.Get(k).StringValue(); ok && a == name {
				return v, ptr
			}
		}
		for _, m := range v.Members {
			if DataKeywords[m.Key] {
				continue
			}
			if t, p := findAnchor(m.Value, name, ptr+"/"+jsontree.EscapeToken(m.Key)); t != nil {
				return t, p
			}
		}
	case jsontree.Array:
		for i, it := range v.Items {
			if t, p := findAnchor(it, name, ptr+"/"+strconv.Itoa(i)); t != nil {
				return t, p
			}
		}
	}
	return nil, ""
}

// checkRef returns an error when ref is not a URI reference, as $ref must
// be: a JSON Schema validator refuses to compile such a schema, so no
// value passes it.
func checkRef(ref string) error {
	if _, err := url.Parse(ref); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("$ref %q is not a valid URI reference: %v", ref, err)
	}
	return nil
}

// InvalidRef finds a $ref in the schema document root that is not a URI
// reference, and returns its JSON pointer and the error that says why, or
// a nil error when there is none. Resolve refuses such a $ref where it
// follows one; InvalidRef finds those it is never asked to follow.
func InvalidRef(root *jsontree.Node) (ptr string, err error) {
	ptr, _, _ = jsontree.Find(root, func(key string) bool { return DataKeywords[key] }, func(key string, v *jsontree.Node) bool {
		if s, ok := v.StringValue(); ok && key == "$ref" {
			err = checkRef(s)
		}
		return err != nil
	})
	return ptr, err
}

// unescapeURI decodes %XX escapes in a URI fragment.
func unescapeURI(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
