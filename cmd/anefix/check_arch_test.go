package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anefix/anefix/passes/ane"
)

// check --architecture: the region model per target, in JSON and text;
// the verdict and the exit code do not depend on it.
func TestCheckArchitecture(t *testing.T) {
	const v0 = "../../testdata/calibration/granite-fp16-v0.mlir" // 12 fp32 softmax chains, fp32 output
	for _, c := range []struct {
		arch    string
		code    int
		regions *int32
		text    string
	}{
		{"h18p", exitGate, ptr32(0), "Prediction: NOT LEGAL for the Neural Engine: 0 of 1 function(s) get an ANE region on h18p (all-or-nothing"},
		{"h16g", exitGate, ptr32(13), "Prediction: PARTIAL: 13 ANE region(s) over 1 function(s) on h16g (partitioning around fp32 islands)"},
		{"h17p", exitGate, nil, "Prediction: NOT LEGAL by the rules: 1 of 1 function(s) hold a blocker; h17p: no region count (unknown: no published compile for h17p"},
	} {
		code, out, errs := runCLI(t, "", "check", "--json", "--architecture", c.arch, v0)
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d; %s", c.arch, code, c.code, errs)
		}
		var rep struct {
			Architecture     string `json:"architecture"`
			RegionModel      string `json:"regionModel"`
			PredictedRegions *int32 `json:"predictedRegions"`
			Graphs           []struct {
				PredictedRegions *int32 `json:"predictedRegions"`
				RegionModel      string `json:"regionModel"`
			} `json:"graphs"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Architecture != c.arch || rep.RegionModel == "" || len(rep.Graphs) != 1 || rep.Graphs[0].RegionModel == "" {
			t.Errorf("%s: architecture %q, model %q, graphs %+v", c.arch, rep.Architecture, rep.RegionModel, rep.Graphs)
		}
		for _, got := range []*int32{rep.PredictedRegions, rep.Graphs[0].PredictedRegions} {
			if (got == nil) != (c.regions == nil) || (got != nil && *got != *c.regions) {
				t.Errorf("%s: predictedRegions %v, want %v", c.arch, deref(got), deref(c.regions))
			}
		}
		_, text, _ := runCLI(t, "", "check", "--architecture", c.arch, v0)
		if !strings.Contains(text, c.text) {
			t.Errorf("%s: text lacks %q:\n%s", c.arch, c.text, text)
		}
	}
	if code, _, errs := runCLI(t, "", "check", "--architecture", "m4", v0); code != exitUsage || !strings.Contains(errs, "architecture") {
		t.Errorf("--architecture m4: exit %d, stderr %q; want a usage error", code, errs)
	}
}

// check --rules lists every calibrated rule with its source and the
// region models with theirs.
func TestCheckRulesListsCalibratedRules(t *testing.T) {
	code, out, _ := runCLI(t, "", "check", "--rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range []*ane.Rule{ane.RuleLUT4SmallGroup, ane.RuleMetalKernel, ane.RuleFp32GatherTable, ane.AppleSilu,
		ane.AppleGatherRoPE, ane.AdviceAlignment, ane.AdviceSingletonLast, ane.AdviceSoftmaxAxis, ane.AdviceLinear} {
		if !strings.Contains(out, "\n"+r.ID+" ["+r.Severity.String()+"]") || !strings.Contains(out, "evidence: "+r.Evidence) {
			t.Errorf("--rules lacks %s with its evidence", r.ID)
		}
	}
	for _, s := range []string{"  h18p: all-or-nothing", "  h16g: partitioning around fp32 islands", "EXP-005-ane-residency"} {
		if !strings.Contains(out, s) {
			t.Errorf("--rules lacks %q", s)
		}
	}
}

func ptr32(v int32) *int32 { return &v }

func deref(p *int32) any {
	if p == nil {
		return "absent"
	}
	return *p
}
