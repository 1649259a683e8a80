package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/record"
)

// rewrite --print-pipeline prints the pipeline the flags build; the
// record of a rewrite stores it; rewrite --pipeline with the stored string
// writes the same model and the same record (tiny synth arm A).
func TestRewritePipelineReproduces(t *testing.T) {
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".aimodel")
	flags := []string{"--enable", "scale-state,fp16-safe-reductions", "--set", "scale-state.default=-2", "--set", "states.include-kv=true", "--disable", "fold-io-unsqueeze"}
	code, printed, errs := runCLI(t, "", append([]string{"rewrite", "--print-pipeline"}, flags...)...)
	if code != exitOK || strings.Count(printed, "\n") != 1 {
		t.Fatalf("--print-pipeline: %d %q %s", code, printed, errs)
	}
	printed = strings.TrimSuffix(printed, "\n")
	for _, want := range []string{"states{", "include-kv=true", "scale-state{exponents=\"\" default=-2}", "fp16-safe-reductions{min-elements=2}"} {
		if !strings.Contains(printed, want) {
			t.Errorf("--print-pipeline %q lacks %q", printed, want)
		}
	}
	if strings.Contains(printed, "fold-io-unsqueeze") {
		t.Errorf("--print-pipeline %q lists a disabled pass", printed)
	}
	one, two := filepath.Join(dir, "one.aimodel"), filepath.Join(dir, "two.aimodel")
	if code, _, errs := runCLI(t, "", append([]string{"rewrite", a, "-o", one}, flags...)...); code != exitOK {
		t.Fatalf("rewrite with flags: %d %s", code, errs)
	}
	rec := readRecord(t, one)
	if len(rec.Pipelines) != 1 || rec.Pipelines[0] != printed {
		t.Fatalf("anefix.json pipelines = %q, want [%q]", rec.Pipelines, printed)
	}
	if code, _, errs := runCLI(t, "", "rewrite", a, "-o", two, "--pipeline", rec.Pipelines[0]); code != exitOK {
		t.Fatalf("rewrite --pipeline: %d %s", code, errs)
	}
	for _, f := range []string{"main.mlirb", "anefix.json"} {
		b1, err1 := os.ReadFile(filepath.Join(one, f))
		b2, err2 := os.ReadFile(filepath.Join(two, f))
		if err1 != nil || err2 != nil || !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between the flags and --pipeline (%v %v)", f, err1, err2)
		}
	}
	// A rewrite of the rewrite appends its pipeline.
	three := filepath.Join(dir, "three.aimodel")
	if code, _, errs := runCLI(t, "", "rewrite", one, "-o", three, "--passes", "dce"); code != exitOK {
		t.Fatalf("second rewrite: %d %s", code, errs)
	}
	if rec := readRecord(t, three); len(rec.Pipelines) != 2 || rec.Pipelines[0] != printed || !strings.HasSuffix(rec.Pipelines[1], ",dce{graphs=true resources=true}") {
		t.Errorf("second record pipelines = %q", rec.Pipelines)
	}
}

func readRecord(t *testing.T, dir string) *record.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, bundle.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// --pipeline with the flags it replaces, and --print-pipeline with an
// input, are usage errors; a bad pipeline string is one too.
func TestRewritePipelineUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pipeline", "dce", "--set", "dce.graphs=false", "--dry-run", "x.mlir"}, "cannot be combined"},
		{[]string{"--pipeline", "dce", "--arm-d", "--dry-run", "x.mlir"}, "cannot be combined"},
		{[]string{"--pipeline", "dce,fold-casts", "--print-pipeline"}, `pass "fold-casts" must run before "dce"`},
		{[]string{"--print-pipeline", "x.mlir"}, "drop IN"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"rewrite"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want exit %d and %q", c.args, code, errs, exitUsage, c.want)
		}
	}
}
