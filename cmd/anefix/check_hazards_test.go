package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckHazards runs `anefix check` on the hazard test modules
// (testdata/hazards, anefix's own synthetic modules): the advisory section
// lists each hazard, and the exit code and the JSON verdict are those of the
// legality rules alone (the blocked module exits 3 for its f32 port, the
// others 0, hazards or not).
func TestCheckHazards(t *testing.T) {
	cases := []struct {
		file  string
		code  int
		rules []string // hazard rules expected in the JSON groups, in order
		text  []string // substrings of the text report
	}{
		{"mask_neg_inf.mlir", exitOK, []string{"fp16.out-of-range"}, []string{"causal_mask: op_id 1: 1 × -inf"}},
		{"mask_neg_1e9.mlir", exitOK, []string{"fp16.out-of-range"}, []string{"first -1e+09"}},
		{"flush_to_zero.mlir", exitOK, []string{"fp16.flush-to-zero"}, []string{"eps: op_id 1: 1 nonzero value(s) round to 0"}},
		{"exp_bounded.mlir", exitOK, []string{"fp16.exp-overflow"}, []string{"exp(12) = 162755"}},
		{"resource_blob.mlir", exitOK, []string{"fp16.out-of-range", "fp16.flush-to-zero"}, []string{"note: dense_resource<absent_weights>"}},
		{"blocked_neg_inf.mlir", exitGate, []string{"fp16.out-of-range"}, []string{"NOT LEGAL", "causal_mask: 1 × -inf"}},
		{"safe.mlir", exitOK, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := "../../testdata/hazards/" + tc.file
			code, out, errs := runCLI(t, "", "check", path)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, out, errs)
			}
			const head = "fp16 hazards (advisory; never change the verdict or the exit code):"
			if has := strings.Contains(out, head); has != (len(tc.rules) > 0) {
				t.Errorf("advisory section present %v, want %v:\n%s", has, len(tc.rules) > 0, out)
			}
			for _, s := range tc.text {
				if !strings.Contains(out, s) {
					t.Errorf("text lacks %q:\n%s", s, out)
				}
			}
			// The section comes after the legality findings, before Functions.
			if i, j := strings.Index(out, head), strings.Index(out, "\nFunctions:"); i >= 0 && i > j {
				t.Errorf("advisory section after Functions:\n%s", out)
			}
			jcode, js, _ := runCLI(t, "", "check", path, "--json")
			if jcode != tc.code {
				t.Errorf("--json exit %d, want %d", jcode, tc.code)
			}
			var rep struct {
				Legal   bool
				Groups  []struct{ Rule, Severity string }
				Hazards []struct{ Rule, Severity string }
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Legal != (tc.code == exitOK) {
				t.Errorf("legal %v with exit %d", rep.Legal, tc.code)
			}
			var got []string
			for _, h := range rep.Hazards {
				got = append(got, h.Rule)
				if h.Severity != "hazard" {
					t.Errorf("%s severity %q", h.Rule, h.Severity)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.rules, ",") {
				t.Errorf("hazard groups %v, want %v", got, tc.rules)
			}
			for _, g := range rep.Groups {
				if strings.HasPrefix(g.Rule, "fp16.") {
					t.Errorf("hazard %s among the legality groups", g.Rule)
				}
			}
		})
	}
	code, out, _ := runCLI(t, "", "check", "--hazard-weights=false", "../../testdata/hazards/resource_blob.mlir")
	if code != exitOK || strings.Contains(out, "dense_resource<mask_f32>,") || !strings.Contains(out, "not read (--hazard-weights=false)") {
		t.Errorf("--hazard-weights=false: exit %d\n%s", code, out)
	}
	_, out, _ = runCLI(t, "", "check", "--rules")
	for _, id := range []string{"fp16.out-of-range [hazard]", "fp16.flush-to-zero [hazard]", "fp16.exp-overflow [hazard]"} {
		if !strings.Contains(out, id) {
			t.Errorf("check --rules lacks %q", id)
		}
	}
}
