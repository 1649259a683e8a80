package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/passes/ane/compiler"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// The compiler in these tests is testdata/compiler/fake-coreai-build.sh, a
// STAND-IN that writes an .aimodelc tree and a typed log; nothing here
// measures the real coreai-build.

func standIn(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "compiler", "fake-coreai-build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var armAPath = filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")

func TestCompileNoCompiler(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(compiler.EnvCompiler, "")
	code, out, errs := runCLI(t, "", "compile", armAPath)
	if code != exitNoCompiler || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "anefix check") || !strings.Contains(errs, "not available") {
		t.Errorf("want one line pointing at anefix check, got %q", errs)
	}
	// rewrite --compile says the same.
	dst := filepath.Join(t.TempDir(), "out.aimodel")
	code, _, errs = runCLI(t, "", "rewrite", armAPath, "-o", dst, "--compile")
	if code != exitNoCompiler || !strings.Contains(errs, "anefix check") {
		t.Errorf("rewrite --compile without compiler: exit %d, %q", code, errs)
	}
}

func TestCompileFallback(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "fallback")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"0 measured", "predicted 0 for 1 function(s)", "GPU only", "not xcrun coreai-build",
		"ANECCompileOffline() failed x1", "ErrorList empty", "3 element-type, 3 I/O op, 1 reordering",
		"element-type: Incompatible element type for ANE", "-> fold-io-unsqueeze",
		// The typed log comes from the real model, whose op ids name other ops
		// in the synth graph: none of its 6 citations is a predicted op.
		"6 op(s) cited but not predicted, 19 predicted but not cited"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, _, errs = runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--require-ane")
	if code != exitGate || !strings.Contains(errs, "requirement not met") {
		t.Errorf("--require-ane on a fallback: exit %d %q", code, errs)
	}
	code, out, _ = runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--json")
	var rep struct {
		Regions, RegionsPredicted, Functions, ElementTypeWarnings int
		Failures                                                  []struct {
			AneCompileStatus string
			RegionFunction   string
		}
		Groups []struct{ Rule string }
	}
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if rep.Regions != 0 || rep.Functions != 1 || rep.ElementTypeWarnings != 3 || len(rep.Failures) != 1 ||
		rep.Failures[0].AneCompileStatus != "1" || len(rep.Groups) == 0 {
		t.Errorf("--json report: %+v", rep)
	}
}

func TestCompileANE(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "ane")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	keep := filepath.Join(t.TempDir(), "build")
	code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--require-ane", "--keep", keep)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, "1 measured") || !strings.Contains(out, "requirement --require-ane") || !strings.Contains(out, ": met") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(keep, "armA.coreai-build", "armA.h18p.aimodelc", "main-h18p-delegates", "MPSGraph", "mpsExecutable.mpsgraphpackage",
		"binary_0.llir.bundle", "fn0_0_ANE_region_0_0.bc")); err != nil {
		t.Errorf("--keep did not keep the .aimodelc: %v", err)
	}
	if _, err := os.Stat(filepath.Join(keep, "armA.coreai-build.log")); err != nil {
		t.Errorf("--keep did not keep the log: %v", err)
	}
	// Compiling into the same --keep again refuses instead of mixing outputs.
	code, _, errs = runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--keep", keep)
	if code != exitFailure || !strings.Contains(errs, "already exists") {
		t.Errorf("second --keep: exit %d %q", code, errs)
	}
	code, _, _ = runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--min-regions", "2")
	if code != exitGate {
		t.Errorf("--min-regions 2 with 1 region: exit %d", code)
	}
	// Text input is written into a temporary .aimodel for the compiler.
	txt := filepath.Join("..", "..", "testdata", "mlir", "generic", "hybrid_layer.mlir")
	code, out, errs = runCLI(t, "", "compile", txt, "--compiler", standIn(t))
	if code != exitOK || !strings.Contains(out, "hybrid_layer.aimodel") {
		t.Errorf("text input: exit %d %s\n%s", code, errs, out)
	}
}

func TestCompileCrash(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "crash")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t))
	if code != exitFailure || !strings.Contains(errs, "exited with status 139") || !strings.Contains(out, "exit status 139") {
		t.Errorf("crash: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

// A message no rule knows is shown as the compiler printed it, in the text
// and in --json (issue 20: the stand-in's bf16 error, a message typed from
// a public report, reached the user as "its log is summarized above" with
// nothing above).
func TestCompileShowsUnclassified(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "bf16")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	lines := []string{"Incompatible element type for parameter at index 0,", "mlir module expected element type bf16 but received f16"}
	code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t))
	if code != exitFailure || !strings.Contains(errs, "exited with status 1; its log is shown above") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "Compiler output no rule classifies (2 line(s)), as printed:") ||
		!strings.Contains(out, "stderr:1: "+lines[0]) || !strings.Contains(out, "stderr:2: "+lines[1]) {
		t.Errorf("text output does not show the message:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--json")
	var rep pb.CompileReport
	if code != exitFailure || protojson.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if rep.UnclassifiedLines != 2 || len(rep.Unclassified) != 2 || rep.UnclassifiedNotKept != 0 {
		t.Fatalf("--json unclassified: %d lines, %v", rep.UnclassifiedLines, rep.Unclassified)
	}
	for i, l := range rep.Unclassified {
		if l.Line != int32(i+1) || l.Text != lines[i] || l.Count != 1 {
			t.Errorf("--json line %d: %v", i, l)
		}
	}
	// rewrite --compile prints a one-line summary; a failed compile shows
	// its report too.
	t.Setenv(compiler.EnvCompiler, standIn(t))
	code, _, errs = runCLI(t, "", "rewrite", armAPath, "-o", filepath.Join(t.TempDir(), "out.aimodel"), "--compile")
	if code != exitFailure || !strings.Contains(errs, "stderr:2: "+lines[1]) || !strings.Contains(errs, "its report is shown above") {
		t.Errorf("rewrite --compile: exit %d, stderr:\n%s", code, errs)
	}
}

// Repeated and excess noise is folded and bounded in the text, saying how
// many lines were left out.
func TestCompileTextUnclassifiedBounded(t *testing.T) {
	r := &pb.CompileReport{Input: &pb.Input{Path: "x.aimodel"}, UnclassifiedLines: 1003, UnclassifiedNotKept: 700,
		Unclassified: []*pb.LogLine{{Line: 3, Text: "noise", Count: 300}, {Line: 4, Text: "other", Count: 3}}}
	var b strings.Builder
	if err := writeCompileText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(1003 line(s), 2 distinct)", "stderr:3 (x300): noise", "stderr:4 (x3): other", "700 more line(s) not shown"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRewriteCompile(t *testing.T) {
	t.Setenv(compiler.EnvCompiler, standIn(t))
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "out.aimodel")
	dst := filepath.Join(t.TempDir(), "out.aimodel")
	code, out, errs := runCLI(t, "", "rewrite", armAPath, "-o", dst, "--compile")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A report: on stdout (rewriteFlags.reportWriter).
	if !strings.Contains(out, "ANE regions before -> after: 0 -> 1 measured (predicted 0 -> 1, 1 function(s))") {
		t.Errorf("stdout: %s\nstderr: %s", out, errs)
	}
}

func TestCompilePerFunction(t *testing.T) {
	armE := filepath.Join("..", "..", "testdata", "synth", "armE.aimodel")
	var names []string
	for _, ctx := range []string{"256", "512", "1024"} {
		for _, q := range []string{"8", "16", "64"} {
			names = append(names, "extend_"+ctx+"_"+q, "prompt_opt_"+ctx+"_"+q)
		}
	}
	// Every function but gather_embeddings_64 gets a region.
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "ane")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	t.Setenv("FAKE_COREAI_BUILD_REGIONS", strings.Join(names, " "))
	code, out, errs := runCLI(t, "", "compile", armE, "--compiler", standIn(t), "--require-ane")
	if code != exitGate || !strings.Contains(errs, "measured 18 ANE region(s)") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, "differ for 1 function(s):\n    @gather_embeddings_64: 0 region(s), predicted legal") {
		t.Errorf("per-function comparison missing:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "compile", armE, "--compiler", standIn(t), "--json")
	var rep struct {
		PerFunction []struct {
			Name           string
			Regions        int
			PredictedLegal bool
		}
	}
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.PerFunction) != 19 {
		t.Fatalf("--json: exit %d, %d functions", code, len(rep.PerFunction))
	}
	for _, f := range rep.PerFunction {
		want := 1
		if f.Name == "gather_embeddings_64" {
			want = 0
		}
		if f.Regions != want || !f.PredictedLegal {
			t.Errorf("%+v", f)
		}
	}
}

// The count the issue asked for: a stand-in compiled tree with two ANE region
// directories (each holding a binary and a weights file) counts two, where
// counting every entry named *ANE_region* (the old way, and the seed note's
// find | wc -l) gives six.
func TestCompileCountsEachRegionOnce(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "ane")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	t.Setenv("FAKE_COREAI_BUILD_ANE_REGIONS", "2")
	keep := filepath.Join(t.TempDir(), "build")
	code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--keep", keep, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	var rep struct {
		Regions      int
		RegionsKnown bool
		RegionFiles  []string
		Compiled     struct {
			Functions []struct {
				AneRegions *int
				GpuRegions *int
				FullyOnAne *bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Regions != 2 || !rep.RegionsKnown || len(rep.RegionFiles) != 2 || len(rep.Compiled.Functions) != 1 {
		t.Fatalf("want 2 known regions in 2 directories, got %+v", rep)
	}
	f := rep.Compiled.Functions[0]
	if f.AneRegions == nil || *f.AneRegions != 2 || f.GpuRegions == nil || *f.GpuRegions != 0 || f.FullyOnAne == nil || !*f.FullyOnAne {
		t.Errorf("function: %+v", f)
	}
	naive := 0
	filepath.WalkDir(keep, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "ANE_region") {
			naive++
		}
		return nil
	})
	if naive != 6 {
		t.Errorf("entries named *ANE_region*: %d, want 6 (2 directories, 2 binaries, 2 weights files)", naive)
	}
}

// A --keep directory outlives one compile: regions counted must be this
// compile's only, and the directory must not lie inside the input.
func TestCompileKeepDirectory(t *testing.T) {
	armE := filepath.Join("..", "..", "testdata", "synth", "armE.aimodel")
	t.Run("earlier compile's regions are not counted", func(t *testing.T) {
		keep := t.TempDir()
		t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "armE")
		t.Setenv("FAKE_COREAI_BUILD_FUNCTIONS", "19")
		cases := []struct {
			in   string
			want string
		}{
			{armE, "19 measured"},
			{armAPath, "0 measured"}, // fallback, next to armE.aimodelc's 19 regions
		}
		for _, c := range cases {
			code, out, errs := runCLI(t, "", "compile", c.in, "--compiler", standIn(t), "--keep", keep)
			if code != exitOK || !strings.Contains(out, c.want) {
				t.Errorf("compile %s --keep: exit %d, want %q in:\n%s%s", c.in, code, c.want, out, errs)
			}
		}
	})
	t.Run("keep inside the input is refused", func(t *testing.T) {
		in := filepath.Join(t.TempDir(), "m.aimodel")
		copyDir(t, armAPath, in)
		before := treeListing(t, in)
		for _, keep := range []string{in, filepath.Join(in, "build")} {
			code, _, errs := runCLI(t, "", "compile", in, "--compiler", standIn(t), "--keep", keep)
			if code != exitFailure || !strings.Contains(errs, "inside the input") {
				t.Errorf("--keep %s: exit %d, stderr %q", keep, code, errs)
			}
			if after := treeListing(t, in); after != before {
				t.Errorf("--keep %s changed the input:\n%s\nwas\n%s", keep, after, before)
			}
		}
	})
}

// treeListing names every file under dir with its size and a digest.
func treeListing(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			fmt.Fprintf(&sb, "%s/\n", rel)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "%s %d %x\n", rel, len(b), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// A count the .aimodelc does not settle is shown as unknown, not a number.
func TestCompileTextUnknownRegions(t *testing.T) {
	var b strings.Builder
	if err := writeCompileText(&b, &pb.CompileReport{Command: []string{"cc"}, Input: &pb.Input{Path: "m"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ANE regions: UNKNOWN") {
		t.Errorf("an unknown count is not shown as unknown:\n%s", b.String())
	}
}

// compile --architecture: the prediction printed beside the measurement is
// the rule model's for the architecture the compiler runs for (arm A:
// check --architecture's count), and an architecture without a region
// model gets none rather than h18p's. The compiler is the stand-in.
func TestCompilePredictsForItsArchitecture(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "fallback")
	for _, arch := range []string{"h18p", "h16g", "h99x"} {
		r, _ := checkJSON(t, armAPath, "--architecture", arch)
		want := "anefix check has no region model for h99x"
		if r.PredictedRegions != nil {
			want = fmt.Sprintf("anefix check predicted %d for 1 function(s) on %s", *r.PredictedRegions, arch)
		}
		code, out, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--architecture", arch)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", arch, code, errs)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: output lacks %q:\n%s", arch, want, out)
		}
	}
}
