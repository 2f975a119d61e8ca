package runtime

import (
	"context"
	"errors"
	"testing"
)

func TestSamplingApprovalCheck(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	for _, tt := range []struct {
		name string
		a    SamplingApproval
		want error
	}{
		{"nil approves", nil, nil},
		{"yes", func(context.Context, *SamplingRequest) (bool, error) { return true, nil }, nil},
		{"no", func(context.Context, *SamplingRequest) (bool, error) { return false, nil }, ErrDeclined},
		{"error", func(context.Context, *SamplingRequest) (bool, error) { return true, boom }, boom},
	} {
		if err := tt.a.Check(ctx, &SamplingRequest{}); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("%s: Check = %v, want %v", tt.name, err, tt.want)
		}
	}
}
