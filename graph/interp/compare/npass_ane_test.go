package compare

import (
	"testing"

	"github.com/anefix/anefix/graph/interp"
)

// Under the Neural Engine profile (reduce_sum narrow, matmul wide, h-num's
// graph/interp/numerics.go) fp16-safe-reductions must bring the test
// module's candidate closer to the IEEE reference than the module as
// written: that narrowing is what the pass removes.
func TestFP16SafeReductionsANE(t *testing.T) {
	ane := Options{Steps: 24, Cand: interp.Options{ANE: &interp.ANE{Family: interp.PreA16}}}
	ref, asIs := npLoad(t, "../../../testdata/passes/fp16-safe-reductions.mlir")
	before, err := Compare(ref, asIs, ane)
	if err != nil {
		t.Fatal(err)
	}
	ref2, cand := npLoad(t, "../../../testdata/passes/fp16-safe-reductions.mlir")
	npApply(t, cand, []string{"fp16-safe-reductions", "dce"})
	after, err := Compare(ref2, cand, ane)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("--numerics ane on testdata/passes/fp16-safe-reductions.mlir: as written PSNR %.1f dB, after fp16-safe-reductions %.1f dB", before.PSNR, after.PSNR)
	if !(after.PSNR > before.PSNR+6) {
		t.Errorf("fp16-safe-reductions under the ane profile: PSNR %.1f dB after, %.1f dB before; want a clear gain", after.PSNR, before.PSNR)
	}
}
