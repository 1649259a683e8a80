package ane

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/passes"
)

// defaultOn reports whether the default pipeline runs pass name.
func defaultOn(name string) bool {
	p, ok := passes.Lookup(name)
	return ok && p.DefaultOn
}

// zooOutcome is what the default rewrite did to one zoo module.
type zooOutcome struct {
	name string
	// err: the module could not be verified or rewritten (the promise
	// allows a clear error only for a module anefix cannot verify).
	err string
	// broken lists blockers whose fix is a default-on pass, left after the
	// default rewrite: each one breaks the promise.
	broken []string
	// left lists the blockers left with no pass named (why the graph is
	// still not legal), by rule.
	left    []string
	generic []byte
}

// rewriteZoo runs the default pipeline (passes.Build(passes.Spec{}), as
// anefix rewrite does) on one zoo module, then checks the result read back.
func rewriteZoo(t *testing.T, z zoo.Module) zooOutcome {
	out := zooOutcome{name: z.Name}
	m, _, err := mlirtext.Parse(z.Name, string(z.Text))
	if err != nil {
		out.err = "does not parse: " + err.Error()
		return out
	}
	if err := passes.VerifyInput(m, z.Name, "", "it is not rewritten"); err != nil {
		out.err = "cannot verify: " + err.Error()
		return out
	}
	p, err := passes.Build(passes.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
		out.err = "rewrite fails: " + err.Error()
		return out
	}
	text, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		out.err = "output does not print: " + err.Error()
		return out
	}
	back, _, err := mlirtext.Parse(z.Name+".out", string(text))
	if err != nil {
		out.err = "output does not read back: " + err.Error()
		return out
	}
	if out.generic, err = mlirtext.Format(back, mlirtext.FormGeneric); err != nil {
		out.err = "output has no generic form: " + err.Error()
		return out
	}
	// Every op's types still follow its row of the op table (a retyped
	// if whose yields stayed f32 would verify, and mlir-opt does not know
	// coreai's rules).
	var bad []string
	back.Walk(func(op *graph.Operation) bool {
		if why := coreaiop.Mismatch(op); why != "" {
			bad = append(bad, why)
		}
		return true
	})
	if len(bad) > 0 {
		out.err = "rewritten types break the op table: " + strings.Join(bad, "; ")
		return out
	}
	rep, err := Check(back)
	if err != nil {
		out.err = "check fails on the output: " + err.Error()
		return out
	}
	seen := map[string]bool{}
	for _, f := range rep.AllFindings() {
		if f.Rule.Severity != blocker {
			continue
		}
		if fix := f.FixPass(); fix != "" && defaultOn(fix) {
			out.broken = append(out.broken, fmt.Sprintf("%s at %s -> %s (%s)", f.Rule.ID, f.OpName, fix, f.Detail))
		} else if !seen[f.Rule.ID] {
			seen[f.Rule.ID] = true
			out.left = append(out.left, f.Rule.ID)
		}
	}
	return out
}

// TestZooPromise holds the central promise on every zoo module (one module
// per coreai op of graph/coreaiop, in three forms): the default rewrite
// succeeds, its output reads back and mlir-opt reads its generic form, and
// check on it names no blocker whose fix is a default-on pass. The log
// prints the figures.
func TestZooPromise(t *testing.T) {
	mods := zoo.Modules()
	held := 0
	var generic bytes.Buffer
	leftBy := map[string][]string{}
	for _, z := range mods {
		o := rewriteZoo(t, z)
		switch {
		case o.err != "":
			t.Errorf("%s: %s", z.Name, o.err)
		case len(o.broken) > 0:
			t.Errorf("%s: after the default rewrite check still names a default pass:\n  %s", z.Name, strings.Join(o.broken, "\n  "))
		default:
			held++
			if generic.Len() > 0 {
				generic.WriteString("\n// -----\n")
			}
			generic.Write(o.generic)
		}
		for _, r := range o.left {
			leftBy[r] = append(leftBy[r], z.Name)
		}
	}
	t.Logf("zoo: %d modules (%d skipped rows); the promise holds on %d", len(mods), len(zoo.Skipped()), held)
	rules := make([]string, 0, len(leftBy))
	for r := range leftBy {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		t.Logf("still blocked by %s (no anefix pass removes it) in %d module(s): %s", r, len(leftBy[r]), strings.Join(leftBy[r], " "))
	}
	for _, s := range zoo.Skipped() {
		t.Logf("no module for %s: %s", s.Op, s.Why)
	}
	// mlir-opt reads every rewritten module's generic form.
	paths := oracle.MlirOptPaths(t)
	file := filepath.Join(t.TempDir(), "rewritten.mlir")
	if err := os.WriteFile(file, generic.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bin := range paths {
		if _, err := oracle.RunMlirOpt(bin, "", "--split-input-file", "--mlir-print-op-generic", file); err != nil {
			t.Errorf("%s refuses a rewritten zoo module: %v", bin, err)
		}
	}
}

// TestNamedFixesRemoveTheirFindings: wherever check names a pass for a
// finding, running that pass alone with the options the rule prints removes
// it (and leaves no finding of that rule naming the pass), over every zoo
// module and the hand-written coreai corpus.
func TestNamedFixesRemoveTheirFindings(t *testing.T) {
	type input struct{ name, text string }
	var ins []input
	for _, z := range zoo.Modules() {
		ins = append(ins, input{z.Name, string(z.Text)})
	}
	files, _ := filepath.Glob("../../testdata/mlir/coreai/*.mlir")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{f, string(b)})
	}
	named := 0
	for _, in := range ins {
		m, _, err := mlirtext.Parse(in.name, in.text)
		if err != nil || graph.Verify(m) != nil {
			continue // TestZooPromise and the corpus tests report these
		}
		rep, err := Check(m)
		if err != nil {
			t.Fatal(err)
		}
		type fix struct {
			pass string
			set  string
		}
		fixes := map[fix][]Finding{}
		for _, f := range append(rep.AllFindings(), rep.AllSuspects()...) {
			if p := f.FixPass(); p != "" {
				k := fix{p, strings.Join(f.Rule.FixOptions(), " ")}
				fixes[k] = append(fixes[k], f)
			}
		}
		for k, fs := range fixes {
			named += len(fs)
			m, _, _ := mlirtext.Parse(in.name, in.text)
			var set []string
			if k.set != "" {
				set = strings.Split(k.set, " ")
			}
			p, err := passes.Build(passes.Spec{Passes: []string{k.pass}, Set: set})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
				t.Errorf("%s: check names %s (%s) for %s at %s, but the pass fails: %v", in.name, k.pass, k.set, fs[0].Rule.ID, fs[0].OpName, err)
				continue
			}
			after, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range append(after.AllFindings(), after.AllSuspects()...) {
				if g.FixPass() != k.pass || strings.Join(g.Rule.FixOptions(), " ") != k.set {
					continue
				}
				for _, f := range fs {
					if g.Rule == f.Rule {
						t.Errorf("%s: after %s (%s), check still names it for %s at %s: %s", in.name, k.pass, k.set, g.Rule.ID, g.OpName, g.Detail)
						break
					}
				}
			}
		}
	}
	if named == 0 {
		t.Fatal("no finding named a pass: the test tested nothing")
	}
	t.Logf("%d findings named a pass; each pass, run with the printed options, removed them", named)
}

// TestFindingsSayWhatWould: where no pass removes a finding, it names none
// and says what would (an integer port, an f32 interface strip-fp32-casts
// cannot retype, a rank change on a dynamic shape); where a pass does, it is
// named.
func TestFindingsSayWhatWould(t *testing.T) {
	cases := []struct {
		name, text string
		rule       *Rule
		fix        string // "" = no pass named
		detail     string
	}{
		{"argmax result", `module {
  coreai.graph @main(%x: tensor<2x5xf32> {coreai.name = "x"}) -> (tensor<2x1xui32> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1> : tensor<si32>
    %1 = coreai.argmax %x, %0 : (tensor<2x5xf32>, tensor<si32>) -> tensor<2x1xui32>
    coreai.output %1 : tensor<2x1xui32>
  }
}`, RuleElementType, "", "ui32 value (result of coreai.argmax (at t.mlir:4), read by @main output y) stays: no anefix pass changes an integer or bool element type"},
		{"f32 interface through an op strip cannot retype", `module {
  coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xcomplex<f32>> {coreai.name = "y"}) {
    %0 = coreai.create_complex %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
    coreai.output %0 : tensor<2x3xcomplex<f32>>
  }
}`, RuleElementType, "", "the graph's own interface (@main input x) is f32 and strip-fp32-casts does not retype it"},
		{"f32 interface strip retypes", `module {
  coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "y"}) {
    %0 = coreai.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
    coreai.output %0 : tensor<2x3xf32>
  }
}`, RuleElementType, "strip-fp32-casts", "holds graph input"},
		{"dynamic expand_dims", `module {
  coreai.graph @main(%x: tensor<?x3xf16> {coreai.name = "x"}) -> (tensor<?x1x3xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1> : tensor<1xsi32>
    %1 = coreai.expand_dims %x, %0 : (tensor<?x3xf16>, tensor<1xsi32>) to tensor<?x1x3xf16>
    coreai.output %1 : tensor<?x1x3xf16>
  }
}`, ruleIOOp, "", "fold-io-unsqueeze leaves it: its shape tensor<?x3xf16> is dynamic"},
		{"static expand_dims", `module {
  coreai.graph @main(%x: tensor<2x3xf16> {coreai.name = "x"}) -> (tensor<2x1x3xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1> : tensor<1xsi32>
    %1 = coreai.expand_dims %x, %0 : (tensor<2x3xf16>, tensor<1xsi32>) to tensor<2x1x3xf16>
    coreai.output %1 : tensor<2x1x3xf16>
  }
}`, ruleIOOp, "fold-io-unsqueeze", "rank change"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("t.mlir", c.text)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range rep.AllFindings() {
				if f.Rule != c.rule {
					continue
				}
				found = true
				if f.FixPass() != c.fix || !strings.Contains(f.Detail, c.detail) {
					t.Errorf("%s: fix %q, detail %q; want fix %q and %q", f.Rule.ID, f.FixPass(), f.Detail, c.fix, c.detail)
				}
			}
			if !found {
				t.Errorf("no %s finding", c.rule.ID)
			}
		})
	}
}
