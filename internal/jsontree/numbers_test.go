package jsontree

import "testing"

// TestIntegerConstEnumBeyond2To53 checks that numbers compare by their
// exact value: a float64 reads 9007199254740993 as 9007199254740992.
func TestIntegerConstEnumBeyond2To53(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"9007199254740993", "9007199254740992", 1},
		{"9007199254740993", "9007199254740993.0", 0},
		{"9007199254740993", "90071992547409930e-1", 0},
		{"-9007199254740993", "-9007199254740992", -1},
		{"3", "3.0", 0}, {"3", "3e0", 0}, {"300", "3E+2", 0}, {"0.001", "1e-3", 0},
		{"0", "-0.0", 0}, {"0", "1e-999999999", -1}, {"-1e999999999", "0", -1},
		{"0.1", "0.12", -1}, {"12", "1.2e1", 0}, {"12", "12.000000000000000000001", -1},
		{"-2", "1", -1}, {"-2", "-1", -1}, {"1e400", "2e400", -1},
	} {
		got, ok := CompareNumbers(tc.a, tc.b)
		if !ok || got != tc.want {
			t.Errorf("CompareNumbers(%s, %s) = %d, %v; want %d", tc.a, tc.b, got, ok, tc.want)
		}
		if back, _ := CompareNumbers(tc.b, tc.a); back != -tc.want {
			t.Errorf("CompareNumbers(%s, %s) = %d, want %d", tc.b, tc.a, back, -tc.want)
		}
	}
	for _, bad := range []string{"", "-", "1.2.3", "e5", "1e", "0x10", "1e99999999999999999999"} {
		if _, ok := CompareNumbers(bad, "1"); ok {
			t.Errorf("CompareNumbers(%q, 1) reported a number", bad)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"9007199254740993", 9007199254740993, true}, {"9007199254740993.5", 0, false}, {"-1", 0, false}, {"2e0", 2, true}} {
		if got, ok := (&Node{Kind: Number, Str: tc.in}).Int(); got != tc.want || ok != tc.ok {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if Equal(&Node{Kind: Number, Str: "9007199254740993"}, &Node{Kind: Number, Str: "9007199254740992"}) {
		t.Error("Equal(9007199254740993, 9007199254740992)")
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"9007199254740993", 9007199254740993, true}, {"9007199254740993.0", 9007199254740993, true},
		{"-9223372036854775808", -9223372036854775808, true}, {"9223372036854775808", 0, false},
		{"1.5", 0, false}, {"5e1", 50, true}, {"1e400", 0, false}, {"-0.0", 0, true},
	} {
		got, ok := Int64(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Int64(%s) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
