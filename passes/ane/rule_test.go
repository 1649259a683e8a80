package ane

// The harness of the per-rule table tests (rule_*_test.go, suspect_*_test.go,
// hazard_*_test.go, apple_*_test.go, advice_*_test.go) and the tests that
// hold the rule table together.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleCase is one row of a rule's table test: a module and the rule's
// findings on it, each "op name: detail", with " [fix X]" when the finding
// names its own fixing pass and " [N ops illegal]" at the end when the
// rule makes ops illegal without a finding of their own.
type ruleCase struct {
	name string
	// The module: built, MLIR text, or a file under ../../testdata.
	build func() *graph.Module
	text  string
	file  string
	// arch is the --architecture the case is checked for ("" is the
	// default), for rules whose limit differs by architecture.
	arch string
	want []string
}

func (c ruleCase) module(t *testing.T) *graph.Module {
	t.Helper()
	switch {
	case c.build != nil:
		return c.build()
	case c.file != "":
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		c.text = string(b)
	}
	m, _, err := mlirtext.Parse(c.name+".mlir", c.text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testRule runs rule r alone over each case's module (every graph, with
// the module's fp16 scan) and compares its findings. It also fails when
// the rule asks for a shared result its Requires does not declare.
func testRule(t *testing.T, r *Rule, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.module(t)
			if err := graph.Verify(m); err != nil {
				t.Fatalf("test module does not verify: %v", err)
			}
			got := runRuleAloneFor(t, r, m, c.arch)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s findings:\n got %q\nwant %q", r.ID, got, c.want)
			}
		})
	}
}

func runRuleAlone(t *testing.T, r *Rule, m *graph.Module) []string {
	t.Helper()
	return runRuleAloneFor(t, r, m, "")
}

// runRuleAloneFor is runRuleAlone for architecture arch ("" is the default).
func runRuleAloneFor(t *testing.T, r *Rule, m *graph.Module, arch string) []string {
	t.Helper()
	facts, err := anefacts.Module(m, graph.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseArchitecture(arch)
	if err != nil {
		t.Fatal(err)
	}
	mod := newModuleRun(facts, a)
	scan := anefacts.NewScan(m)
	var out []string
	for _, f := range facts {
		if !f.HasBody() {
			continue
		}
		gr := newGraphRun(f, scan, mod)
		for fact := range gr.run(r) {
			if !slices.Contains(r.Requires, fact) {
				t.Errorf("rule %s reads %s, which its Requires does not declare", r.ID, fact.Name)
			}
		}
		for _, l := range [][]Finding{gr.findings, gr.suspects, gr.hazards, gr.advice} {
			sortFindings(l)
			for _, x := range l {
				if x.Rule != r {
					t.Errorf("rule %s reported a finding under %s", r.ID, x.Rule.ID)
				}
				s := x.OpName + ": " + x.Detail
				if x.Fix() != "" {
					s += " [fix " + x.Fix() + "]"
				}
				out = append(out, s)
			}
		}
		if n := gr.alsoMarked; n > 0 {
			out = append(out, fmt.Sprintf("[%d ops illegal]", n))
		}
	}
	return out
}

// TestRulesListed fails when a rule is declared (a package-level
// `&Rule{…}` in any file of this package) but missing from Rules, when
// Rules lists one twice, when a rule has no Run without being a
// compiler-diagnostic row (or the other way round), and when the file
// declaring a rule has no table test beside it (X.go's X_test.go calling
// testRule with the rule; a compiler row's test naming it).
func TestRulesListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string]string{} // ID → variable
	fileOf := map[string]string{}   // ID → declaring file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if id, ok := ruleLiteralID(v); ok {
						declared[id] = vs.Names[i].Name
						fileOf[id] = name
					}
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("no rule declarations found: the parse is broken")
	}
	for id, v := range declared {
		if RuleByID(id) == nil {
			t.Errorf("rule %s (%q) is declared but not in Rules (rules.go)", v, id)
		}
	}
	seen := map[*Rule]bool{}
	for _, r := range Rules {
		if seen[r] {
			t.Errorf("rule %q listed twice", r.ID)
		}
		seen[r] = true
		if _, ok := declared[r.ID]; !ok {
			t.Errorf("rule %q is listed but its declaration was not found", r.ID)
		}
		if (r.Run == nil) != r.FromCompiler {
			t.Errorf("rule %q: Run is %v but FromCompiler is %v (only compiler-diagnostic rows have no Run)", r.ID, r.Run != nil, r.FromCompiler)
		}
	}
	for id, v := range declared {
		test := strings.TrimSuffix(fileOf[id], ".go") + "_test.go"
		b, err := os.ReadFile(test)
		want := "testRule(t, " + v + ","
		if r := RuleByID(id); r != nil && r.FromCompiler {
			want = v
		}
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("rule %s (%s) has no table test: %s should hold %q", v, fileOf[id], test, want)
		}
	}
}

// ruleLiteralID returns the ID of a `&Rule{ID: "…", …}` expression.
func ruleLiteralID(e ast.Expr) (string, bool) {
	u, ok := e.(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return "", false
	}
	cl, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	if id, ok := cl.Type.(*ast.Ident); !ok || id.Name != "Rule" {
		return "", false
	}
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
			if lit, ok := kv.Value.(*ast.BasicLit); ok {
				s, err := strconv.Unquote(lit.Value)
				return s, err == nil
			}
		}
	}
	return "", false
}
