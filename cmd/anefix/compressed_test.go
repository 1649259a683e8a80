package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model with palettized and si8 weights is predicted legal and runs under
// verify; the same model with linear si4 weights is the linear-INT4 case.
func TestCompressedWeights(t *testing.T) {
	const in = "../../testdata/rules/compressed.mlir"
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	int4 := filepath.Join(t.TempDir(), "int4.mlir")
	if err := os.WriteFile(int4, []byte(strings.ReplaceAll(string(src), "si8>", "si4>")), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want []string
		not  []string
	}{
		{[]string{"check", in}, 0, []string{"Prediction: LEGAL"}, []string{"linear-int4", "element-type"}},
		{[]string{"verify", in, in, "--streams", "2", "--length", "3"}, 0, []string{"mean KLD: 0 nats", "same top-1: 100.00 %", "bit-identical"}, nil},
		{[]string{"check", int4}, 3, []string{"linear-int4", "linear si4 weights tensor<4x8xsi4>"}, []string{"element-type"}},
		{[]string{"verify", in, int4, "--streams", "2", "--length", "3"}, -1, []string{"mean KLD", "same top-1"}, nil},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "", c.args...)
		if c.code >= 0 && code != c.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, c.code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", c.args[0], w, out, errs)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out+errs, w) {
				t.Errorf("%s: output has %q:\n%s%s", c.args[0], w, out, errs)
			}
		}
	}
}

// The compression passes end to end on synth arm A: a linear-INT4 arm is
// blocked by check (linear-int4, naming legalize-weights) and legal after
// the legalizer; a palettized arm is legal at the defaults and a
// group-16 one is not (lut4-small-group), with the warning at rewrite time;
// the report carries every weight's cost; verify runs the palettized
// candidate under both numerics.
func TestCompressionArms(t *testing.T) {
	dir := t.TempDir()
	int4 := filepath.Join(dir, "int4.aimodel")
	pal := filepath.Join(dir, "pal.aimodel")
	legal := filepath.Join(dir, "legal.aimodel")
	g16 := filepath.Join(dir, "g16.aimodel")
	palFixed := filepath.Join(dir, "pal.fixed.aimodel")
	report := filepath.Join(dir, "report.json")
	const armA = "../../testdata/synth/armA.aimodel"
	steps := []struct {
		args []string
		code int
		want []string
		not  []string
	}{
		{[]string{"synth", "--arm", "A", "--weights", "linear-int4", "-o", int4}, 0, nil, nil},
		{[]string{"check", int4}, 3, []string{"linear-int4", "-> legalize-weights (off by default: --enable legalize-weights)"}, nil},
		{[]string{"rewrite", int4, "-o", legal, "--enable", "legalize-weights"}, 0, []string{"legalize-weights", "weights taken: ", "check: LEGAL"}, nil},
		{[]string{"check", legal}, 0, []string{"Prediction: LEGAL"}, []string{"linear-int4", "lut4-small-group"}},
		{[]string{"synth", "--arm", "A", "--weights", "palettized", "-o", pal}, 0, nil, nil},
		{[]string{"check", pal}, 3, []string{"element-type"}, []string{"lut4-small-group", "linear-int4"}}, // the export's fp32 recurrence, not its palettes
		{[]string{"rewrite", pal, "-o", palFixed}, 0, []string{"check: LEGAL"}, nil},
		{[]string{"check", palFixed}, 0, []string{"Prediction: LEGAL"}, []string{"lut4-small-group", "linear-int4"}},
		{[]string{"rewrite", armA, "-o", g16, "--enable", "palettize", "--set", "palettize.group-size=16", "--report", report}, 0,
			[]string{"warning:", "lut4-small-group", "check: NOT LEGAL"}, nil},
		{[]string{"check", g16}, 3, []string{"lut4-small-group", "4-bit palettes of 16 channels"}, nil},
		{[]string{"verify", armA, pal, "--streams", "2", "--length", "4"}, -1, []string{"mean KLD", "same top-1"}, nil},
		{[]string{"verify", armA, pal, "--streams", "2", "--length", "4", "--numerics", "ane"}, -1, []string{"mean KLD", "numerics of CAND: ane"}, nil},
	}
	for _, s := range steps {
		code, out, errs := runCLI(t, "", s.args...)
		if (s.code >= 0 && code != s.code) || (s.code < 0 && code != 0 && code != 3) {
			t.Fatalf("%s: exit %d, want %d\n%s%s", strings.Join(s.args, " "), code, s.code, out, errs)
		}
		for _, w := range s.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", strings.Join(s.args, " "), w, out, errs)
			}
		}
		for _, w := range s.not {
			if strings.Contains(out+errs, w) {
				t.Errorf("%s: output has %q:\n%s%s", strings.Join(s.args, " "), w, out, errs)
			}
		}
	}
	var rep struct {
		Passes []struct {
			Name       string
			Compressed []struct {
				Form        string
				BytesBefore string
				BytesAfter  string
				SnrDb       float64
			}
			Compression struct {
				Weights int
				SnrDb   float64
			}
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range rep.Passes {
		if p.Name != "palettize" {
			continue
		}
		found = true
		if len(p.Compressed) == 0 || p.Compression.Weights != len(p.Compressed) || p.Compression.SnrDb < 15 {
			t.Fatalf("palettize report: %d weights, total %+v", len(p.Compressed), p.Compression)
		}
		for _, c := range p.Compressed {
			if c.BytesBefore == "" || c.BytesAfter == "" || c.SnrDb < 15 || !strings.Contains(c.Form, "per-grouped-channel 16") {
				t.Errorf("report entry %+v", c)
			}
		}
	}
	if !found {
		t.Fatal("no palettize entry in the report")
	}
}

// rewrite --max-memory bounds what a compression pass may plan for one
// weight, refused before the work with exit 1 and nothing written: a
// per-tensor vector palette (cluster-dim 2) of tiny arm A's largest weight
// (tensor<256x32xf16>, 8,192 values) holds its values as float64 and a
// distance and an assignment per pair: (8 + 12/2) · 8192 bytes = 112 KiB,
// over 96 KiB. A size that is not one is a usage error.
func TestRewriteMaxMemory(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.mlir")
	if code, out, errs := runCLI(t, "", "synth", "--arm", "A", "--emit", "generic", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d\n%s%s", code, out, errs)
	}
	out := filepath.Join(dir, "out.mlir")
	vec := []string{"--passes", "palettize", "--set", "palettize.granularity=per-tensor", "--set", "palettize.cluster-dim=2", "--set", "palettize.bits=2"}
	code, stdout, errs := runCLI(t, "", append([]string{"rewrite", in, "-o", out, "--max-memory", "96KiB"}, vec...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, errs)
	}
	for _, w := range []string{"palettize: ", "needs about", "tensor<256x32xf16>", "over the limit of 96.0 KiB (--max-memory)", "granularity=per-grouped-channel", "raise --max-memory"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written (%v) after the refusal", err)
	}
	if code, stdout, errs := runCLI(t, "", "rewrite", in, "-o", out, "--max-memory", "0"); code != 2 {
		t.Errorf("--max-memory 0: exit %d, want 2\n%s%s", code, stdout, errs)
	}
}
