package passes_test

import (
	"testing"

	"github.com/anefix/anefix/passes"
)

// The option strings finite-masks and scale-state parse (a float, a list of
// name=exponent pairs) never panic, and a value Build accepts runs.
func FuzzNumericPassOptions(f *testing.F) {
	f.Add("finite-masks.value", "-40000")
	f.Add("finite-masks.value", "-1e309")
	f.Add("finite-masks.value", "NaN")
	f.Add("scale-state.exponents", "rec_state=4,conv_state=-1")
	f.Add("scale-state.exponents", "=,==,a=b")
	f.Add("scale-state.default", "99999999999999999999")
	f.Add("fp16-safe-reductions.min-elements", "0")
	f.Fuzz(func(t *testing.T, opt, val string) {
		name := map[string]string{"finite-masks.value": "finite-masks", "scale-state.exponents": "scale-state",
			"scale-state.default": "scale-state", "fp16-safe-reductions.min-elements": "fp16-safe-reductions"}[opt]
		if name == "" {
			return
		}
		p, err := passes.Build(passes.Spec{Passes: []string{name}, Set: []string{opt + "=" + val}})
		if err != nil {
			return
		}
		m := npParse(t, ssModule(true))
		_, _ = p.Run(m, passes.RunOptions{VerifyEach: true})
	})
}
