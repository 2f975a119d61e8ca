package integral

import "testing"

func TestIntegralLiteral(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"50.0", "50"}, {"5e1", "50"}, {"5E+1", "50"}, {"-3.00", "-3"}, {"0.0", "0"}, {"-0.0", "0"},
		{"120e-1", "12"}, {"1.25e2", "125"}, {"100e-2", "1"}, {"0e5", "0"}, {"0.000e-3", "0"},
		{"123456789012345678.0", "123456789012345678"}, {"9007199254740993000.0", "9007199254740993000"},
		{"1.5", ""}, {"1e-1", ""}, {"1e19", ""}, {"1e400", ""}, {"1.0000000000000000001", ""}, {"1.2.3", ""}, {"e5", ""},
	} {
		got, ok := Literal(tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("Literal(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestIntegralNumbers(t *testing.T) {
	in := `{"a":"50.0","b":50.0,"c":[1.0,2.5,"x\"1.0",-7e0],"d":12}`
	want := `{"a":"50.0","b":50,"c":[1,2.5,"x\"1.0",-7],"d":12}`
	got, changed := Numbers([]byte(in))
	if string(got) != want || !changed {
		t.Errorf("got %s, %v; want %s", got, changed, want)
	}
	if _, changed := Numbers([]byte(`{"a":1,"b":[2.5]}`)); changed {
		t.Error("changed a text with no integral fraction")
	}
}
