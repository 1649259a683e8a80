package main

// Property tests over generated variety (README "For contributors"): every case of
// every registered source (property_sources_test.go) is run through the
// commands the way a user runs them, in-process, and must keep the
// promises below. CI runs each source's fixed sample; ANEFIX_FULL_SWEEP=1
// runs every case; ANEFIX_PROPERTY_REPORT writes the figures into
// testdata/measurements.md (measurements_test.go).
//
//	P0  IN reads: inspect IN exits 0 (every generated case is a valid model)
//	P1  rewrite IN -o OUT exits 0, or 1 with a message naming an op
//	P2  the central promise: check OUT --json names no blocker whose fixing
//	    pass is on by default (and a rewrite that refused has no OUT: fails);
//	    and, where the source's generator says which fp32 islands block
//	    (propCase.Expect, graph/synth/expect), OUT holds what it intends:
//	    no f32 value at all (NoF32), no f32 value touched by an op located
//	    in a blocking island (Retype), f32 left in the islands that do not
//	    block (Keep), each read from OUT itself, not from anefix's analyses
//	P3  idempotence: rewrite OUT -o OUT2 exits 0 and OUT2's main file is
//	    byte-identical to OUT's
//	P4  OUT reads back: convert OUT --emit generic -o - exits 0, and
//	    mlir-opt 22 accepts that text
//	P5  verify IN OUT --streams 2 --length 4 exits 0 or 3
//	P6  inspect, check and convert on IN never panic, never print a Go
//	    runtime error, never exit 2 (their command lines are well formed)
//	P7  where the generator names its state port pairs and port types
//	    (Expect.Pairs, Expect.Ports): in every entry graph of OUT each pair's
//	    input carries MutableBuffers.buffer_mutation = its state, the output
//	    at the position the generator wrote the pair's output carries the
//	    state's name, and every port has the type the generator intends
//	    (what fold-io-unsqueeze folds, what strip-fp32-casts retypes; every
//	    other port as in IN)
//	P8  where a published compile measured the model (the calibration
//	    set): check IN --architecture A --json predicts that many Neural
//	    Engine regions per function; a disagreement the manifest records,
//	    with its reason, is listed as accepted, not failed
//
// No command may panic or print a Go runtime error anywhere (each property
// fails on it). ANEFIX_PROPERTY_DIR=DIR keeps every input and output under
// DIR/<source>/<case>/ so that a failure's reproducer command runs as printed.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/passes"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// propCase is one input of a case source.
type propCase struct {
	Name string
	// Axes describe the case, for reports (may be nil).
	Axes map[string]string
	// Write stores the case in dir (an empty directory) and returns the
	// input path; an input that already exists (a shipped model) may be
	// returned as it is, it is never modified.
	Write func(dir string) (string, error)
	// Expect is what the case's generator intends the default rewrite to
	// make of it (P2, P7); zero when the source does not know.
	Expect expect.Expect
}

// caseSource is a family of generated inputs: Sample is what CI runs, Full
// the whole sweep (ANEFIX_FULL_SWEEP=1), Compose (optional) the inputs of
// TestPassComposition (default: the first of Sample).
type caseSource struct {
	Name                  string
	Sample, Full, Compose func() []propCase
}

var caseSources []caseSource

// addCaseSource plugs a source into TestProperties and TestPassComposition
// (composition takes a sample of it): the one call a new source needs.
func addCaseSource(s caseSource) {
	for _, o := range caseSources {
		if o.Name == s.Name {
			panic("property: case source registered twice: " + s.Name)
		}
	}
	caseSources = append(caseSources, s)
}

// FullSweepEnv runs every case instead of the CI sample.
const FullSweepEnv = "ANEFIX_FULL_SWEEP"

func fullSweep() bool {
	_, on := oracle.OptedIn(FullSweepEnv)
	return on
}

func (s caseSource) cases() []propCase {
	if fullSweep() {
		return s.Full()
	}
	return s.Sample()
}

// cliResult is one command's outcome, with a panic caught.
type cliResult struct {
	args           []string
	code           int
	stdout, stderr string
	panicked       string // the panic value and stack, when run panicked
}

// runGuarded runs a command line in-process like runCLI, but turns a panic
// into a result, so that one bad input fails its property instead of the
// whole test binary.
func runGuarded(args ...string) (res cliResult) {
	res.args = args
	var out, errb bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			res.code = -1
			res.panicked = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
		res.stdout, res.stderr = out.String(), errb.String()
	}()
	res.code = run(args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return res
}

// runtimeError matches what only a Go runtime failure prints.
var runtimeError = regexp.MustCompile(`runtime error|panic:|goroutine \d+ \[|invalid memory address|nil pointer dereference|index out of range|slice bounds out of range`)

// broken says why a result shows a crash (a panic, a Go runtime error text,
// exit 2 on a well-formed command line), or "".
func (r cliResult) broken() string {
	switch {
	case r.panicked != "":
		return oneLine(r.panicked)
	case runtimeError.MatchString(r.stderr):
		return "runtime error text: " + oneLine(runtimeError.FindString(r.stderr)+" in "+firstMatchLine(r.stderr, runtimeError))
	case r.code == exitUsage:
		return "exit 2 on a well-formed command line: " + oneLine(r.stderr)
	}
	return ""
}

// oneLine is s's first line (signal_test.go's firstLine), cut to 240 bytes.
func oneLine(s string) string {
	s = strings.TrimSpace(firstLine(s))
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}

func firstMatchLine(s string, re *regexp.Regexp) string {
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	return ""
}

// namesOp reports whether an error message names an op (its dialect name,
// a graph or an op id), as a clear refusal must.
var namesOpRE = regexp.MustCompile(`\b(coreai|func|arith|builtin)\.[a-z_]+|op_id \d+|@[A-Za-z_][\w.]*`)

// failure is one property a case broke.
type failure struct {
	Prop   string // P0…P6, or C (composition)
	Source string
	Case   string
	// Class groups failures of one cause: the rule and fixing pass of a
	// blocker, an error message with its numbers and paths blanked.
	Class  string
	Detail string
	Repro  string // the command that shows it
	Size   int64  // the input's size in bytes (the smallest reproduces a class)
	Test   string // the go test -run pattern that regenerates the case
}

func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quoteShellWord(a)
	}
	return "anefix " + strings.Join(q, " ")
}

var (
	numbersRE = regexp.MustCompile(`%?\b\d+\b`)
	pathRE    = regexp.MustCompile(`(/[^\s:'"]+)+`)
	quotedRE  = regexp.MustCompile(`"[^"]*"`)
)

// classOf blanks what varies between cases of one cause (numbers, paths,
// quoted names) in a message.
func classOf(msg string) string {
	msg = oneLine(msg)
	msg = pathRE.ReplaceAllString(msg, "PATH")
	msg = quotedRE.ReplaceAllString(msg, `"…"`)
	msg = numbersRE.ReplaceAllString(msg, "N")
	return msg
}

// defaultOn is the set of passes the default pipeline runs.
func defaultOn() map[string]bool {
	on := map[string]bool{}
	for _, n := range passes.Names() {
		if p, _ := passes.Lookup(n); p.DefaultOn {
			on[n] = true
		}
	}
	return on
}

// mainFile is the file a model's bytes are in: main.mlirb of a directory.
func mainFile(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return filepath.Join(path, "main.mlirb")
	}
	return path
}

func sizeOf(path string) int64 {
	var n int64
	filepath.Walk(path, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// outPath names an output of the input's kind (the extension decides).
func outPath(dir, in, base string) string {
	ext := filepath.Ext(strings.TrimRight(in, "/"))
	if ext == "" {
		ext = ".mlir"
	}
	return filepath.Join(dir, base+ext)
}

// caseDir is a fresh directory for a case's files: under
// ANEFIX_PROPERTY_DIR when set (kept), else the test's temporary directory.
func caseDir(t *testing.T, source, name string) string {
	t.Helper()
	if root := os.Getenv("ANEFIX_PROPERTY_DIR"); root != "" {
		d := filepath.Join(root, source, name)
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// checker runs the properties of one input and collects what fails.
type checker struct {
	t        *testing.T
	test     string // -run pattern of the case's subtest
	source   string
	name     string
	size     int64
	mlirOpt  string // mlir-opt 22
	failures []failure
	// accepted are the documented limits a property accepts (verifyLimits),
	// kept to be counted: the report lists each with its reason.
	accepted []failure
	// expected are the properties a generator's expectation was checked
	// under for this case (P2's islands, P7, P8), for the report.
	expected []string
}

func (c *checker) fail(prop, class, detail string, r cliResult) {
	f := failure{Prop: prop, Source: c.source, Case: c.name, Class: class, Detail: detail, Size: c.size, Test: c.test}
	if r.args != nil {
		f.Repro = commandLine(r.args)
	}
	c.failures = append(c.failures, f)
}

// crashed records a crash of r under prop and reports whether there was one.
func (c *checker) crashed(prop string, r cliResult) bool {
	if b := r.broken(); b != "" {
		c.fail(prop, "crash: "+r.args[0]+": "+classOf(b), b, r)
		return true
	}
	return false
}

// blockersFixedByDefault lists the blocker groups of a check report whose
// fixing pass the default pipeline runs.
func blockersFixedByDefault(rep *pb.CheckReport, on map[string]bool) []*pb.FindingGroup {
	var out []*pb.FindingGroup
	for _, g := range rep.GetGroups() {
		if g.GetSeverity() == "blocker" && on[g.GetFixPass()] {
			out = append(out, g)
		}
	}
	return out
}

// readsBack runs P4 on OUT: convert to generic text, then mlir-opt 22.
func (c *checker) readsBack(prop, out string) {
	r := runGuarded("convert", out, "--emit", "generic", "-o", "-")
	if c.crashed(prop, r) {
		return
	}
	if r.code != exitOK {
		c.fail(prop, "convert OUT exit "+fmt.Sprint(r.code)+": "+classOf(r.stderr), oneLine(r.stderr), r)
		return
	}
	text, err := withoutDialectLocs(r.stdout)
	if err != nil {
		c.fail(prop, "generic text does not parse back: "+classOf(err.Error()), err.Error(), r)
		return
	}
	f := filepath.Join(c.t.TempDir(), "generic.mlir")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
	if _, err := oracle.RunMlirOpt(c.mlirOpt, "", f, "-o", os.DevNull); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "error:"); i >= 0 {
			msg = msg[i:]
		}
		c.fail(prop, "mlir-opt-22 refuses the generic form: "+classOf(msg), oneLine(msg), cliResult{args: []string{"convert", out, "--emit", "generic", "-o", "OUT.generic.mlir"}})
	}
}

// verifyRuns runs P5: two streams of four tokens, drawn by verify, or
// below vocab when the source knows the model's (expect.Expect.Vocab).
func (c *checker) verifyRuns(prop, in, out string, vocab int) {
	args := []string{"verify", in, out, "--streams", "2", "--length", "4"}
	if vocab > 0 {
		f := filepath.Join(c.t.TempDir(), "tokens.txt")
		var b strings.Builder
		for s := range 2 {
			for p := range 4 {
				fmt.Fprintf(&b, "%d ", (7*p+3*s+1)%vocab)
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			c.t.Fatal(err)
		}
		args = []string{"verify", in, out, "--tokens", f, "--length", "4"}
	}
	r := runGuarded(args...)
	if c.crashed(prop, r) {
		return
	}
	switch {
	case r.code == exitOK || r.code == exitGate:
	case r.code == exitFailure && verifyLimit(r.stderr, in) != "":
		c.accepted = append(c.accepted, failure{Prop: prop, Source: c.source, Case: c.name, Class: verifyLimit(r.stderr, in)})
	default:
		c.fail(prop, fmt.Sprintf("verify exit %d: %s", r.code, classOf(r.stderr)), oneLine(r.stderr), r)
	}
}

// verifyLimits are the interpreter's documented limits (README "Known
// limits"): verify refuses such a model with exit 1 and says why, the
// reference side first, and that is the answer P5 accepts. Anything else
// is a failure.
var verifyLimits = []string{
	"the interpreter cannot run op",       // an op graph/interp does not implement
	"is not a static tensor",              // a dynamic shape cannot be fed
	"is not supported by the interpreter", // an element type graph/interp does not hold (complex, ui2)
	"has no body (a declaration)",         // a call to a graph that is not in the module
}

// verifyLimit is the limit verify's refusal of the reference names ("" for
// none, or when the refusal is about the candidate). The greedy mode says
// "reference"; the teacher-forced default names the reference's file, ref.
func verifyLimit(stderr, ref string) string {
	onRef := strings.Contains(stderr, "reference") || strings.Contains(stderr, ref+":")
	for _, l := range verifyLimits {
		if onRef && strings.Contains(stderr, l) {
			return l
		}
	}
	return ""
}

// rewriteOK runs rewrite IN -o OUT extra… under prop (P1, or C) and reports
// whether OUT was written.
func (c *checker) rewriteOK(prop, in, out string, extra ...string) bool {
	wrote, _, _ := c.rewrite(prop, in, out, extra...)
	return wrote
}

// refusedByRE finds the pass a rewrite's error names (passes.PassError).
var refusedByRE = regexp.MustCompile(`: pass ([a-z0-9-]+)(?::| left invalid IR)`)

// rewrite is rewriteOK that also says which pass refused the input, when
// rewrite exits 1 with a clear refusal ("" when none, or no pass named),
// and the error's line.
func (c *checker) rewrite(prop, in, out string, extra ...string) (wrote bool, refusedBy, msg string) {
	r := runGuarded(append([]string{"rewrite", in, "-o", out}, extra...)...)
	if c.crashed(prop, r) {
		return false, "", ""
	}
	// The error is the last line (the per-pass report comes first); the
	// paths are blanked (a zoo file is named after its op).
	msg = strings.NewReplacer(in, "IN", out, "OUT").Replace(lastLine(r.stderr))
	switch r.code {
	case exitOK:
		return true, "", ""
	case exitFailure:
		// A clear refusal names the pass that refused or an op.
		if m := refusedByRE.FindStringSubmatch(msg); m != nil && passKnown(m[1]) {
			refusedBy = m[1]
		}
		if refusedBy == "" && !namesOpRE.MatchString(msg) {
			c.fail(prop, "rewrite exit 1 naming no op and no pass: "+classOf(msg), oneLine(msg), r)
		}
		return false, refusedBy, msg
	}
	c.fail(prop, fmt.Sprintf("rewrite exit %d: %s", r.code, classOf(msg)), oneLine(msg), r)
	return false, "", msg
}

// properties runs P0–P8 on one input.
func (c *checker) properties(dir, in string, e expect.Expect) {
	on := defaultOn()
	// P6 (and P0): the input is read without a crash.
	for _, args := range [][]string{
		{"inspect", in},
		{"inspect", in, "--json"},
		{"check", in, "--json"},
		{"convert", in, "--emit", "generic", "-o", "-"},
	} {
		r := runGuarded(args...)
		if c.crashed("P6", r) {
			continue
		}
		if args[0] == "inspect" && len(args) == 2 && r.code != exitOK {
			c.fail("P0", fmt.Sprintf("inspect IN exit %d: %s", r.code, classOf(r.stderr)), oneLine(r.stderr), r)
		}
	}
	// P8.
	if e.Published != nil {
		c.published("P8", in, e.Published)
	}
	// P1.
	out := outPath(dir, in, "out")
	wrote := c.rewriteOK("P1", in, out)
	if !wrote {
		c.fail("P2", "no output: rewrite refused the input", "", cliResult{args: []string{"rewrite", in, "-o", out}})
		return
	}
	// P2.
	r := runGuarded("check", out, "--json")
	if !c.crashed("P2", r) {
		var rep pb.CheckReport
		switch {
		case r.code != exitOK && r.code != exitGate:
			c.fail("P2", fmt.Sprintf("check OUT exit %d: %s", r.code, classOf(r.stderr)), oneLine(r.stderr), r)
		case protojson.Unmarshal([]byte(r.stdout), &rep) != nil:
			c.fail("P2", "check OUT --json is not a CheckReport", oneLine(r.stdout), r)
		default:
			for _, g := range blockersFixedByDefault(&rep, on) {
				c.fail("P2", fmt.Sprintf("blocker %s -> %s at %s", g.GetRule(), g.GetFixPass(), g.GetOpName()),
					fmt.Sprintf("x%d %s at %s: %s", g.GetCount(), g.GetOpName(), g.GetSource(), g.GetDetail()), r)
			}
		}
	}
	c.islands("P2", in, out, e)
	// P7.
	c.ports("P7", in, out, e)
	// P3.
	out2 := outPath(dir, in, "out2")
	before := len(c.failures)
	if c.rewriteOK("P3", out, out2) {
		a, errA := os.ReadFile(mainFile(out))
		b, errB := os.ReadFile(mainFile(out2))
		if errA != nil || errB != nil {
			c.t.Fatalf("read outputs: %v %v", errA, errB)
		}
		if !bytes.Equal(a, b) {
			c.fail("P3", "second rewrite changes the model: "+secondRewriteSummary(out, out2), fmt.Sprintf("%d bytes -> %d bytes", len(a), len(b)),
				cliResult{args: []string{"rewrite", out, "-o", out2}})
		}
	} else if len(c.failures) == before {
		c.fail("P3", "second rewrite refused its own output", "", cliResult{args: []string{"rewrite", out, "-o", out2}})
	}
	// P4, P5.
	c.readsBack("P4", out)
	c.verifyRuns("P5", in, out, e.Vocab)
}

// secondRewriteSummary names the passes that changed something the second
// time (the class of a P3 failure).
func secondRewriteSummary(out, out2 string) string {
	r := runGuarded("rewrite", out, "--dry-run")
	var changed []string
	for _, l := range strings.Split(r.stderr+r.stdout, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && !strings.HasPrefix(l, " ") && passKnown(f[0]) && !strings.Contains(l, "no change") {
			changed = append(changed, f[0])
		}
	}
	if len(changed) == 0 {
		return "(no pass reports a change)"
	}
	return strings.Join(changed, ", ") + " changed it again"
}

func passKnown(n string) bool { _, ok := passes.Lookup(n); return ok }

// withoutDialectLocs reads generic text and prints it again with dialect
// locations (#debuginfo.location) replaced by loc(unknown): mlir-opt
// refuses dialect attributes as locations (README "Known limits"), so that
// is the form it can check (graph.ForgetDialectLocs).
func withoutDialectLocs(text string) (string, error) {
	if !strings.Contains(text, "#debuginfo") {
		return text, nil
	}
	m, _, err := mlirtext.Parse("generic.mlir", text)
	if err != nil {
		return "", err
	}
	graph.ForgetDialectLocs(m)
	b, err := mlirtext.Format(m, mlirtext.FormGeneric)
	return string(b), err
}

// tally collects failures over a test and prints the figures: per property
// the failing cases, per class the count and the smallest reproducer.
type tally struct {
	cases map[string]int // source -> cases run
	// expected counts, per source and property, the cases checked against
	// their generator's expectation.
	expected map[string]map[string]int
	failures []failure
	accepted []failure
}

func (ty *tally) add(fs []failure) { ty.failures = append(ty.failures, fs...) }

func (ty *tally) accept(fs []failure) { ty.accepted = append(ty.accepted, fs...) }

// expect counts the properties c checked against an expectation.
func (ty *tally) expect(c *checker) {
	if ty.expected == nil {
		ty.expected = map[string]map[string]int{}
	}
	if ty.expected[c.source] == nil {
		ty.expected[c.source] = map[string]int{}
	}
	for _, p := range c.expected {
		ty.expected[c.source][p]++
	}
}

// report logs the tally and returns it as text.
func (ty *tally) report(t *testing.T, props []string) string {
	t.Helper()
	var b strings.Builder
	srcs := make([]string, 0, len(ty.cases))
	for s := range ty.cases {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		n := ty.cases[s]
		fmt.Fprintf(&b, "source %s: %d cases\n", s, n)
		fmt.Fprintf(&b, "  %-4s %-8s %s\n", "prop", "failing", "held")
		for _, p := range props {
			bad := map[string]bool{}
			for _, f := range ty.failures {
				if f.Source == s && f.Prop == p {
					bad[f.Case] = true
				}
			}
			against := ""
			if k := ty.expected[s][p]; k > 0 {
				against = fmt.Sprintf(", %d against the generator's expectation", k)
			}
			fmt.Fprintf(&b, "  %-4s %-8d %d/%d (%.0f %%%s)\n", p, len(bad), n-len(bad), n, 100*float64(n-len(bad))/float64(max(n, 1)), against)
		}
	}
	type cls struct {
		prop, class string
		cases       map[string]bool
		smallest    failure
	}
	classes := map[string]*cls{}
	var keys []string
	for _, f := range ty.failures {
		k := f.Source + "\x00" + f.Prop + "\x00" + f.Class
		c := classes[k]
		if c == nil {
			c = &cls{prop: f.Prop, class: f.Class, cases: map[string]bool{}, smallest: f}
			classes[k] = c
			keys = append(keys, k)
		}
		c.cases[f.Case] = true
		if f.Size < c.smallest.Size || f.Size == c.smallest.Size && f.Case < c.smallest.Case {
			c.smallest = f
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := classes[keys[i]], classes[keys[j]]
		if a.prop != c.prop {
			return a.prop < c.prop
		}
		if len(a.cases) != len(c.cases) {
			return len(a.cases) > len(c.cases)
		}
		return keys[i] < keys[j]
	})
	acc := map[string]int{}
	var accKeys []string
	for _, f := range ty.accepted {
		k := f.Prop + " [" + f.Source + "] " + f.Class
		if acc[k] == 0 {
			accKeys = append(accKeys, k)
		}
		acc[k]++
	}
	sort.Strings(accKeys)
	if len(accKeys) > 0 {
		b.WriteString("held by a documented limit (verify refuses, naming it) or a recorded disagreement (P8):\n")
	}
	for _, k := range accKeys {
		fmt.Fprintf(&b, "  %s x%d\n", k, acc[k])
	}
	if len(keys) > 0 {
		b.WriteString("failure classes (cases; smallest reproducer):\n")
	}
	for _, k := range keys {
		c := classes[k]
		fmt.Fprintf(&b, "  %s [%s] x%d: %s\n      e.g. %s: %s\n", c.prop, c.smallest.Source, len(c.cases), c.class, c.smallest.Case, c.smallest.Detail)
		if c.smallest.Repro != "" {
			fmt.Fprintf(&b, "      %s\n", c.smallest.Repro)
		}
		if c.smallest.Test != "" {
			env := ""
			if fullSweep() {
				env = FullSweepEnv + "=1 "
			}
			fmt.Fprintf(&b, "      (inputs kept by: %sANEFIX_PROPERTY_DIR=DIR go test ./cmd/anefix -run '%s')\n", env, c.smallest.Test)
		}
	}
	t.Log("\n" + b.String())
	return b.String()
}

// writeSweep writes a sweep's report to its section of the measurements
// file named by ANEFIX_PROPERTY_REPORT (testdata/measurements.md; relative
// paths from the repository root), stamped with the command that ran it.
func writeSweep(t *testing.T, section string, loadStart float64, report string) {
	t.Helper()
	f := os.Getenv("ANEFIX_PROPERTY_REPORT")
	if f == "" {
		return
	}
	run := t.Name()
	if fl := flag.Lookup("test.run"); fl != nil && fl.Value.String() != "" {
		run = fl.Value.String()
	}
	cmd := "ANEFIX_PROPERTY_REPORT=" + f + " go test ./cmd/anefix -run '" + run + "'"
	scope := "the CI sample of each source (" + FullSweepEnv + "=1 runs every case)"
	if fullSweep() {
		cmd = FullSweepEnv + "=1 " + cmd
		scope = "every case of every source"
	}
	body := measurementStamp(cmd, loadStart, loadAvg1()) + "Cases: " + scope + ".\n\n```\n" + report + "```\n"
	if err := writeMeasurement(f, section, body); err != nil {
		t.Error(err)
	}
}

// runPattern is the go test -run pattern of one subtest.
func runPattern(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(q, "/")
}

// TestProperties runs P0–P8 on every case of every source (the CI sample,
// or all with ANEFIX_FULL_SWEEP=1).
func TestProperties(t *testing.T) {
	mlirOpt := oracle.MlirOpts[1].Require(t)
	load := loadAvg1()
	ty := &tally{cases: map[string]int{}}
	for _, src := range caseSources {
		t.Run(src.Name, func(t *testing.T) {
			for _, pc := range src.cases() {
				t.Run(pc.Name, func(t *testing.T) {
					dir := caseDir(t, src.Name, pc.Name)
					in, err := pc.Write(dir)
					if err != nil {
						t.Fatalf("writing the case: %v", err)
					}
					c := &checker{t: t, test: runPattern("TestProperties", src.Name, pc.Name), source: src.Name, name: pc.Name, size: sizeOf(in), mlirOpt: mlirOpt}
					c.properties(dir, in, pc.Expect)
					ty.cases[src.Name]++
					ty.add(c.failures)
					ty.accept(c.accepted)
					ty.expect(c)
					for _, f := range c.failures {
						t.Errorf("%s %s: %s\n    %s", f.Prop, f.Class, f.Detail, f.Repro)
					}
				})
			}
		})
	}
	rep := ty.report(t, []string{"P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"})
	writeSweep(t, "properties", load, rep)
}
