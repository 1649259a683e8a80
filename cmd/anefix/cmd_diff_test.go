package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph/oracle"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// TestDiffExitCodes: differences are not a failure (0); a missing or
// unreadable input is bad input (1); a wrong argument count, two stdins or
// an architecture that is not a name are usage errors (2).
func TestDiffExitCodes(t *testing.T) {
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	armB := filepath.Join("..", "..", "testdata", "synth", "armB.aimodel")
	junk := filepath.Join(t.TempDir(), "junk.mlir")
	if err := os.WriteFile(junk, []byte("module { this is not mlir"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{armA, armB}, exitOK, "Regions per function"},
		{[]string{armA, armA}, exitOK, "No change"},
		{[]string{armA}, exitUsage, "exactly two inputs"},
		{[]string{armA, armB, armA}, exitUsage, "exactly two inputs"},
		{[]string{"-", "-"}, exitUsage, "only one of A and B"},
		{[]string{armA, armB, "--architecture", "not a name"}, exitUsage, "--architecture"},
		{[]string{armA, filepath.Join(t.TempDir(), "absent.mlir")}, exitFailure, "absent.mlir"},
		{[]string{junk, armA}, exitFailure, "junk.mlir"},
	} {
		code, o, e := runCLI(t, "", append([]string{"diff"}, c.args...)...)
		if code != c.code || !strings.Contains(o+e, c.says) {
			t.Errorf("diff %q: exit %d, want %d saying %q\n%s%s", c.args, code, c.code, c.says, o, e)
		}
	}
}

// TestDiffMatchesRewriteReport: `anefix diff IN OUT` on the written files
// and `rewrite --diff`'s planDiff (computed in memory on a copy of the
// input's ops) are the same message; its counts agree with what the passes
// themselves report (strip-fp32-casts' ops retyped, the I/O changes of
// fold-io-unsqueeze and promote-states), and its text starts with the
// summary.
func TestDiffMatchesRewriteReport(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	dir := t.TempDir()
	out, report := filepath.Join(dir, "out.aimodel"), filepath.Join(dir, "report.json")
	if code, o, e := runCLI(t, "", "rewrite", in, "-o", out, "--report", report, "--diff"); code != exitOK {
		t.Fatalf("rewrite: exit %d\n%s%s", code, o, e)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep pb.RewriteReport
	if err := protojson.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	code, o, e := runCLI(t, "", "diff", in, out, "--json")
	if code != exitOK {
		t.Fatalf("diff: exit %d\n%s%s", code, o, e)
	}
	if _, again, _ := runCLI(t, "", "diff", in, out, "--json"); again != o {
		t.Errorf("two runs of diff --json differ")
	}
	var d pb.PlanDiff
	if err := protojson.Unmarshal([]byte(o), &d); err != nil {
		t.Fatal(err)
	}
	if d.GetA().GetPath() != in || d.GetB().GetPath() != out {
		t.Errorf("inputs %q, %q", d.GetA().GetPath(), d.GetB().GetPath())
	}
	d.A, d.B = nil, nil
	if !proto.Equal(&d, rep.GetPlanDiff()) {
		t.Errorf("diff IN OUT and rewrite --diff differ:\n%s\n%s", protojson.Format(&d), protojson.Format(rep.GetPlanDiff()))
	}
	var retyped, ioChanges int32
	for _, p := range rep.GetPasses() {
		if p.GetName() == "strip-fp32-casts" {
			retyped = p.GetOpsRetyped()
		}
		ioChanges += int32(len(p.GetIoChanges()))
	}
	// fold-io-unsqueeze's two reshapes; promote-states' input and output
	// per state, which the diff lists as one port change each.
	t.Logf("diff: %d ops retyped, %d ports changed; passes: %d retyped, %d I/O changes", d.OpsRetyped, len(d.Ports), retyped, ioChanges)
	if d.OpsRetyped != retyped || retyped == 0 {
		t.Errorf("diff says %d ops retyped, strip-fp32-casts %d", d.OpsRetyped, retyped)
	}
	if int32(len(d.Ports)) != ioChanges {
		t.Errorf("diff lists %d port changes, the passes %d I/O changes", len(d.Ports), ioChanges)
	}
	code, o, e = runCLI(t, "", "diff", in, out)
	if code != exitOK {
		t.Fatalf("diff: exit %d\n%s%s", code, o, e)
	}
	lines := strings.Split(o, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "Architecture h18p: 0 → 1 ANE region(s)") || !strings.Contains(lines[2], fmt.Sprintf("%d retyped", retyped)) {
		t.Errorf("summary first, please:\n%s", o)
	}
	for _, s := range []string{"Ops moved to another device", "Ops retyped", "Ops removed", "I/O changed", "States changed",
		"@main output new_conv_state → conv_state: renamed, became state", "@main rec_state: promoted"} {
		if !strings.Contains(o, s) {
			t.Errorf("text lacks %q", s)
		}
	}
}

// TestDiffHTML: diff --html draws B with every changed op highlighted by
// its kind (counts from diff --json: retyped; moved and not retyped) and
// the removed ops counted in the header; "-" writes the page on stdout
// instead of the text.
func TestDiffHTML(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	dir := t.TempDir()
	out, page := filepath.Join(dir, "out.aimodel"), filepath.Join(dir, "d.html")
	if code, o, e := runCLI(t, "", "rewrite", in, "-o", out); code != exitOK {
		t.Fatalf("rewrite: exit %d\n%s%s", code, o, e)
	}
	code, o, e := runCLI(t, "", "diff", in, out, "--json")
	if code != exitOK {
		t.Fatalf("diff --json: exit %d\n%s%s", code, o, e)
	}
	var d pb.PlanDiff
	if err := protojson.Unmarshal([]byte(o), &d); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, c := range d.Ops {
		if c.PlacementChanged && !c.Retyped {
			moved++
		}
	}
	if code, o, e := runCLI(t, "", "diff", in, out, "--html", page); code != exitOK || !strings.Contains(o, "Regions per function") {
		t.Fatalf("diff --html: exit %d\n%s%s", code, o, e)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for kind, want := range map[string]int{"retyped": int(d.OpsRetyped), "moved": moved, "added": int(d.OpsAdded)} {
		if n := strings.Count(s, `"chg":"`+kind+`"`); n != want {
			t.Errorf("%d ops drawn %s, the diff has %d", n, kind, want)
		}
	}
	if d.OpsRemoved == 0 || !strings.Contains(s, fmt.Sprintf("removed (ops of A, not drawn): %d: ", d.OpsRemoved)) {
		t.Errorf("the header does not count the %d removed ops", d.OpsRemoved)
	}
	code, o, _ = runCLI(t, "", "diff", in, out, "--html", "-")
	if code != exitOK || o != s {
		t.Errorf("--html -: exit %d, stdout is the page: %v", code, o == s)
	}
	if code, _, e := runCLI(t, "", "diff", in, out, "--html", "-", "--json"); code != exitUsage {
		t.Errorf("--html - --json: exit %d, want %d\n%s", code, exitUsage, e)
	}
}

// TestDiffHTMLBrowser opens diff --html of arm A against its rewrite in
// headless Chromium: no error and no load; a search for a retyped op
// (exp_2, in the recurrence strip-fp32-casts retypes) reveals it
// highlighted as retyped with the change in its side panel; with every
// group open, the ops drawn highlighted per kind are the diff's counts.
func TestDiffHTMLBrowser(t *testing.T) {
	b := oracle.Chromium(t, 1280, 800)
	defer b.Close()
	dir := t.TempDir()
	out, page := filepath.Join(dir, "out.aimodel"), filepath.Join(dir, "d.html")
	if code, o, e := runCLI(t, "", "rewrite", armA, "-o", out); code != exitOK {
		t.Fatalf("rewrite: exit %d\n%s%s", code, o, e)
	}
	code, o, e := runCLI(t, "", "diff", armA, out, "--json")
	if code != exitOK {
		t.Fatalf("diff --json: exit %d\n%s%s", code, o, e)
	}
	var d pb.PlanDiff
	if err := protojson.Unmarshal([]byte(o), &d); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"retyped": int(d.OpsRetyped)}
	for _, c := range d.Ops {
		if c.PlacementChanged && !c.Retyped {
			want["moved"]++
		}
	}
	if code, o, e := runCLI(t, "", "diff", armA, out, "--html", page); code != exitOK {
		t.Fatalf("diff --html: exit %d\n%s%s", code, o, e)
	}
	st := openPage(t, b, page, "exp_2")
	if st.Ready <= 0 || len(st.Errors) != 0 || st.Resources != 0 {
		t.Errorf("page: ready %v, errors %v, %d resources loaded", st.Ready, st.Errors, st.Resources)
	}
	var hitClass string
	if err := b.Eval(&hitClass, `var h = document.querySelector("g.op.hit"); return h ? h.getAttribute("class") : "";`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hitClass, "chg-retyped") || !st.Visible || !strings.Contains(st.Side, "retyped") {
		t.Errorf("search exp_2: class %q, on screen %v, side panel %.200q; want it highlighted as retyped", hitClass, st.Visible, st.Side)
	}
	if n := expandAll(t, b); n != modelOps(t, out) {
		t.Errorf("%d ops drawn, B has %d", n, modelOps(t, out))
	}
	for kind, n := range want {
		var got int
		if err := b.Eval(&got, `return document.querySelectorAll("g.op.chg-"+arguments[0]).length;`, kind); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%d ops drawn highlighted %s, the diff has %d", got, kind, n)
		}
	}
}

// TestDiffTextPositions: ops written without a location get their position
// in the text (MLIR's rule), which is no source line: read from a file or
// from stdin ("<stdin>"), the island's exp still pairs with its rewrite's
// (by hand: the cast removed, exp and the terminator retyped, nothing
// added). Before, from stdin, all three ops were removed and two added.
func TestDiffTextPositions(t *testing.T) {
	const island = `module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf32> {coreai.name = "y"}) {
    %v0 = coreai.cast %x : tensor<1x4xf16> to tensor<1x4xf32>
    %v1 = coreai.exp %v0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
    coreai.output %v1 : tensor<1x4xf32>
  }
}
`
	dir := t.TempDir()
	in, out := filepath.Join(dir, "island.mlir"), filepath.Join(dir, "island.fixed.mlir")
	if err := os.WriteFile(in, []byte(island), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, o, e := runCLI(t, "", "rewrite", in, "-o", out); code != exitOK {
		t.Fatalf("rewrite: exit %d\n%s%s", code, o, e)
	}
	for _, args := range [][]string{{"diff", in, out, "--json"}, {"diff", "-", out, "--json"}} {
		code, o, e := runCLI(t, island, args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d\n%s%s", args, code, o, e)
		}
		var d pb.PlanDiff
		if err := protojson.Unmarshal([]byte(o), &d); err != nil {
			t.Fatal(err)
		}
		if d.OpsRemoved != 1 || d.OpsAdded != 0 || d.OpsRetyped != 2 {
			t.Errorf("%q: %d removed, %d added, %d retyped; want 1, 0, 2", args, d.OpsRemoved, d.OpsAdded, d.OpsRetyped)
		}
	}
}
