package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/record"
	"github.com/anefix/anefix/passes"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph/oracle"
)

const rwArmA = "../../testdata/synth/armA.aimodel"

// requireArmA fails the test when the committed tiny arm A is missing (a
// committed file missing is a broken checkout, not an unavailable tool).
func requireArmA(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(rwArmA); err != nil {
		t.Fatalf("committed synth arm A: %v", err)
	}
}

// rwRead returns a file's bytes as a string.
func rwRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rewrite ends with check's verdict on what it wrote: legal after the
// default pipeline on arm A, and, with strip-fp32-casts off, the blockers
// that remain with the pass that removes them (text and report).
func TestRewriteCheckVerdict(t *testing.T) {
	requireArmA(t)
	for _, c := range []struct {
		args  []string
		legal bool
		line  string
	}{
		{nil, true, "check: LEGAL for the Neural Engine: 1 ANE region(s) predicted over 1 function(s) (h18p)"},
		{[]string{"--disable", "strip-fp32-casts"}, false, "check: NOT LEGAL for the Neural Engine: 0 ANE region(s) predicted over 1 function(s) (h18p)"},
	} {
		report := filepath.Join(t.TempDir(), "r.json")
		code, _, stderr := runCLI(t, "", append([]string{"rewrite", rwArmA, "--dry-run", "--report", report, "--set", "states.auto=true"}, c.args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, c.line) {
			t.Errorf("summary lacks %q:\n%s", c.line, stderr)
		}
		var rep rewriteReport
		rwReadJSON(t, report, &rep)
		if rep.Check == nil || rep.Check.Legal != c.legal {
			t.Fatalf("report check = %+v, want legal %v", rep.Check, c.legal)
		}
		if g := rep.Check.Groups; !c.legal && (len(g) == 0 || g[0].Severity != "blocker" || g[0].Rule != "element-type" || g[0].FixPass != "strip-fp32-casts") {
			t.Errorf("groups = %+v", g)
		}
		set := map[string]bool{}
		for _, s := range rep.Settings {
			set[s.Name] = s.Set
		}
		if v, ok := set["states.auto"]; !ok || !v || len(rep.Settings) != 5 {
			t.Errorf("settings = %+v", rep.Settings)
		}
	}
}

func TestRewriteUsageErrors(t *testing.T) {
	in := "../../testdata/passes/strip-fp32-casts.mlir"
	out := filepath.Join(t.TempDir(), "out.mlir")
	cases := []struct {
		args []string
		want []string // substrings of stderr
	}{
		{[]string{in}, []string{"-o OUT is required"}},
		{[]string{in, "-o", out, "--passes", "nope"}, []string{`unknown pass "nope"`, "valid: arm-d, finite-masks, strip-fp32-casts, fold-io-unsqueeze"}},
		{[]string{in, "-o", out, "--disable", "nope,dce"}, []string{`--disable: unknown pass "nope"`, "valid:"}},
		{[]string{in, "-o", out, "--set", "strip-fp32-casts.nope=1"}, []string{`has no option "nope"`, "valid: clamp, islands, exclude, keep-norms, io"}},
		{[]string{in, "-o", out, "--set", "strip-fp32-casts.clamp=maybe"}, []string{"wants true or false"}},
		{[]string{in, "-o", out, "--passes", "dce,fold-casts"}, []string{`"fold-casts" must run before "dce"`}},
		{[]string{in, "-o", "-", "--json"}, []string{"--json prints the report on stdout"}},
		{[]string{in, "-o", out, "--print-ir-after", "arm-d"}, []string{"not a pass of this pipeline", "valid: all, strip-fp32-casts"}},
		{[]string{in, "-o", out, "--emit", "yaml"}, []string{`--emit "yaml"`}},
		{[]string{in, "-o", out, "--dry-run"}, []string{"--dry-run writes nothing"}},
		{[]string{in, "-o", out, "--passes", "dce", "--arm-d"}, []string{"list arm-d in --passes instead"}},
		{[]string{in, in, "-o", out}, []string{"exactly one input"}},
		{[]string{in, "-o", filepath.Join(filepath.Dir(out), "x.aimodel"), "--emit", "pretty"}, []string{"holds MLIR bytecode"}},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", append([]string{"rewrite"}, c.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d; stderr %q", c.args, code, exitUsage, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a usage error wrote %s", out)
	}
}

func TestRewritePassFailureWritesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "big.mlir")
	src := `module {
  coreai.graph @main(%x: tensor<2xf16>) -> tensor<2xf16> {
    %c = coreai.constant dense<[1.0, 1.0e+06]> : tensor<2xf32> loc("_tensor_constant9"("m.py":4:0))
    %0 = coreai.cast %x : tensor<2xf16> to tensor<2xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = coreai.cast %1 : tensor<2xf32> to tensor<2xf16>
    coreai.output %2 : tensor<2xf16>
  }
}
`
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.mlir")
	report := filepath.Join(dir, "report.json")
	code, stdout, stderr := runCLI(t, "", "rewrite", in, "-o", out, "--report", report, "--set", "strip-fp32-casts.islands=all")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	for _, w := range []string{"pass strip-fp32-casts", "_tensor_constant9 at m.py:4", "clamp=true", "nothing written"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) || stdout != "" {
		t.Errorf("failure wrote output (stat err %v, stdout %q)", err, stdout)
	}
	var rep map[string]any
	rwReadJSON(t, report, &rep)
	if rep["failedPass"] != "strip-fp32-casts" || rep["written"] == true {
		t.Errorf("report: failedPass %v written %v", rep["failedPass"], rep["written"])
	}
	// The same input passes with clamp.
	if code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out, "--set", "strip-fp32-casts.clamp=true"); code != exitOK {
		t.Errorf("with clamp: exit %d %s", code, stderr)
	}
}

func rwReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// rewriteReport is the part of the JSON report the tests look at.
type rewriteReport struct {
	Written      bool   `json:"written"`
	OutputKind   string `json:"outputKind"`
	VerifyEach   bool   `json:"verifyEach"`
	CensusBefore []struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
	} `json:"censusBefore"`
	CensusAfter []struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
	} `json:"censusAfter"`
	Passes []struct {
		Name      string `json:"name"`
		IoChanges []any  `json:"ioChanges"`
		States    []any  `json:"states"`
		Replaced  []any  `json:"replaced"`
	} `json:"passes"`
	Settings []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		Set   bool   `json:"set"`
	} `json:"settings"`
	Check *struct {
		Legal  bool `json:"legal"`
		Groups []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			FixPass  string `json:"fixPass"`
		} `json:"groups"`
	} `json:"check"`
}

func (r *rewriteReport) passNames() []string {
	var out []string
	for _, p := range r.Passes {
		out = append(out, p.Name)
	}
	return out
}

func rwLoad(t *testing.T, path string) *graph.Module {
	t.Helper()
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ld.Close() })
	if err := graph.Verify(ld.Module); err != nil {
		t.Fatalf("%s does not verify: %v", path, err)
	}
	return ld.Module
}

// TestRewriteArmA is the "done when" on the synth arm A tiny export.
func TestRewriteArmA(t *testing.T) {
	requireArmA(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.aimodel")
	report := filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI(t, "", "rewrite", rwArmA, "-o", out, "--report", report, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep, repStdout rewriteReport
	rwReadJSON(t, report, &rep)
	if err := json.Unmarshal([]byte(stdout), &repStdout); err != nil || len(repStdout.Passes) != len(rep.Passes) {
		t.Errorf("--json on stdout: %v (%d passes)", err, len(repStdout.Passes))
	}
	if !rep.Written || rep.OutputKind != "aimodel" || !rep.VerifyEach {
		t.Errorf("report: %+v", rep)
	}
	if got, want := strings.Join(rep.passNames(), ","), "strip-fp32-casts,fold-io-unsqueeze,promote-states,fold-casts,dce"; got != want {
		t.Errorf("passes %s, want %s", got, want)
	}
	// The default retypes only the islands check flags (the recurrence):
	// fewer f32 values after, but not none (norms and RoPE stay).
	var f32Before, f32After int
	for _, c := range rep.CensusBefore {
		if c.Type == "f32" {
			f32Before = c.Count
		}
	}
	for _, c := range rep.CensusAfter {
		if c.Type == "f32" {
			f32After = c.Count
		}
	}
	if f32Before == 0 {
		t.Error("arm A has no f32 before the rewrite: the test proves nothing")
	}
	if f32After == 0 || f32After >= f32Before {
		t.Errorf("f32 values %d → %d, want fewer but some (norms and RoPE kept)", f32Before, f32After)
	}
	if code, stdout, _ := runCLI(t, "", "check", out); code != exitOK || !strings.Contains(stdout, "Prediction: LEGAL") {
		t.Errorf("check of the rewrite: exit %d:\n%s", code, stdout)
	}
	for _, f := range []string{"main.mlirb", "main.hash", "metadata.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output .aimodel: %v", err)
		}
	}
	var rec struct {
		Passes    []string `json:"passes"`
		IOChanges []struct {
			Port, Before, After string
		} `json:"ioChanges"`
		States []struct{ Input, Output string } `json:"states"`
	}
	rwReadJSON(t, filepath.Join(out, bundle.RecordFile), &rec)
	if len(rec.Passes) != 5 || len(rec.States) != 2 || len(rec.IOChanges) == 0 {
		t.Errorf("%s: %+v", bundle.RecordFile, rec)
	}
	if a, b := rwRead(t, filepath.Join(rwArmA, "metadata.json")), rwRead(t, filepath.Join(out, "metadata.json")); a != b {
		t.Errorf("metadata.json changed:\n%s\nwas\n%s", b, a)
	}
	m := rwLoad(t, out)
	if c := passes.TakeCensus(m); c["f32"] != int64(f32After) {
		t.Errorf("output has %d f32 values, the report says %d", c["f32"], f32After)
	}
	g := m.Graph("main")
	states := map[string]bool{}
	for _, p := range g.Inputs() {
		states[p.Name] = p.IsState
		for _, u := range g.Body().Arg(p.Index).Uses() {
			// input_ids' expand_dims only feeds the embedding's
			// gather_nd indices and stays (fold-io-unsqueeze's doc).
			if (u.Op.Name == "coreai.expand_dims" || u.Op.Name == "coreai.shrink_dims") && p.Name != "input_ids" {
				t.Errorf("input %s still feeds %s", p.Name, u.Op.Describe())
			}
		}
	}
	if !states["conv_state"] || !states["rec_state"] {
		t.Errorf("conv/rec are not states: %v", states)
	}
	for i, v := range g.Terminator().Operands() {
		if d := v.DefiningOp(); d != nil && (d.Name == "coreai.expand_dims" || d.Name == "coreai.shrink_dims") {
			t.Errorf("output %d comes from %s", i, d.Describe())
		}
	}

	// Same input and flags give the same bytes.
	out2 := filepath.Join(dir, "y.aimodel")
	if code, _, stderr := runCLI(t, "", "rewrite", rwArmA, "-o", out2); code != exitOK {
		t.Fatalf("second run: %s", stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out, "main.mlirb"))
	b, _ := os.ReadFile(filepath.Join(out2, "main.mlirb"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("two runs differ (%d vs %d bytes)", len(a), len(b))
	}

	// mlir-opt reads the written bytecode.
	if _, err := oracle.RunMlirOpt(oracle.MlirOpt(t), "", filepath.Join(out, "main.mlirb"), "-o", os.DevNull); err != nil {
		t.Errorf("mlir-opt rejects the output: %v", err)
	}
}

func TestRewritePipelineFlags(t *testing.T) {
	requireArmA(t)
	cases := []struct {
		name      string
		args      []string
		wantNames string
		check     func(t *testing.T, rep *rewriteReport, stderr string)
	}{
		{
			name: "disable promote-states", args: []string{"--disable", "promote-states"},
			wantNames: "strip-fp32-casts,fold-io-unsqueeze,fold-casts,dce",
		},
		{name: "exact list", args: []string{"--passes", "strip-fp32-casts"}, wantNames: "strip-fp32-casts"},
		{name: "arm-d plus cleanup", args: []string{"--arm-d", "--enable", "dce"}, wantNames: "arm-d,dce"},
		{
			name: "arm-d", args: []string{"--arm-d"},
			wantNames: "arm-d",
			check: func(t *testing.T, rep *rewriteReport, _ string) {
				if len(rep.Passes[0].Replaced) == 0 {
					t.Error("arm-d replaced nothing on arm A")
				}
			},
		},
		{
			name: "print IR after one pass", args: []string{"--print-ir-after", "fold-io-unsqueeze", "--verify-each=false"},
			wantNames: "strip-fp32-casts,fold-io-unsqueeze,promote-states,fold-casts,dce",
			check: func(t *testing.T, rep *rewriteReport, stderr string) {
				if strings.Count(stderr, "// ----- IR after") != 1 || !strings.Contains(stderr, "IR after fold-io-unsqueeze") || !strings.Contains(stderr, "coreai.graph") {
					t.Errorf("stderr:\n%.2000s", stderr)
				}
				if rep.VerifyEach {
					t.Error("--verify-each=false not recorded")
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"rewrite", rwArmA, "--dry-run", "--report", report}, tc.args...)
			code, stdout, stderr := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != "" || !strings.Contains(stderr, "dry run: nothing written") {
				t.Errorf("dry run: stdout %q", stdout)
			}
			var rep rewriteReport
			rwReadJSON(t, report, &rep)
			if got := strings.Join(rep.passNames(), ","); got != tc.wantNames {
				t.Errorf("passes %s, want %s", got, tc.wantNames)
			}
			if rep.Written {
				t.Error("dry run says written")
			}
			if tc.check != nil {
				tc.check(t, &rep, stderr)
			}
		})
	}
}

func TestPassesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "", "passes")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(out, "\n")
	for i, n := range passes.Names() {
		p, _ := passes.Lookup(n)
		if i >= len(lines) || !strings.HasPrefix(lines[i], n+" ") || !strings.Contains(lines[i], p.Summary) || !strings.Contains(lines[i], " "+passOnOff(p.DefaultOn)+" ") {
			t.Errorf("line %d = %q, want pass %s", i, lines[min(i, len(lines)-1)], n)
		}
	}
	code, out, _ = runCLI(t, "", "passes", "strip-fp32-casts")
	for _, w := range []string{"strip-fp32-casts (on by default)", "Incompatible element type for ANE", "clamp (bool, default false)", "islands (list, default blockers)", "Ordering:", "Analyses: requires states, islands; preserves states"} {
		if code != exitOK || !strings.Contains(out, w) {
			t.Errorf("passes strip-fp32-casts lacks %q:\n%s", w, out)
		}
	}
	code, out, _ = runCLI(t, "", "passes", "--json")
	// The JSON is the proto schema's (anefix.v1.PassList / PassInfo).
	list := &pb.PassList{}
	if err := protojson.Unmarshal([]byte(out), list); code != exitOK || err != nil || len(list.Passes) != len(passes.Names()) {
		t.Errorf("passes --json: exit %d err %v (%d entries)", code, err, len(list.Passes))
	}
	code, out, _ = runCLI(t, "", "passes", "dce", "--json")
	one := &pb.PassInfo{}
	if err := protojson.Unmarshal([]byte(out), one); code != exitOK || err != nil || one.Name != "dce" || len(one.Options) != 2 ||
		len(one.Constraints) != 1 || !strings.HasPrefix(one.Constraints[0], "dce runs last (after every other pass): ") || len(one.Requires)+len(one.Preserves) != 0 {
		t.Errorf("passes dce --json: %v %+v", err, one)
	}
	code, _, stderr := runCLI(t, "", "passes", "nope")
	if code != exitUsage || !strings.Contains(stderr, "valid: arm-d, finite-masks, strip-fp32-casts") {
		t.Errorf("passes nope: exit %d %q", code, stderr)
	}
}

// TestRewriteConvertsBlobIntoBytecode follows an f32 weight blob from MLIR
// text through strip-fp32-casts into a written .aimodel (the converting blob
// view is read by the bytecode writer).
func TestRewriteConvertsBlobIntoBytecode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.aimodel")
	code, _, stderr := runCLI(t, "", "rewrite", "../../testdata/passes/strip-fp32-casts.mlir", "-o", out, "--set", "strip-fp32-casts.islands=all")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := rwLoad(t, out)
	if m.Resource("beta_w") != nil {
		t.Error("the f32 blob is still there")
	}
	r := m.Resource("beta_w_f16")
	if r == nil {
		t.Fatal("no beta_w_f16 resource")
	}
	b, err := r.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	// 1, -0.5, 0.1, 2 rounded to f16 (0.1 → 0x2E66), little-endian.
	if want := []byte{0x00, 0x3C, 0x00, 0xB8, 0x66, 0x2E, 0x00, 0x40}; !bytes.Equal(b, want) {
		t.Errorf("blob = % X, want % X", b, want)
	}
}

// canonical prints an MLIR file the way mlir-opt does, so two files are
// compared as IR, not as one printer's spelling.
func canonical(t *testing.T, mlirOpt, path string) []byte {
	t.Helper()
	out, err := oracle.RunMlirOpt(mlirOpt, "", "--mlir-print-debuginfo", path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRewriteArmDMatchesSynth: --arm-d on arm A gives the IR synth emits for
// arm D (synth D is arm A plus the arm-d pass alone), both from generated
// text and from the shipped bundles.
func TestRewriteArmDMatchesSynth(t *testing.T) {
	mlirOpt := oracle.MlirOpt(t)
	dir := t.TempDir()
	a, d, r := filepath.Join(dir, "a.mlir"), filepath.Join(dir, "d.mlir"), filepath.Join(dir, "r.mlir")
	ra := filepath.Join(dir, "r.aimodel")
	for _, args := range [][]string{
		{"synth", "--arm", "A", "-o", a, "--emit", "generic"},
		{"synth", "--arm", "D", "-o", d, "--emit", "generic"},
		{"rewrite", a, "--arm-d", "-o", r},
		{"rewrite", "../../testdata/synth/armA.aimodel", "--arm-d", "-o", ra},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != exitOK {
			t.Fatalf("anefix %v: exit %d: %s", args, code, stderr)
		}
	}
	want := canonical(t, mlirOpt, d)
	if !bytes.Equal(want, canonical(t, mlirOpt, r)) {
		t.Error("rewrite --arm-d on arm A text differs from synth --arm D")
	}
	if !bytes.Equal(canonical(t, mlirOpt, "../../testdata/synth/armD.aimodel/main.mlirb"), canonical(t, mlirOpt, filepath.Join(ra, "main.mlirb"))) {
		t.Error("rewrite --arm-d on testdata armA.aimodel differs from testdata armD.aimodel")
	}
	if code, _, stderr := runCLI(t, "", "rewrite", a, "--arm-d", "--disable", "dce", "-o", filepath.Join(dir, "x.mlir")); code != exitUsage {
		t.Errorf("--arm-d with --disable: exit %d: %s", code, stderr)
	}
}

// TestRewriteLLMBundle: an LLM bundle stays a bundle; the tokenizer is
// carried over, the asset's anefix.json records the changes and both
// metadata.json files are carried over byte for byte.
func TestRewriteLLMBundle(t *testing.T) {
	requireArmA(t)
	in := filepath.Join(t.TempDir(), "bundle")
	for _, f := range []string{"main.mlirb", "main.hash", "metadata.json"} {
		b, err := os.ReadFile(filepath.Join(rwArmA, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(in, "m.aimodel"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, "m.aimodel", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(in, "tokenizer"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"metadata.json":            "{\n  \"metadata_version\" : \"0.2\",\n  \"kind\": \"llm\", \"assets\":{\"main\":\"m.aimodel\"}}",
		"tokenizer/tokenizer.json": `{"tok":1}`,
	}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(in, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "fixed")
	if code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for f, s := range files {
		if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || string(b) != s {
			t.Errorf("%s not carried over: %q %v", f, b, err)
		}
	}
	var rec struct {
		States []any `json:"states"`
	}
	rwReadJSON(t, filepath.Join(out, "m.aimodel", bundle.RecordFile), &rec)
	if len(rec.States) != 2 {
		t.Errorf("asset %s: %+v", bundle.RecordFile, rec)
	}
	if a, b := rwRead(t, filepath.Join(rwArmA, "metadata.json")), rwRead(t, filepath.Join(out, "m.aimodel", "metadata.json")); a != b {
		t.Errorf("asset metadata.json changed:\n%s\nwas\n%s", b, a)
	}
	rwLoad(t, out)
}

// TestStripNumericsClaim keeps strip-fp32-casts' numerics paragraph in its
// documentation true: on synth arm A, measured by rewrite --verify (verify's
// default teacher-forced mode), the default (the blocker islands: the
// recurrence) and every island but the norms keep mean KL divergence and
// same-top-1 where the doc says; stripping every island (norms in fp16,
// which synth's massive residual channels overflow) raises the mean KL
// divergence more than 3× and lowers same-top-1. The
// doc quotes the mean KLD to two significant digits and same-top-1 to
// 0.1 %.
func TestStripNumericsClaim(t *testing.T) {
	requireArmA(t)
	p, _ := passes.Lookup("strip-fp32-casts")
	doc := strings.Join(strings.Fields(p.Doc), " ")
	kldRe := regexp.MustCompile(`mean KLD: (\S+) nats`)
	sameRe := regexp.MustCompile(`same top-1: ([0-9.]+) %`)
	cases := []struct {
		name string
		set  []string
	}{
		{"default", nil},
		{"islands=all", []string{"strip-fp32-casts.islands=all"}},
		{"islands=all keep-norms", []string{"strip-fp32-casts.islands=all", "strip-fp32-casts.keep-norms=true"}},
	}
	kld := map[string]float64{}
	same := map[string]float64{}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "v.aimodel")
		args := []string{"rewrite", rwArmA, "-o", out, "--verify"}
		for _, s := range c.set {
			args = append(args, "--set", s)
		}
		code, stdout, stderr := runCLI(t, "", args...)
		k, s := kldRe.FindStringSubmatch(stdout+stderr), sameRe.FindStringSubmatch(stdout+stderr)
		if (code != exitOK && code != exitGate) || k == nil || s == nil {
			t.Fatalf("%s --verify: exit %d, want 0 or 3 (a gate) and the teacher-forced figures:\n%s", c.name, code, stdout+stderr)
		}
		kld[c.name], _ = strconv.ParseFloat(k[1], 64)
		same[c.name], _ = strconv.ParseFloat(s[1], 64)
		quote := strings.Replace(strconv.FormatFloat(kld[c.name], 'g', 2, 64), "e-0", "e-", 1)
		if !strings.Contains(doc, quote+" nats") || !strings.Contains(doc, fmt.Sprintf("%.1f %%", same[c.name])) {
			t.Errorf("strip-fp32-casts doc no longer quotes %s: mean KLD %s nats, same top-1 %.1f %%", c.name, quote, same[c.name])
		}
	}
	if kld["islands=all"] < 3*kld["default"] || same["islands=all"] >= same["default"] {
		t.Errorf("islands=all (norms in fp16) no worse than the default: mean KLD %g vs %g, same top-1 %g vs %g %%", kld["islands=all"], kld["default"], same["islands=all"], same["default"])
	}
}

// TestRewriteReportDeterministic: without --timings the report, the
// summary on stderr and the output are the same bytes on every run (the
// report used to carry wall times); with --timings the times are there, in
// the report and the summary.
func TestRewriteReportDeterministic(t *testing.T) {
	run := func(extra ...string) (report, summary, output string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "o.mlir")
		args := append([]string{"rewrite", "../../testdata/passes/strip-fp32-casts.mlir", "-o", out, "--json"}, extra...)
		code, stdout, stderr := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// The output path differs between runs; everything else must not.
		return strings.ReplaceAll(stdout, out, "OUT"), strings.ReplaceAll(stderr, out, "OUT"), string(b)
	}
	r0, s0, o0 := run()
	r1, s1, o1 := run()
	if r0 != r1 {
		t.Errorf("reports differ:\n%s\n---\n%s", r0, r1)
	}
	if s0 != s1 {
		t.Errorf("summaries differ:\n%s\n---\n%s", s0, s1)
	}
	if o0 != o1 {
		t.Error("outputs differ")
	}
	if regexp.MustCompile(`Ns": "[^0]`).MatchString(r0) {
		t.Errorf("timings in the report without --timings (they are \"0\"):\n%s", r0)
	}
	rt, st, _ := run("--timings")
	for _, k := range []string{`"readNs"`, `"pipelineNs"`, `"writeNs"`, `"durationNs"`} {
		if !regexp.MustCompile(k + `: "[1-9]`).MatchString(rt) {
			t.Errorf("--timings: no %s above 0 in the report:\n%s", k, rt)
		}
	}
	if !regexp.MustCompile(`(?m) \([0-9.]+(ns|µs|ms|s)\)$`).MatchString(st) {
		t.Errorf("--timings: no wall time in the summary:\n%s", st)
	}
}

// TestReportCountsAreNumbers: counts are int32 in the schema, so protojson
// prints them as JSON numbers (as int64 they were strings, "count": "18");
// sizes stay int64, which protojson prints as strings.
func TestReportCountsAreNumbers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.aimodel")
	code, stdout, stderr := runCLI(t, "", "rewrite", "../../testdata/passes/strip-fp32-casts.mlir", "-o", out, "--emit", "bytecode", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, istdout, istderr := runCLI(t, "", "inspect", "../../testdata/passes/strip-fp32-casts.mlir", "--json")
	_, cstdout, cstderr := runCLI(t, "", "check", "../../testdata/passes/strip-fp32-casts.mlir", "--json")
	counts := map[string]bool{"count": true, "opsRemoved": true, "opsAdded": true, "opsRetyped": true, "opTotal": true,
		"ops": true, "opsIllegal": true, "opsExempt": true, "index": true, "elements": true, "overflow": true, "underflow": true}
	sizes := map[string]bool{"outputSize": true, "bytes": true, "size": true}
	for name, js := range map[string]string{"rewrite": stdout, "inspect": istdout + istderr, "check": cstdout + cstderr} {
		var v any
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatalf("%s --json: %v\n%s", name, err, js)
		}
		seen := 0
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					// "ops" is also a list of op refs elsewhere: scalars only.
					if _, list := e.([]any); counts[k] && !list {
						seen++
						if _, ok := e.(float64); !ok {
							t.Errorf("%s: %q is %T (%v), want a JSON number", name, k, e, e)
						}
					}
					if sizes[k] {
						if _, ok := e.(string); !ok {
							t.Errorf("%s: size %q is %T, want the int64 string form", name, k, e)
						}
					}
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
		if seen == 0 {
			t.Errorf("%s: no count field in the report, so the test checks nothing:\n%s", name, js)
		}
	}
}

func TestRewriteExistingOutput(t *testing.T) {
	in := "../../testdata/passes/fold-casts.mlir"
	out := filepath.Join(t.TempDir(), "o.mlir")
	if err := os.WriteFile(out, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out)
	if b, _ := os.ReadFile(out); code != exitFailure || !strings.Contains(stderr, "--force") || string(b) != "keep me" {
		t.Errorf("existing output: exit %d, stderr %q, file %q", code, stderr, b)
	}
	if code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out, "--force"); code != exitOK {
		t.Errorf("--force: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "coreai.graph") {
		t.Errorf("--force did not replace the output: %q", b)
	}
}

// --report is a second output: it must never land on the input or the
// output, nor replace a file without --force; all of this is found before
// any work, so nothing is written.
func TestRewriteReportPathRefused(t *testing.T) {
	cases := []struct {
		name   string
		report func(in, dir, out string) string
		setup  func(t *testing.T, report string)
		want   string
	}{
		{name: "the input file", report: func(in, _, _ string) string { return in }, want: "into the input"},
		{name: "the output", report: func(_, _, out string) string { return out }, want: "is the output"},
		{name: "existing file", report: func(_, dir, _ string) string { return filepath.Join(dir, "old.json") },
			setup: func(t *testing.T, report string) {
				if err := os.WriteFile(report, []byte("keep me"), 0o644); err != nil {
					t.Fatal(err)
				}
			}, want: "--force"},
		{name: "missing directory", report: func(_, dir, _ string) string { return filepath.Join(dir, "no", "r.json") }, want: "does not exist"},
	}
	src, err := os.ReadFile("../../testdata/passes/fold-casts.mlir")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.mlir")
			if err := os.WriteFile(in, src, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.mlir")
			report := c.report(in, dir, out)
			if c.setup != nil {
				c.setup(t, report)
			}
			before := treeListing(t, dir)
			code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out, "--report", report)
			if code != exitFailure || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 1 and %q in stderr %q", code, c.want, stderr)
			}
			if after := treeListing(t, dir); after != before {
				t.Errorf("files changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
	// The input of a bundle: a report inside it is refused too.
	dir := t.TempDir()
	in := filepath.Join(dir, "m.aimodel")
	copyDir(t, rwArmA, in)
	code, _, stderr := runCLI(t, "", "rewrite", in, "--dry-run", "--report", filepath.Join(in, "r.json"))
	if code != exitFailure || !strings.Contains(stderr, "into the input") {
		t.Errorf("report inside the input bundle: exit %d %q", code, stderr)
	}
	// --force replaces an old report.
	report := filepath.Join(dir, "r.json")
	if err := os.WriteFile(report, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "rewrite", in, "--dry-run", "--report", report, "--force"); code != exitOK {
		t.Errorf("--force: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), `"dryRun": true`) {
		t.Errorf("--force did not replace the report: %.200s", b)
	}
	// "-" is not stdout for --report (that is --json): a usage error, not a
	// file named "-".
	abs := rwAbs(t)
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "", "rewrite", abs, "--dry-run", "--report", "-"); code != exitUsage || !strings.Contains(stderr, "--json") {
		t.Errorf("--report -: exit %d %q", code, stderr)
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error(`--report - wrote a file named "-"`)
	}
}

// The summary of promote-states says which input became a state and that
// the output took the state's name, and never the reverse.
func TestRewriteSummaryStates(t *testing.T) {
	code, _, stderr := runCLI(t, "", "rewrite", rwArmA, "--dry-run")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"@main input conv_state: became state conv_state", true},
		{"@main output new_conv_state: renamed to conv_state", true},
		{"@main input rec_state: became state rec_state", true},
		{"state conv_state → new_conv_state", false},
		{"state rec_state → new_rec_state", false},
	} {
		if strings.Contains(stderr, c.text) != c.want {
			t.Errorf("summary contains %q: %v, want %v\n%s", c.text, !c.want, c.want, stderr)
		}
	}
}

// When a pass fails there is no census after the pipeline; the summary
// shows the input's census instead of "f16 4→0".
func TestRewriteFailureCensus(t *testing.T) {
	cases := []struct{ name, src, want, set string }{
		// A pair the user names (the names alone would only note it).
		{"state pair types differ", `module {
  coreai.graph @main(%x: tensor<2xf16> {coreai.name = "x"}, %s: tensor<2xf16> {coreai.name = "conv_state"}) -> (tensor<2xf16> {coreai.name = "y"}, tensor<3xf16> {coreai.name = "new_conv_state"}) {
    %0 = coreai.exp %x : tensor<2xf16> -> tensor<2xf16>
    %c = coreai.constant dense<1.0> : tensor<3xf16>
    coreai.output %0, %c : tensor<2xf16>, tensor<3xf16>
  }
}
`, "pass promote-states", "states.pairs=conv_state=new_conv_state"},
		{"constant overflows fp16", `module {
  coreai.graph @main(%x: tensor<2xf16>) -> tensor<2xf16> {
    %c = coreai.constant dense<[1.0, 1.0e+06]> : tensor<2xf32>
    %0 = coreai.cast %x : tensor<2xf16> to tensor<2xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = coreai.cast %1 : tensor<2xf32> to tensor<2xf16>
    coreai.output %2 : tensor<2xf16>
  }
}
`, "pass strip-fp32-casts", "states.auto=true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.mlir")
			if err := os.WriteFile(in, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "", "rewrite", in, "--dry-run", "--set", "strip-fp32-casts.islands=all", "--set", c.set)
			if code != exitFailure || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if strings.Contains(stderr, "→0") || !strings.Contains(stderr, "values by element type in the input (the pipeline stopped): f16 ") {
				t.Errorf("census line wrong:\n%s", stderr)
			}
		})
	}
}

// appleMetadata is an .aimodel metadata.json as Apple's coreai-core writes
// it: `"key" : "value"` spacing, no final newline (the compiled packages in
// ../shared/corpus are spelled this way; this one is typed after them).
const appleMetadata = "{\n  \"producer\" : \"coreai-core 1.0.0b2\",\n  \"assetVersion\" : \"2.0\",\n  \"creationDate\" : \"20260706T220735Z\"\n}"

// TestRewriteAppleAIModel: an .aimodel with a raw main.hash and Apple's
// metadata.json (synth arm A with Apple-style metadata bytes) rewrites into
// one whose main.hash is the raw SHA-256 of the new main.mlirb and whose
// metadata.json is byte-identical; a hex main.hash stays hex. A metadata.json
// anefix cannot parse is not anefix's to judge: it is carried over too.
func TestRewriteAppleAIModel(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		hex        bool
	}{
		{"apple metadata, raw hash", appleMetadata, false},
		{"apple metadata, hex hash", appleMetadata, true},
		{"metadata not JSON", "{broken", false},
		{"metadata an array", "[1, 2]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "m.aimodel")
			copyDir(t, rwArmA, in)
			if err := os.WriteFile(filepath.Join(in, "metadata.json"), []byte(tc.meta), 0o644); err != nil {
				t.Fatal(err)
			}
			inMain := rwRead(t, filepath.Join(in, "main.mlirb"))
			inSum := sha256.Sum256([]byte(inMain))
			if h := rwRead(t, filepath.Join(in, "main.hash")); h != string(inSum[:]) {
				t.Fatalf("shipped arm A's main.hash is not the raw digest: %x", h)
			}
			if tc.hex {
				if err := os.WriteFile(filepath.Join(in, "main.hash"), []byte(hex.EncodeToString(inSum[:])), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, "o.aimodel")
			if code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			main := rwRead(t, filepath.Join(out, "main.mlirb"))
			if main == inMain {
				t.Fatal("the rewrite changed nothing: the test proves nothing")
			}
			sum := sha256.Sum256([]byte(main))
			want := string(sum[:])
			if tc.hex {
				want = hex.EncodeToString(sum[:])
			}
			if h := rwRead(t, filepath.Join(out, "main.hash")); h != want {
				t.Errorf("main.hash %q, want %q", h, want)
			}
			if m := rwRead(t, filepath.Join(out, "metadata.json")); m != tc.meta {
				t.Errorf("metadata.json %q, want Apple's bytes %q", m, tc.meta)
			}
			var rec struct{ Passes []string }
			rwReadJSON(t, filepath.Join(out, bundle.RecordFile), &rec)
			if len(rec.Passes) == 0 {
				t.Errorf("%s records no passes", bundle.RecordFile)
			}
			// The output reads back (its own hash verifies) and rewrites
			// again over itself with --force.
			if code, _, stderr := runCLI(t, "", "inspect", out); code != exitOK {
				t.Errorf("inspect of the output: exit %d: %s", code, stderr)
			}
			if code, _, stderr := runCLI(t, "", "rewrite", in, "-o", out, "--force"); code != exitOK {
				t.Errorf("rewrite --force over the previous output: exit %d: %s", code, stderr)
			}
		})
	}
}

// rwAbs is rwArmA as an absolute path (for tests that change directory).
func rwAbs(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(rwArmA)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A --set for a pass that is not in the pipeline says how to add it: to the
// --passes list, or with --enable (also under --arm-d, which takes no
// --passes).
func TestRewriteSetHint(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--passes", "dce", "--set", "strip-fp32-casts.clamp=true"}, "(add it to --passes)"},
		{[]string{"--arm-d", "--set", "strip-fp32-casts.clamp=true"}, "(add it with --enable strip-fp32-casts)"},
		{[]string{"--set", "arm-d.prune=false"}, "(add it with --enable arm-d)"},
	}
	for _, c := range cases {
		args := append([]string{"rewrite", rwArmA, "--dry-run"}, c.args...)
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q; stderr %q", c.args, code, c.want, stderr)
		}
	}
}

// rewrite writes the bytecode version asked for, and mlir-opt reads it.
func TestRewriteBytecodeVersion(t *testing.T) {
	mlirOpt := oracle.MlirOpt(t)
	dir := t.TempDir()
	for _, v := range []string{"3", "6"} {
		out := filepath.Join(dir, "v"+v+".mlirb")
		if code, _, stderr := runCLI(t, "", "rewrite", rwArmA, "-o", out, "--bytecode-version", v); code != exitOK {
			t.Fatalf("--bytecode-version %s: exit %d: %s", v, code, stderr)
		}
		b, err := os.ReadFile(out)
		// The version follows the magic as a PrefixVarInt: one byte (v<<1)|1.
		if err != nil || len(b) < 5 || b[4] != (v[0]-'0')<<1|1 {
			t.Fatalf("v%s: version byte %v, err %v", v, b[:5], err)
		}
		if _, err := oracle.RunMlirOpt(mlirOpt, "", out, "-o", os.DevNull); err != nil {
			t.Fatalf("mlir-opt cannot read v%s output: %v", v, err)
		}
	}
	for _, args := range [][]string{
		{"rewrite", rwArmA, "-o", filepath.Join(dir, "x.mlirb"), "--bytecode-version", "9"},
		{"rewrite", rwArmA, "-o", filepath.Join(dir, "x.mlir"), "--bytecode-version", "5"},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// A mistyped option value is a usage error (exit 2) and writes nothing:
// enum values when the pipeline is built, an islands pattern that matches
// no op of the model when strip-fp32-casts sees it (issue 20:
// islands=alll was accepted with a note and retyped nothing).
func TestRewriteRefusesMistypedOptions(t *testing.T) {
	cases := []struct {
		set  string
		code int
		want []string
	}{
		{"strip-fp32-casts.islands=alll", exitUsage, []string{`"alll" is not a keyword`, "matches no op id or source", "(valid: blockers, norms, all)"}},
		{"strip-fp32-casts.exclude=*qwen3_5.py:1999*", exitUsage, []string{`exclude pattern "*qwen3_5.py:1999*" matches no op id or source`}},
		{"promote-states.form=handles", exitUsage, []string{`"handles" is not auto, attribute or handle`}},
		{"fold-io-unsqueeze.other-users=reshap", exitUsage, []string{`"reshap" is not reshape or skip`}},
		{"strip-fp32-casts.islands=*qwen3_5.py:199*", exitOK, nil},
	}
	for _, c := range cases {
		t.Run(c.set, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.aimodel")
			code, _, errs := runCLI(t, "", "rewrite", filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), "-o", out, "--set", c.set)
			if code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", code, c.code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if _, err := os.Lstat(out); (err == nil) != (c.code == exitOK) {
				t.Errorf("output written: %v, exit %d", err == nil, code)
			}
		})
	}
}

// Rewriting a rewrite's output changes nothing, byte for byte, in every
// file of the bundle: the model (the pipeline reached its fixpoint the first
// time) and anefix.json (which keeps the first run's changes: a host still
// learns them), except that anefix.json's pipelines gain the second run's
// (the record is the history that reproduces the model from the export).
func TestRewriteTwiceIdentical(t *testing.T) {
	arms, _ := filepath.Glob("../../testdata/synth/*.aimodel")
	if len(arms) == 0 {
		t.Fatal("no committed testdata/synth/*.aimodel")
	}
	for _, arm := range arms {
		t.Run(filepath.Base(arm), func(t *testing.T) {
			dir := t.TempDir()
			x, y := filepath.Join(dir, "x.aimodel"), filepath.Join(dir, "y.aimodel")
			if code, _, stderr := runCLI(t, "", "rewrite", arm, "-o", x); code != exitOK {
				t.Fatalf("first rewrite: exit %d: %s", code, stderr)
			}
			if code, _, stderr := runCLI(t, "", "rewrite", x, "-o", y); code != exitOK {
				t.Fatalf("second rewrite: exit %d: %s", code, stderr)
			}
			files, _ := os.ReadDir(x)
			for _, f := range files {
				a, _ := os.ReadFile(filepath.Join(x, f.Name()))
				b, err := os.ReadFile(filepath.Join(y, f.Name()))
				if f.Name() == bundle.RecordFile {
					a, b = recordWithoutPipelines(t, a, 1), recordWithoutPipelines(t, b, 2)
				}
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s differs after a second rewrite (%v)", f.Name(), err)
				}
			}
		})
	}
}

// recordWithoutPipelines is anefix.json with its pipelines (want many, all
// the same default pipeline) left out.
func recordWithoutPipelines(t *testing.T, b []byte, want int) []byte {
	t.Helper()
	var r record.Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Pipelines) != want || r.Pipelines[0] != r.Pipelines[len(r.Pipelines)-1] {
		t.Errorf("pipelines %q, want %d times the same", r.Pipelines, want)
	}
	r.Pipelines = nil
	out, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
