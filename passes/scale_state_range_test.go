package passes

import (
	"strings"
	"testing"
)

// Exponents past what fp16 holds are refused at --set time with the valid
// range, however large (issue 21: two int64 maxima wrapped to 2^2 where
// they were summed, in the bundle record; graph/bundle's record test covers
// that side).
func TestScaleStateExponentRange(t *testing.T) {
	for _, set := range []string{
		"scale-state.exponents=rec_state=9223372036854775807,conv_state=9223372036854775807",
		"scale-state.exponents=rec_state=-16",
		"scale-state.default=9223372036854775807",
		"scale-state.default=-9223372036854775808",
		"scale-state.default=16",
	} {
		_, err := Build(Spec{Passes: []string{"scale-state"}, Set: []string{set}})
		if !IsUsage(err) || !strings.Contains(err.Error(), "15") {
			t.Errorf("%s: err = %v, want a usage error giving the range -15…15", set, err)
		}
	}
	for _, set := range []string{"scale-state.exponents=rec_state=15,conv_state=-15", "scale-state.default=-15"} {
		if _, err := Build(Spec{Passes: []string{"scale-state"}, Set: []string{set}}); err != nil {
			t.Errorf("%s: %v", set, err)
		}
	}
}
