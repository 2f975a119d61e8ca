package geminidecl

import (
	"encoding/json"
	"math"
	"testing"
)

// TestAppendFloatIsEncodingJSON writes numbers around encoding/json's
// cutoffs between plain and exponent notation as it does.
func TestAppendFloatIsEncodingJSON(t *testing.T) {
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 9007199254740992, 1e20, 1e21, 1.5e21, -1e21,
		1e-6, 9.99e-7, 1e-7, 1.2345e-10, 1e100, 5e-324, math.MaxFloat64,
	} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendFloat(nil, f)); got != string(want) {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
