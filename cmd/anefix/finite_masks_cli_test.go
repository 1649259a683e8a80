package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The done-when, end to end: check names the -inf mask by op id
// (and finite-masks as its fix), finite-masks removes it, and verify finds
// the results unchanged.
func TestFiniteMasksEndToEnd(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "hazards", "finite_mask_softmax.mlir")
	out := filepath.Join(t.TempDir(), "fixed.mlir")
	_, before, _ := runCLI(t, "", "check", in)
	for _, want := range []string{"fp16.out-of-range", "op_id 1: 6 × -inf", "-> finite-masks"} {
		if !strings.Contains(before, want) {
			t.Errorf("check before lacks %q:\n%s", want, before)
		}
	}
	if code, _, errs := runCLI(t, "", "rewrite", in, "-o", out, "--passes", "finite-masks"); code != exitOK {
		t.Fatalf("rewrite --passes finite-masks: %d %s", code, errs)
	}
	if _, after, _ := runCLI(t, "", "check", out); strings.Contains(after, "fp16.out-of-range") {
		t.Errorf("check after finite-masks still reports the mask:\n%s", after)
	}
	code, v, errs := runCLI(t, "", "verify", in, out)
	if code != exitOK || !strings.Contains(v, "mean KLD: 0 nats") || !strings.Contains(v, "same top-1: 100.00 %") || !strings.Contains(v, "outputs and states: bit-identical") {
		t.Errorf("verify: exit %d\n%s\n%s", code, v, errs)
	}
}
