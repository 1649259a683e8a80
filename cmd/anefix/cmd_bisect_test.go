package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// standinEnv returns "ANEFIX=… " for a test command: a wrapper that runs
// this test binary as anefix (TestMain's envRunMain), so the stand-in
// scripts in testdata/search can call `anefix inspect` without a build.
func standinEnv(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(t.TempDir(), "anefix")
	script := "#!/bin/sh\n" + envRunMain + "=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(w, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "ANEFIX='" + w + "' "
}

// fixedArmA is `anefix rewrite testdata/synth/armA.aimodel` (the default
// pipeline) written into a temporary directory.
func fixedArmA(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fixed.aimodel")
	if code, _, errs := runCLI(t, "", "rewrite", "../../testdata/synth/armA.aimodel", "-o", out); code != 0 {
		t.Fatalf("rewrite: %d %s", code, errs)
	}
	return out
}

// twoExperiments is the stand-in that needs two experiments and the names
// of the two changes it needs: the head as an input and no f32.
func twoExperiments(t *testing.T) (test string, want []string) {
	script := "../../testdata/search/standin-needs-two-experiments.sh {}"
	// The tied table of synth arm A is tensor<256x32xf16>.
	return standinEnv(t) + script + " head 'tensor<256x32xf16>'", []string{"strip-fp32-casts islands=all", "externalize-constant"}
}

func bisectJSON(t *testing.T, args ...string) (int, *pb.BisectReport, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"bisect", "--json"}, args...)...)
	rep := &pb.BisectReport{}
	if out != "" {
		if err := protojson.Unmarshal([]byte(out), rep); err != nil {
			t.Fatalf("report: %v\n%s", err, out)
		}
	}
	return code, rep, errs
}

func minimalNames(rep *pb.BisectReport) []string {
	var out []string
	for _, c := range rep.Minimal {
		out = append(out, changeName(c))
	}
	return out
}

// Done-when: bisect on the default rewrite of synth arm A with the
// two-experiment stand-in names exactly those two; a rerun with the same
// cache starts no test command; -j 2 gives the same report but for times.
func TestBisectArmA(t *testing.T) {
	fixed := fixedArmA(t)
	before := dirBytes(t, fixed)
	test, want := twoExperiments(t)
	cache := t.TempDir()
	code, rep, errs := bisectJSON(t, fixed, "--test", test, "--cache", cache)
	if dirBytes(t, fixed) != before {
		t.Error("input modified")
	}
	if code != 0 || rep.Result != "minimal" {
		t.Fatalf("exit %d, result %q: %s %s", code, rep.Result, rep.Message, errs)
	}
	got := minimalNames(rep)
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("minimal %q, want %q", got, want)
	}
	noAlternativesTogether(t, rep)
	t.Logf("search space: %d coarse changes (2^%d subsets), %d with the fine ones; probes: %d (%d run, %d cached)",
		rep.CoarseChanges, rep.CoarseChanges, rep.AllChanges, len(rep.Probes), rep.ProbesRun, rep.ProbesCached)
	if rep.ProbesRun == 0 || len(rep.Probes) < 3 {
		t.Errorf("%d probes", len(rep.Probes))
	}
	if p := rep.Probes[0]; len(p.Changes) != 0 || p.Outcome != pb.ProbeOutcome_BAD {
		t.Errorf("first probe %v: want the input unchanged, bad", p)
	}

	// Rerun: every answer from the cache.
	code2, rep2, _ := bisectJSON(t, fixed, "--test", test, "--cache", cache)
	if code2 != 0 || rep2.ProbesRun != 0 || rep2.ProbesCached != int32(len(rep.Probes)) {
		t.Errorf("rerun: exit %d, %d run, %d cached (first run %d probes)", code2, rep2.ProbesRun, rep2.ProbesCached, len(rep.Probes))
	}

	// -j 2 with a fresh cache: the same report apart from the times.
	_, rep3, _ := bisectJSON(t, fixed, "--test", test, "--cache", t.TempDir(), "-j", "2")
	if a, b := untimed(t, rep), untimed(t, rep3); a != b {
		t.Errorf("-j 2 report differs:\n%s\n%s", a, b)
	}
}

func untimed(t *testing.T, rep *pb.BisectReport) string {
	for _, p := range rep.Probes {
		p.Seconds = 0
	}
	b, err := protojson.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Exit codes by what the test command says everywhere.
func TestBisectExits(t *testing.T) {
	fixed := fixedArmA(t)
	cases := []struct {
		name   string
		test   string
		args   []string
		code   int
		result string
		probes int // -1: any
		first  pb.ProbeOutcome
	}{
		// The first batch: the input unchanged and each largest set with
		// one value per option (two on arm A: islands=norms, islands=all).
		{"input good", "true {}", nil, exitGate, "input-good", 3, pb.ProbeOutcome_GOOD},
		{"all bad", "false {}", nil, exitGate, "all-bad", 3, pb.ProbeOutcome_BAD},
		// Cannot tell on every set: the search splits down to single
		// changes before it gives up.
		{"all skip", "exit 125 {}", nil, exitGate, "all-skip", -1, pb.ProbeOutcome_SKIP},
		// Exit 4 stops at once: the second probe of the batch never runs.
		{"no compiler", "exit 4 {}", nil, exitNoCompiler, "no-compiler", 1, pb.ProbeOutcome_NO_COMPILER},
		// --max-probes 1: the unchanged input is answered, the full set never.
		{"budget", "false {}", []string{"--max-probes", "1"}, exitGate, "budget", 1, pb.ProbeOutcome_BAD},
		{"timeout", "sleep 30; : {}", []string{"--probe-timeout", "100ms"}, exitGate, "all-skip", -1, pb.ProbeOutcome_TIMEOUT},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{fixed, "--test", c.test, "--cache", t.TempDir()}, c.args...)
			code, rep, errs := bisectJSON(t, args...)
			if code != c.code || rep.Result != c.result {
				t.Fatalf("exit %d result %q, want %d %q: %s", code, rep.Result, c.code, c.result, errs)
			}
			if c.probes >= 0 && len(rep.Probes) != c.probes || c.probes < 0 && len(rep.Probes) <= int(rep.CoarseChanges) || rep.Probes[0].Outcome != c.first {
				t.Errorf("%d probes %v", len(rep.Probes), rep.Probes)
			}
			noAlternativesTogether(t, rep)
			if len(rep.Minimal) != 0 {
				t.Errorf("minimal %v without a minimal set", rep.Minimal)
			}
		})
	}
}

// noAlternativesTogether fails when a probe held two values of one option
// (strip-fp32-casts islands=norms and islands=all).
func noAlternativesTogether(t *testing.T, rep *pb.BisectReport) {
	t.Helper()
	idx := map[string]int32{}
	for _, c := range rep.Changes {
		idx[changeName(c)] = c.Index
	}
	norms, ok1 := idx["strip-fp32-casts islands=norms"]
	all, ok2 := idx["strip-fp32-casts islands=all"]
	if !ok1 || !ok2 {
		t.Fatalf("plan lacks the islands experiments: %v", idx)
	}
	for _, p := range rep.Probes {
		if slices.Contains(p.Changes, norms) && slices.Contains(p.Changes, all) {
			t.Errorf("probe {%s} holds islands=norms and islands=all", int32List(p.Changes))
		}
	}
}

// When every change together cannot be tested (here the stand-in cannot
// tell once softmax is gone, which every arm-d sdpa candidate is), bisect
// splits further, as ddmin does from an unresolved test, and finds the two
// changes the stand-in needs. Before, it gave up: "the test could not tell
// (skip) for every change together", exit 3. No candidate holds two values
// of one option.
func TestBisectUnionUntestable(t *testing.T) {
	fixed := fixedArmA(t)
	env := standinEnv(t)
	test := "if ! " + env + "../../testdata/search/standin-needs-op.sh {} coreai.softmax; then exit 125; fi; " +
		env + "../../testdata/search/standin-needs-two-experiments.sh {} head 'tensor<256x32xf16>'"
	code, rep, errs := bisectJSON(t, fixed, "--test", test, "--cache", t.TempDir())
	if code != 0 || rep.Result != "minimal" {
		t.Fatalf("exit %d %q: %s %s", code, rep.Result, rep.Message, errs)
	}
	if got := strings.Join(minimalNames(rep), "; "); got != "strip-fp32-casts islands=all; externalize-constant" {
		t.Errorf("minimal %s", got)
	}
	noAlternativesTogether(t, rep)
	t.Logf("%d probes (%d run)", len(rep.Probes), rep.ProbesRun)
}

// Probes answered 125 are recorded as skipped and the search goes on: here
// a candidate without softmax that still holds f32 cannot be told, and the
// minimal set is still found.
func TestBisectSkip(t *testing.T) {
	fixed := fixedArmA(t)
	env := standinEnv(t)
	skip := "if " + env + "../../testdata/search/standin-needs-op.sh {} coreai.softmax; then exit 1; fi; " +
		env + "../../testdata/search/standin-needs-two-experiments.sh {} softmax || exit 125"
	code, rep, errs := bisectJSON(t, fixed, "--test", skip, "--cache", t.TempDir())
	if code != 0 || rep.Result != "minimal" {
		t.Fatalf("exit %d %q %s", code, rep.Result, errs)
	}
	if got := strings.Join(minimalNames(rep), "; "); got != "strip-fp32-casts islands=all; arm-d replace=sdpa" {
		t.Errorf("minimal %s", got)
	}
	skips := 0
	for _, p := range rep.Probes {
		if p.Outcome == pb.ProbeOutcome_SKIP {
			skips++
		}
	}
	if skips == 0 {
		t.Error("no skipped probe recorded")
	}
	t.Logf("%d of %d probes skipped", skips, len(rep.Probes))
}

func TestBisectUsage(t *testing.T) {
	fixed := fixedArmA(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{fixed}, exitUsage, "--test CMD is required"},
		{[]string{fixed, "--test", "true"}, exitUsage, "has no {}"},
		{[]string{fixed, "--test", "true {}", "-j", "0"}, exitUsage, "-j"},
		{[]string{"-", "--test", "true {}"}, exitUsage, "not -"},
		{[]string{filepath.Join(t.TempDir(), "none.aimodel"), "--test", "true {}"}, exitFailure, "no such file"},
		{[]string{fixed, "--test", "true {}", "--cache", "x", "--no-cache"}, exitUsage, "exclude"},
	} {
		code, out, errs := runCLI(t, "", append([]string{"bisect"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d %q", c.args, code, out+errs)
		}
	}
}

// Done-when: reduce on tiny synth arm A with a stand-in that needs one op
// kind leaves at most a tenth of the ops, in a valid .aimodel that still
// holds the op; the input is untouched.
func TestReduceArmA(t *testing.T) {
	in := "../../testdata/synth/armA.aimodel"
	before := dirBytes(t, in)
	out := filepath.Join(t.TempDir(), "small.aimodel")
	test := standinEnv(t) + "../../testdata/search/standin-needs-op.sh {} coreai.softmax"
	code, stdout, errs := runCLI(t, "", "reduce", in, "--test", test, "-o", out, "--json", "--cache", t.TempDir(), "-j", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := &pb.ReduceReport{}
	if err := protojson.Unmarshal([]byte(stdout), rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("ops %d -> %d; %d steps; probes %d (%d run, %d cached)", rep.OpsBefore, rep.OpsAfter, len(rep.Removed), len(rep.Probes), rep.ProbesRun, rep.ProbesCached)
	if rep.OpsAfter*10 > rep.OpsBefore {
		t.Errorf("%d of %d ops left, want at most a tenth", rep.OpsAfter, rep.OpsBefore)
	}
	ld, err := modelio.Load(out, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	if err := graph.Verify(ld.Module); err != nil {
		t.Fatal(err)
	}
	if n := ld.Module.NumOps(); int64(n) != rep.OpsAfter {
		t.Errorf("output has %d ops, report says %d", n, rep.OpsAfter)
	}
	soft := 0
	for _, c := range rep.Remaining {
		if c.OpName == "coreai.softmax" {
			soft = int(c.Count)
		}
	}
	if soft == 0 {
		t.Error("softmax gone")
	}
	if dirBytes(t, in) != before {
		t.Error("input modified")
	}
	// The output exists now: without --force it is refused before any work.
	if code, _, errs := runCLI(t, "", "reduce", in, "--test", test, "-o", out, "--no-cache"); code != exitFailure || !strings.Contains(errs, "--force") {
		t.Errorf("existing output: exit %d %s", code, errs)
	}
	// A test that does not hold on the input: exit 3, no output.
	out2 := filepath.Join(t.TempDir(), "none.aimodel")
	if code, _, errs := runCLI(t, "", "reduce", in, "--test", "false {}", "-o", out2, "--no-cache"); code != exitGate || !strings.Contains(errs, "does not hold on the input") {
		t.Errorf("bad input test: exit %d %s", code, errs)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Error("output written for a test that does not hold")
	}
	// Writing into the input is refused.
	if code, _, _ := runCLI(t, "", "reduce", in, "--test", test, "-o", filepath.Join(in, "x.aimodel"), "--no-cache"); code != exitFailure {
		t.Errorf("output inside the input: exit %d", code)
	}
}

func dirBytes(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + "\x00" + string(data))
	}
	return b.String()
}

// reduce gives the same report (but for times) with -j 1 and -j 3, and a
// rerun with the same cache starts no test command.
func TestReduceJobsAndCache(t *testing.T) {
	in := "../../testdata/mlir/coreai/binary.mlir"
	test := standinEnv(t) + "../../testdata/search/standin-needs-op.sh {} coreai.decomposable.broadcasting_where"
	cache := t.TempDir()
	var reports []string
	for _, j := range []string{"1", "3", "1"} {
		c := cache
		if j == "3" {
			c = t.TempDir()
		}
		out := filepath.Join(t.TempDir(), "small.mlir")
		code, stdout, errs := runCLI(t, "", "reduce", in, "--test", test, "-o", out, "--json", "--cache", c, "-j", j)
		if code != 0 {
			t.Fatalf("-j %s: exit %d %s", j, code, errs)
		}
		rep := &pb.ReduceReport{}
		if err := protojson.Unmarshal([]byte(stdout), rep); err != nil {
			t.Fatal(err)
		}
		if len(reports) == 2 && (rep.ProbesRun != 0 || rep.ProbesCached == 0) {
			t.Errorf("rerun: %d run, %d cached", rep.ProbesRun, rep.ProbesCached)
		}
		for _, p := range rep.Probes {
			p.Seconds, p.Cached = 0, false
		}
		rep.ProbesRun, rep.ProbesCached, rep.Output = 0, 0, ""
		b, _ := protojson.Marshal(rep)
		reports = append(reports, string(b))
		t.Logf("-j %s: ops %d -> %d, %d probes", j, rep.OpsBefore, rep.OpsAfter, len(rep.Probes))
	}
	if reports[0] != reports[1] || reports[0] != reports[2] {
		t.Errorf("reports differ:\n%s\n%s\n%s", reports[0], reports[1], reports[2])
	}
}

// After the coarse search bisect narrows an arm-d kind to one region: a
// stand-in that needs one recurrence layer neutralized gets exactly one
// arm-d groups=N change.
func TestBisectNarrowsToRegion(t *testing.T) {
	fixed := fixedArmA(t)
	test := standinEnv(t) + "../../testdata/search/standin-at-most.sh {} coreai.log 2"
	code, rep, errs := bisectJSON(t, fixed, "--test", test, "--cache", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d %s %s", code, rep.Message, errs)
	}
	got := minimalNames(rep)
	if len(got) != 1 || got[0] != "arm-d groups=1 replace=recurrence" || rep.Minimal[0].Refines < 0 {
		t.Errorf("minimal %q", got)
	}
	t.Logf("%d probes (%d run) over %d coarse / %d changes", len(rep.Probes), rep.ProbesRun, rep.CoarseChanges, rep.AllChanges)
}

// A change whose pass refuses the input alone (externalize-constant on a
// model without a tied table) is left out like one that changes nothing;
// before, it stopped bisect with exit 1 on every such model.
func TestBisectRefusedChangeLeftOut(t *testing.T) {
	code, rep, errs := bisectJSON(t, "../../testdata/passes/strip-fp32-casts.mlir", "--test", "! grep -q f32 {}", "--cache", t.TempDir())
	if code != 0 || rep.Result != "minimal" {
		t.Fatalf("exit %d %q: %s %s", code, rep.Result, rep.Message, errs)
	}
	left := false
	for _, c := range rep.Ineffective {
		left = left || c.Pass == "externalize-constant"
	}
	if !left {
		t.Errorf("externalize-constant not listed as left out: %v", rep.Ineffective)
	}
}

// reduce's text report, exactly: the remaining op counts are separated by
// ", " with nothing after the last (it used to end in a stray ",").
func TestReduceTextExact(t *testing.T) {
	rep := &pb.ReduceReport{OpsBefore: 12, OpsAfter: 3, Result: "reduced", Message: "12 ops → 3", Output: "small.aimodel",
		Removed:   []*pb.ReduceStep{{Kind: "to-constant", Targets: []string{"%4", "%5"}, OpsBefore: 12, OpsAfter: 3}},
		Probes:    []*pb.Probe{{}, {Cached: true}},
		ProbesRun: 1, ProbesCached: 1,
		Remaining: []*pb.OpCount{{OpName: "coreai.constant", Count: 2}, {OpName: "coreai.softmax", Count: 1}}}
	var b strings.Builder
	writeReduceText(&b, rep)
	want := "ops: 12 -> 3\n" +
		"  to-constant        12 -> 3     [%4 %5]\n" +
		"probes: 2 (1 run, 1 cached)\n" +
		"remaining: coreai.constant 2, coreai.softmax 1\n" +
		"result: reduced: 12 ops → 3\n" +
		"wrote small.aimodel\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The README's recipe with the script edited between runs (issue 32): the
// rerun with the same script answers from the cache and says so on stderr
// (how many, where, --no-cache); after the script becomes `exit 1` the
// rerun runs the test again, as --no-cache would, instead of returning the
// old answers.
func TestSearchCacheKeyCoversScript(t *testing.T) {
	in := "../../testdata/mlir/coreai/binary.mlir"
	dir, cache := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "holds.sh")
	if err := os.WriteFile(script, []byte("exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	test := "sh " + script + " {}"
	reduceRun := func(wantCode int) (*pb.ReduceReport, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "small.mlir")
		code, stdout, errs := runCLI(t, "", "reduce", in, "--test", test, "-o", out, "--json", "--cache", cache)
		if code != wantCode {
			t.Fatalf("exit %d, want %d: %s", code, wantCode, errs)
		}
		rep := &pb.ReduceReport{}
		if err := protojson.Unmarshal([]byte(stdout), rep); err != nil {
			t.Fatal(err)
		}
		return rep, errs
	}
	first, errs := reduceRun(exitOK)
	if first.ProbesRun == 0 || first.ProbesCached != 0 || strings.Contains(errs, "from the cache") {
		t.Errorf("first run: %d run, %d cached; stderr %q", first.ProbesRun, first.ProbesCached, errs)
	}
	again, errs := reduceRun(exitOK)
	note := fmt.Sprintf("anefix reduce: %d of %d answers came from the cache %s (key: the candidate, CMD, %s); --no-cache forces fresh runs\n",
		len(again.Probes), len(again.Probes), cache, script)
	if again.ProbesRun != 0 || !strings.Contains(errs, note) {
		t.Errorf("same script: %d run, %d cached; stderr %q, want %q", again.ProbesRun, again.ProbesCached, errs, note)
	}
	if err := os.WriteFile(script, []byte("exit 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited, errs := reduceRun(exitGate)
	if edited.ProbesRun == 0 || edited.ProbesCached != 0 || edited.Result != "input-bad" || strings.Contains(errs, "from the cache") {
		t.Errorf("edited script: %s, %d run, %d cached; stderr %q", edited.Result, edited.ProbesRun, edited.ProbesCached, errs)
	}
}
