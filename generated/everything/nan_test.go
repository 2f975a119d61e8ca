package everything

import (
	"errors"
	"math"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestValidateRefusesNaN checks that a bounded number field holding NaN,
// which a program can compute and JSON cannot carry, fails Validate at its
// pointer: NaN compares false both ways, so the checks "below the minimum"
// and "above the maximum" both passed it, and the call failed later, in
// encoding/json, with no pointer. Infinities fail the bound they break.
func TestValidateRefusesNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a := GetResourceLinksArgs{Count: &v}
		var ve *runtime.ValidationError
		if err := a.Validate(); !errors.As(err, &ve) || ve.Pointer != "/count" {
			t.Errorf("count %v: Validate() = %v, want a ValidationError at /count", v, err)
		}
	}
	ok := 5.0
	if err := (&GetResourceLinksArgs{Count: &ok}).Validate(); err != nil {
		t.Errorf("count 5: %v", err)
	}
}
