package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite --enable scale-state records the scales in anefix.json, and
// verify reads them back: against the same rewrite without scale-state the
// states compare in REF's units (tiny arm A; see graph/interp/compare's
// TestScaleStateVerify for the figures).
func TestScaleStateRecordAndVerify(t *testing.T) {
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".aimodel")
	base := filepath.Join(dir, "base.aimodel")
	scaled := filepath.Join(dir, "scaled.aimodel")
	if code, _, errs := runCLI(t, "", "rewrite", a, "-o", base); code != exitOK {
		t.Fatalf("rewrite: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "rewrite", a, "-o", scaled, "--enable", "scale-state", "--set", "scale-state.default=-2"); code != exitOK {
		t.Fatalf("rewrite --enable scale-state: %d %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(scaled, "anefix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		StateScales []struct {
			Graph, State, Form string
			Log2               int
		}
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.StateScales) != 2 || rec.StateScales[0].State != "conv_state" || rec.StateScales[0].Log2 != -2 {
		t.Fatalf("anefix.json stateScales = %+v, want conv_state and rec_state with log2 -2", rec.StateScales)
	}
	code, out, errs := runCLI(t, "", "verify", base, scaled, "--streams", "2", "--length", "64")
	if code != exitOK {
		t.Fatalf("verify: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"state rec_state: bit-identical", "state conv_state: bit-identical", "candidate state rec_state is stored × 2^2 (scale-state)"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	// Swapped, the scale applies to REF: still in REF's units.
	code, out, _ = runCLI(t, "", "verify", scaled, base, "--streams", "2", "--length", "64")
	if code != exitOK || !strings.Contains(out, "state rec_state: bit-identical") {
		t.Errorf("verify scaled base: %d\n%s", code, out)
	}
}
