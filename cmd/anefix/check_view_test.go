package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/goldentest"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/oracle"
)

const armA = "../../testdata/synth/armA.aimodel"

// modelOps counts every op of every graph of the model at path (nested
// ops too, in pre-order) with the graph package: the count a page must
// draw, taken without the renderer.
func modelOps(t *testing.T, path string) int {
	t.Helper()
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	n := 0
	for _, g := range ld.Module.Graphs() {
		for _, op := range g.Body().Ops() {
			op.Walk(func(*graph.Operation) bool { n++; return true })
		}
	}
	return n
}

// dotNodeLine is a node statement of check --dot (pbview.DOT: n<i> [...];).
var dotNodeLine = regexp.MustCompile(`(?m)^\s+n[0-9]+ \[`)

// TestCheckViewFlags: --html and --dot write their files (atomically, an
// existing one only with --force), "-" writes stdout instead of the text
// report, and conflicting requests are usage errors before any work.
func TestCheckViewFlags(t *testing.T) {
	dir := t.TempDir()
	html, dot := filepath.Join(dir, "a.html"), filepath.Join(dir, "a.dot")
	code, out, errs := runCLI(t, "", "check", armA, "--html", html, "--dot", dot)
	if code != exitGate || !strings.Contains(out, "NOT LEGAL") {
		t.Fatalf("check --html --dot: code %d (want %d, arm A is not legal), stdout %q, stderr %q", code, exitGate, out, errs)
	}
	page, err := os.ReadFile(html)
	if err != nil || !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), "_to_copy_4") {
		t.Fatalf("page: %v, %d bytes", err, len(page))
	}
	// Arm A's blockers are fixed by strip-fp32-casts, which the pass table
	// turns on by default: the page says a plain rewrite runs it.
	if !strings.Contains(string(page), `"fix":"anefix rewrite (strip-fp32-casts is on by default)"`) || strings.Contains(string(page), "--enable strip-fp32-casts") {
		t.Errorf("the page does not say that strip-fp32-casts runs by default")
	}
	d, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := len(dotNodeLine.FindAll(d, -1)), modelOps(t, armA); n != want {
		t.Errorf("DOT has %d op nodes, the model %d ops", n, want)
	}
	// An existing file is kept without --force, replaced with it.
	if code, _, errs := runCLI(t, "", "check", armA, "--html", html); code != exitFailure || !strings.Contains(errs, "--force") {
		t.Errorf("existing --html without --force: code %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, "", "check", armA, "--html", html, "--force"); code != exitGate {
		t.Errorf("existing --html with --force: code %d, stderr %q", code, errs)
	}
	if again, _ := os.ReadFile(html); string(again) != string(page) {
		t.Errorf("the page of one input differs between two runs")
	}
	// "-" is stdout, in place of the text report.
	code, out, _ = runCLI(t, "", "check", armA, "--dot", "-")
	if code != exitGate || !strings.HasPrefix(out, "digraph ") || out != string(d) {
		t.Errorf("--dot -: code %d, stdout starts %.40q, same as the file: %v", code, out, out == string(d))
	}
	// --json beside --html lists ops only with --ops (as without --html).
	code, out, _ = runCLI(t, "", "check", armA, "--json", "--html", html, "--force")
	listed := strings.Contains(out, `"ops": [`) && !strings.Contains(out, `"ops": []`)
	if code != exitGate || listed {
		t.Errorf("--json --html: code %d, ops listed: %v; want none without --ops", code, listed)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--html", "-", "--dot", "-"}, exitUsage, "both write stdout"},
		{[]string{"--html", "-", "--json"}, exitUsage, "--json prints the report on stdout"},
		{[]string{"--html", html, "--dot", html, "--force"}, exitUsage, "same file"},
		{[]string{"--force"}, exitUsage, "--force replaces"},
		{[]string{"--html", filepath.Join(armA, "x.html")}, exitFailure, "never modifies its input"},
		{[]string{"--html", filepath.Join(dir, "no", "x.html")}, exitFailure, "does not exist"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"check", armA}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// pageState is what the browser tests read from a page.
type pageState struct {
	Ready     float64  `json:"ready"`
	Errors    []string `json:"errors"`
	Resources int      `json:"resources"`
	Drawn     int      `json:"drawn"`
	Ops       int      `json:"ops"`
	// After a search: the op found, whether it is the highlighted element,
	// on screen (below the sticky header, inside the window), and what the
	// side panel says about it.
	Found   int    `json:"found"`
	Hit     string `json:"hit"`
	Visible bool   `json:"visible"`
	Side    string `json:"side"`
}

// openPage loads file in b, waits for the page's ready mark and searches
// for query.
func openPage(t *testing.T, b *oracle.Browser, file, query string) pageState {
	t.Helper()
	if err := b.Open("file://" + file); err != nil {
		t.Fatal(err)
	}
	var st pageState
	err := b.Eval(&st, `
		var ready = Number(document.body.dataset.ready || 0);
		var drawn = document.querySelectorAll("g.op[data-op]").length;
		var found = window.anefixView ? anefixView.search(arguments[0]) : -1;
		var hit = document.querySelector("g.op.hit");
		var r = hit ? hit.getBoundingClientRect() : null;
		var side = document.getElementById("side");
		return {ready: ready, errors: window.anefixErrors, resources: performance.getEntriesByType("resource").length,
			drawn: drawn, ops: window.anefixView ? anefixView.ops : -1, found: found,
			hit: hit ? hit.getAttribute("data-op") : "",
			visible: !!r && r.width > 0 && r.top >= document.querySelector("header").getBoundingClientRect().bottom &&
				r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
			side: side ? side.textContent : ""};`, query)
	if err != nil {
		t.Fatal(err)
	}
	if errs, err := b.ConsoleErrors(); err != nil || len(errs) != 0 {
		t.Errorf("console errors %v (%v)", errs, err)
	}
	return st
}

// expandAll opens every group and returns the op elements drawn.
func expandAll(t *testing.T, b *oracle.Browser) int {
	t.Helper()
	var n int
	if err := b.Eval(&n, `anefixView.expandAll(); return anefixView.drawnOps();`); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkPage asserts a page opened without error or load, collapsed, that
// the search found and revealed the blocker, and that expanding every
// group draws one element per op of the model.
func checkPage(t *testing.T, b *oracle.Browser, st pageState, blocker, rule string, wantOps int) {
	t.Helper()
	if st.Ready <= 0 || len(st.Errors) != 0 || st.Resources != 0 {
		t.Errorf("page: ready %v, errors %v, %d resources loaded; want ready, none, 0", st.Ready, st.Errors, st.Resources)
	}
	if st.Drawn != 0 {
		t.Errorf("%d ops drawn before any group was opened, want 0 (collapsed)", st.Drawn)
	}
	if st.Found < 0 || st.Hit != fmt.Sprint(st.Found) || !st.Visible || !strings.Contains(st.Side, blocker) || !strings.Contains(st.Side, rule) {
		t.Errorf("search %s: found %d, highlighted %q, on screen %v, side panel %.200q; want it found, highlighted, on screen, with rule %s",
			blocker, st.Found, st.Hit, st.Visible, st.Side, rule)
	}
	if st.Ops != wantOps {
		t.Errorf("page holds %d ops, the model %d", st.Ops, wantOps)
	}
	if n := expandAll(t, b); n != wantOps {
		t.Errorf("%d op elements drawn with every group open, the model has %d ops", n, wantOps)
	}
}

// TestCheckHTMLBrowser opens check --html of arm A in headless Chromium:
// it renders without an error or a load, draws every op of the model, and
// its search finds the blocker _to_copy_4 (element-type), revealing it.
func TestCheckHTMLBrowser(t *testing.T) {
	b := oracle.Chromium(t, 1280, 800)
	defer b.Close()
	page := filepath.Join(t.TempDir(), "armA.html")
	if code, _, errs := runCLI(t, "", "check", armA, "--html", page); code != exitGate {
		t.Fatalf("check --html: code %d, stderr %q", code, errs)
	}
	st := openPage(t, b, page, "_to_copy_4")
	checkPage(t, b, st, "_to_copy_4", "element-type", modelOps(t, armA))
	// A link to the page with #search=ID opens at that op.
	if err := b.Open("file://" + page + "#search=unsqueeze_1"); err != nil {
		t.Fatal(err)
	}
	var hit string
	if err := b.Eval(&hit, `var h = document.querySelector("g.op.hit"); return h ? h.querySelector("title").textContent : "";`); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hit, "unsqueeze_1 coreai.expand_dims") {
		t.Errorf("page#search=unsqueeze_1 highlights %q, want unsqueeze_1 (the io-op blocker)", hit)
	}
}

// screenshotDir holds the README's screenshots, written by
// TestCheckHTMLScreenshots -update.
const screenshotDir = "../../testdata/screenshots"

// TestCheckHTMLScreenshots takes the README's pictures of the graph view
// (arm A after a search for its blocker _to_copy_4, and arm A after the
// default rewrite, where the casts are gone, after a search for a state
// write that remains), in a 1280×800 window. -update writes them;
// without it the committed ones must exist with the same size. Either way
// a picture stays under 400 KB.
func TestCheckHTMLScreenshots(t *testing.T) {
	b := oracle.Chromium(t, 1280, 800)
	defer b.Close()
	// The pages' titles are the input paths as given: relative ones, so
	// that the pictures do not show a temporary directory.
	shots, err := filepath.Abs(screenshotDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "", "rewrite", armA, "-o", filepath.Join(dir, "armA.fixed.aimodel")); code != 0 {
		t.Fatalf("rewrite: code %d, stderr %q", code, errs)
	}
	if err := os.CopyFS(filepath.Join(dir, "armA.aimodel"), os.DirFS(armA)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct{ in, png, query string }{
		{"armA.aimodel", "armA-check.png", "_to_copy_4"},
		{"armA.fixed.aimodel", "armA-rewritten-check.png", "immutable_slice_update_1"},
	} {
		page := filepath.Join(dir, c.png+".html")
		if code, _, errs := runCLI(t, "", "check", c.in, "--html", page); code != exitGate && code != 0 {
			t.Fatalf("check --html %s: code %d, stderr %q", c.in, code, errs)
		}
		st := openPage(t, b, page, c.query)
		if len(st.Errors) != 0 || st.Found < 0 {
			t.Fatalf("%s: errors %v, %s found %d", c.png, st.Errors, c.query, st.Found)
		}
		shot, err := b.Screenshot()
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.DecodeConfig(strings.NewReader(string(shot)))
		if err != nil || len(shot) > 400<<10 {
			t.Fatalf("%s: %v, %d bytes (at most 400 KB)", c.png, err, len(shot))
		}
		path := filepath.Join(shots, c.png)
		if goldentest.Update() {
			if err := os.MkdirAll(shots, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("%v (take it with go test ./cmd/anefix -run TestCheckHTMLScreenshots -update)", err)
		}
		want, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || want.Width != got.Width || want.Height != got.Height {
			t.Errorf("%s: committed %dx%d (%v), taken %dx%d", path, want.Width, want.Height, err, got.Width, got.Height)
		}
	}
}

// TestCheckHTMLFullModel is the full-scale arm A (opt-in: ANEFIX_FULL_MODEL
// names it, e.g. anefix synth --arm A --scale full): check --html without
// reading the weights (--hazard-weights=false), then the page must be ready
// within 10 s of navigation (performance.now() at the page's ready mark),
// its search must find the blocker _to_copy_4, and with every group open
// it draws every op.
func TestCheckHTMLFullModel(t *testing.T) {
	largePage(t, oracle.OptIn(t, "ANEFIX_FULL_MODEL", "the full-scale arm A .aimodel"))
}

// TestCheckHTML25kOps is the same on a model of 25,787 ops: a stand-in
// made here, arm A at tiny dimensions with 96 decoder layers (the full
// arm A on record has 24 layers and 7,349 ops; the issue asks for 25k).
func TestCheckHTML25kOps(t *testing.T) {
	model := filepath.Join(t.TempDir(), "armA-96.aimodel")
	if code, _, errs := runCLI(t, "", "synth", "--arm", "A", "--layers", "96", "-o", model); code != 0 {
		t.Fatalf("synth: code %d, stderr %q", code, errs)
	}
	largePage(t, model)
}

// largePage checks the page of a large model (see TestCheckHTMLFullModel).
func largePage(t *testing.T, model string) {
	b := oracle.Chromium(t, 1280, 800)
	defer b.Close()
	page := filepath.Join(t.TempDir(), "large.html")
	t0 := time.Now()
	if code, _, errs := runCLI(t, "", "check", model, "--hazard-weights=false", "--html", page); code != exitGate {
		t.Fatalf("check --html: code %d, stderr %q", code, errs)
	}
	took := time.Since(t0)
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	st := openPage(t, b, page, "_to_copy_4")
	t.Logf("check --html took %v, page %d bytes, %d ops, ready %.0f ms after navigation", took, fi.Size(), st.Ops, st.Ready)
	if st.Ready > 10000 {
		t.Errorf("page ready %.0f ms after navigation, want within 10 s", st.Ready)
	}
	wantOps := modelOps(t, model)
	t1 := time.Now()
	checkPage(t, b, st, "_to_copy_4", "element-type", wantOps)
	t.Logf("every group opened and %d ops counted in %v", wantOps, time.Since(t1))
}
