package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The test modules of testdata/numerics are anefix's own synthetic graphs
// (their first comments say what each must show).
const (
	overflowModule = "../../testdata/numerics/reduce_overflow.mlir"
	narrowModule   = "../../testdata/numerics/narrow_sum.mlir"
)

type numericsReport struct {
	Numerics      string
	RangesChecked bool
	Ranges        []struct {
		Graph, OpId, Source, OpName string
		MaxAbs                      any // a number, or null when not finite (proto/common.proto)
		Flags                       []string
	}
	Localize *struct {
		ReferenceNumerics                               string
		Matched, UnmatchedReference, UnmatchedCandidate int
		Ops                                             []struct {
			OpId, Source, OpName string
			RelError, Growth     json.Number
		}
	}
}

func verifyJSON(t *testing.T, args ...string) numericsReport {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"verify", "--json"}, args...)...)
	if code != exitOK && code != exitGate {
		t.Fatalf("verify %v: exit %d\n%s", args, code, errs)
	}
	var rep numericsReport
	d := json.NewDecoder(strings.NewReader(out))
	d.UseNumber()
	if err := d.Decode(&rep); err != nil {
		t.Fatalf("verify %v --json: %v\n%s", args, err, out)
	}
	return rep
}

func TestVerifyNumericsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--numerics", "ane", "--accumulate", "f32"}, "--accumulate"},
		{[]string{"--numerics", "ane", "--cand-accumulate", "f16"}, "--cand-accumulate"},
		{[]string{"--numerics", "gpu"}, "--numerics"},
		{[]string{"--ane-family", "m1"}, "--ane-family"},
		{[]string{"--localize", "--localize-top", "0"}, "--localize-top"},
	} {
		args := append([]string{"verify", overflowModule, overflowModule}, c.args...)
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, exitUsage, c.want)
		}
	}
}

// The report names the profile, its family and what it is built from.
func TestVerifyNumericsNamed(t *testing.T) {
	code, out, errs := runCLI(t, "", "verify", overflowModule, overflowModule, "--numerics", "ane", "--ane-family", "a16", "--steps", "1")
	if code != exitOK && code != exitGate {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"numerics of CAND: ane (Neural Engine profile, family a16;", "third-party measurements", "not Apple documentation"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if rep := verifyJSON(t, overflowModule, overflowModule, "--steps", "1"); rep.Numerics != "ieee" {
		t.Errorf("default numerics %q, want ieee", rep.Numerics)
	}
	if rep := verifyJSON(t, overflowModule, overflowModule, "--steps", "1", "--numerics", "ane"); !strings.HasPrefix(rep.Numerics, "ane (Neural Engine profile, family pre-a16;") {
		t.Errorf("numerics %q", rep.Numerics)
	}
}

// --ranges flags the reduce_sum of reduce_overflow.mlir by op id under the
// ane profile, and nothing under IEEE numerics (its f32 accumulator holds
// the running sum).
func TestVerifyRangesFlagsOverflow(t *testing.T) {
	ane := verifyJSON(t, overflowModule, overflowModule, "--steps", "2", "--numerics", "ane", "--ranges")
	if !ane.RangesChecked {
		t.Fatal("rangesChecked false with --ranges")
	}
	found := false
	for _, r := range ane.Ranges {
		if r.Graph == "reference" {
			t.Errorf("reference flagged: %+v", r)
		}
		if r.OpId == "row_sum (op_id 3)" && r.OpName == "coreai.reduce_sum" {
			found = true
			if !slices.Contains(r.Flags, "inf") || r.Source != "/work/model.py:5" {
				t.Errorf("row_sum entry %+v, want flag inf at /work/model.py:5", r)
			}
			// It went inf, so its largest magnitude is inf (issue 28, item
			// 18): null in JSON, with the flag inf saying which.
			if r.MaxAbs != nil {
				t.Errorf("row_sum max magnitude %v, want null", r.MaxAbs)
			}
		}
	}
	if !found {
		t.Errorf("row_sum not flagged under ane: %+v", ane.Ranges)
	}
	ieee := verifyJSON(t, overflowModule, overflowModule, "--steps", "2", "--ranges")
	if len(ieee.Ranges) != 0 {
		t.Errorf("flagged under ieee: %+v", ieee.Ranges)
	}
	_, out, _ := runCLI(t, "", "verify", overflowModule, overflowModule, "--steps", "2", "--numerics", "ane", "--ranges")
	if !strings.Contains(out, "candidate  row_sum (op_id 3)") {
		t.Errorf("text report lacks the row_sum line:\n%s", out)
	}
	// Off, nothing is reported.
	if rep := verifyJSON(t, overflowModule, overflowModule, "--steps", "2", "--numerics", "ane"); rep.RangesChecked || len(rep.Ranges) != 0 {
		t.Errorf("ranges without --ranges: %+v", rep)
	}
}

// --localize ranks the narrow reduce_sum of narrow_sum.mlir first under the
// ane profile, far ahead of the matmul that computes the same sum wide.
func TestVerifyLocalize(t *testing.T) {
	rep := verifyJSON(t, narrowModule, narrowModule, "--steps", "3", "--numerics", "ane", "--localize")
	l := rep.Localize
	if l == nil || l.Matched != 4 || l.UnmatchedReference != 0 || l.UnmatchedCandidate != 0 || len(l.Ops) != 4 {
		t.Fatalf("localize %+v", l)
	}
	growth := map[string]float64{}
	for _, o := range l.Ops {
		g, err := o.Growth.Float64()
		if err != nil {
			t.Fatal(err)
		}
		growth[o.OpId] = g
	}
	if l.Ops[0].OpId != "sum_sq" || growth["sum_sq"] < 10*growth["dot_sq"] || growth["sum_sq"] < 1e-2 {
		t.Errorf("ranking %+v, want sum_sq first with growth ≥ 10× dot_sq's", l.Ops)
	}
	// A rewrite removes casts: those ops stay unmatched, the rest match.
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".mlir")
	b := filepath.Join(dir, "fixed.mlir")
	if code, _, errs := runCLI(t, "", "rewrite", a, "-o", b); code != exitOK {
		t.Fatalf("rewrite: %d %s", code, errs)
	}
	rw := verifyJSON(t, a, b, "--steps", "2", "--localize", "--localize-top", "3")
	if rw.Localize == nil || rw.Localize.Matched == 0 || rw.Localize.UnmatchedReference == 0 || len(rw.Localize.Ops) != 3 {
		t.Errorf("rewrite localize %+v", rw.Localize)
	}
}
