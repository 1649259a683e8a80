package modelio

import (
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/passes"
)

// The write's progress total is estimated from the module written, not
// from the input: after palettize (4-bit indices for f16 weights) the
// output is about a quarter of the input, and a bar sized by the input
// stopped at about 25 %. The estimate must be within 5 % of what is written
// (the part of main.mlirb that is not blobs is small), and the input's size
// must not be (or the test could not fail).
func TestProgressTotalFollowsTheOutput(t *testing.T) {
	ld, err := Load(filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	p, _ := passes.Lookup("palettize")
	opts, err := p.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ld.Module, opts); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out.mlirb")
	plan, err := PlanOutput(dst, ld, "", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Save(ld.Module, ld, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	est := mainSizeEstimate(ld.Module, ld, FormBytecode)
	within := func(a, b int64) bool { return float64(a) >= 0.95*float64(b) && float64(a) <= 1.05*float64(b) }
	if !within(est, res.MainSize) {
		t.Errorf("estimate %d bytes, wrote %d", est, res.MainSize)
	}
	if within(ld.Input.Size, res.MainSize) {
		t.Errorf("the input (%d bytes) is as large as the palettized output (%d): the test cannot tell the two totals apart", ld.Input.Size, res.MainSize)
	}
	t.Logf("input %d bytes, palettized output %d, estimate %d", ld.Input.Size, res.MainSize, est)
}
