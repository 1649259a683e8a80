package rewrite

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
)

const armA = "../../testdata/synth/armA.aimodel"

func load(t *testing.T, path string) *modelio.Loaded {
	t.Helper()
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ld.Close() })
	return ld
}

// NewPlan refuses what needs no input, with usage errors for the request
// and a plain error for an existing output.
func TestNewPlanRefuses(t *testing.T) {
	// A previous output file (an empty directory would be used as it is).
	existing := filepath.Join(t.TempDir(), "out.mlir")
	if err := os.WriteFile(existing, []byte("module {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		o     Options
		want  string
		usage bool
	}{
		{"arm-d with --passes", Options{ArmD: true, Spec: passes.Spec{Passes: []string{"dce"}}, DryRun: true}, "--arm-d runs the seed's arm-D experiment", true},
		{"unknown pass", Options{Spec: passes.Spec{Passes: []string{"no-such-pass"}}, DryRun: true}, `unknown pass "no-such-pass"`, true},
		{"print-ir-after outside the pipeline", Options{Spec: passes.Spec{Passes: []string{"dce"}}, PrintIRAfter: []string{"arm-d"}, DryRun: true},
			"--print-ir-after arm-d: not a pass of this pipeline (valid: all, dce)", true},
		{"existing output", Options{Spec: passes.Spec{Passes: []string{"dce"}}, Out: existing}, "already exists; use --force", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewPlan(c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) || passes.IsUsage(err) != c.usage {
				t.Fatalf("err = %v (usage %v), want %q (usage %v)", err, passes.IsUsage(err), c.want, c.usage)
			}
		})
	}
	// --arm-d is arm-d first, then --enable's passes in default order.
	p, err := NewPlan(Options{ArmD: true, Spec: passes.Spec{Enable: []string{"dce"}}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Pipeline.Names(); !reflect.DeepEqual(got, []string{"arm-d", "dce"}) {
		t.Errorf("--arm-d --enable dce runs %v", got)
	}
}

// Run writes the record the pipeline's result assembles (after the
// input's own), prints the IR only after the passes asked for, and a dry
// run writes nothing but still gets the verdict.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.aimodel")
	var ir bytes.Buffer
	p, err := NewPlan(Options{Out: out, Spec: passes.Spec{Passes: []string{"strip-fp32-casts", "promote-states"}},
		PrintIRAfter: []string{"promote-states"}, VerifyEach: true, Tool: "anefix test", IR: &ir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(armA, load(t, armA))
	if err != nil || res.Err != nil {
		t.Fatalf("Run: %v, %v", err, res.Err)
	}
	if res.Check == nil || res.Written == nil || res.Written.Kind != bundle.KindAIModel {
		t.Fatalf("result %+v: want a verdict and an .aimodel written", res)
	}
	if n := strings.Count(ir.String(), "// ----- IR after "); n != 1 || !strings.Contains(ir.String(), "IR after promote-states") {
		t.Errorf("printed the IR %d times, want once after promote-states", n)
	}
	got, err := bundle.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Run.Record("anefix test")
	want.Pipelines = []string{p.Pipeline.String()}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("anefix.json = %+v,\nwant the run's record %+v", got, want)
	}
	if len(want.States) == 0 || len(want.IOChanges) == 0 {
		t.Fatalf("promote-states on arm A recorded no states: %+v", want)
	}

	// Rewriting the output again with the same pipeline changes nothing but
	// adds its pipeline (record.Record.Then).
	again := filepath.Join(t.TempDir(), "again.aimodel")
	p2, err := NewPlan(Options{Out: again, Spec: passes.Spec{Passes: []string{"strip-fp32-casts", "promote-states"}}, Tool: "anefix test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Run(out, load(t, out)); err != nil {
		t.Fatal(err)
	}
	got2, err := bundle.ReadRecord(again)
	if err != nil || got2 == nil {
		t.Fatalf("second record: %v, %v", got2, err)
	}
	if len(got2.Pipelines) != 2 || got2.Pipelines[1] != p2.Pipeline.String() {
		t.Errorf("pipelines after a second rewrite: %q", got2.Pipelines)
	}
	got2.Pipelines = want.Pipelines
	if !reflect.DeepEqual(*got2, want) {
		t.Errorf("a no-op rewrite changed the record:\n%+v\n%+v", *got2, want)
	}

	dry, err := NewPlan(Options{DryRun: true, Spec: passes.Spec{Passes: []string{"strip-fp32-casts"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err = dry.Run(armA, load(t, armA))
	if err != nil || res.Err != nil || res.Written != nil || res.Check == nil {
		t.Fatalf("dry run: %v, %+v", err, res)
	}
}

// A pass that fails is Result.Err with the steps so far (here a usage
// error only the model can refute), and nothing is written.
func TestRunPassFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.aimodel")
	// An islands pattern that matches no op: refuted only by the model.
	p, err := NewPlan(Options{Out: out, Spec: passes.Spec{Passes: []string{"fold-io-unsqueeze", "strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands=no-such-op-*"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(armA, load(t, armA))
	if err != nil {
		t.Fatal(err)
	}
	if !passes.IsUsage(res.Err) || res.Run == nil || len(res.Run.Steps) != 2 || res.Written != nil || res.Check != nil {
		t.Fatalf("result %+v, want the second pass's failure and nothing written", res)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed rewrite left %s: %v", out, err)
	}
}
