package runtime

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseResource(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Resource
		err  string
	}{
		{raw: `{"uri":"file:///a.txt","name":"a","title":"A","description":"d","mimeType":"text/plain","size":12,"annotations":{"priority":1}}`,
			want: Resource{URI: "file:///a.txt", Name: "a", Title: "A", Description: "d", MIMEType: "text/plain", Size: 12}},
		{raw: `{"uri":"x://y","name":"y","size":null,"mimeType":null}`, want: Resource{URI: "x://y", Name: "y", Size: -1}},
		{raw: `{"uri":"x://y","name":"y","size":1e3}`, want: Resource{URI: "x://y", Name: "y", Size: 1000}},
		{raw: `{"uri":"x://y","name":"y","size":-1}`, err: "size -1 is not a whole number of bytes"},
		{raw: `{"uri":"x://y","name":"y","size":1.5}`, err: "size 1.5 is not a whole number of bytes"},
		{raw: `{"uri":"x://y","name":"y","size":1e300}`, err: "size 1e300 is not a whole number of bytes"},
		{raw: `{"uri":"x://y","name":"y","size":"12"}`, err: `size "12" is not a whole number of bytes`},
		{raw: `{"name":"y"}`, err: `resource "y" has no uri`},
		{raw: `{"uri":"x://y"}`, err: `resource "x://y" has no name`},
		{raw: `{"uri":7,"name":"y"}`, err: "uri: "},
		{raw: `[1]`, err: "expected a JSON object"},
	} {
		got, err := ParseResource([]byte(tc.raw))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseResource(%s) = %v, want an error with %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil || string(got.Raw) != tc.raw {
			t.Errorf("ParseResource(%s): %v, Raw %s", tc.raw, err, got.Raw)
			continue
		}
		got.Raw = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseResource(%s) = %+v, want %+v", tc.raw, got, tc.want)
		}
	}
}
