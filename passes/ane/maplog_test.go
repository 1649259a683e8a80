package ane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/ane/compilerlog"
)

func TestMapLog(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "compilerlogs", "seed-arm-a.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := compilerlog.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	f16, f32 := graph.F16, graph.F32
	g := newGraph(nil, "main", "", port{"x", tensor(f16, 4), ""})
	c := g.op("coreai.cast", "_to_copy_12", 199, []*graph.Value{g.arg(0)}, tensor(f32, 4))
	// A broadcasting_add whose location has the source line the log cites
	// (qwen3_5_ios.py:330) but another op id: matched by source line.
	add := graph.NewOp("coreai.decomposable.broadcasting_add", []*graph.Value{c, c}, []graph.Type{tensor(f32, 4)}, nil,
		&graph.NameLoc{Name: "add_7", Child: &graph.FileLoc{File: "/x/models/ios/qwen3_5_ios.py", Line: 330}})
	add.InsertBefore(g.g.Terminator())
	g.out(add.Result(0), "y")

	fs := MapLog(g.m, l)
	if len(fs) != len(l.Diagnostics) {
		t.Fatalf("findings %d, diagnostics %d", len(fs), len(l.Diagnostics))
	}
	if fs[0].Rule != RuleElementType || fs[0].Op == nil || fs[0].OpID != "_to_copy_12" || fs[0].Log() != "stderr:1" {
		t.Errorf("first: %+v", fs[0])
	}
	if fs[1].Op != nil || fs[1].OpID != "_to_copy_13" || !strings.Contains(fs[1].Detail, "no op in the model matches") {
		t.Errorf("unmatched id: %+v", fs[1])
	}
	if fs[5].Rule != ruleIOOp || fs[5].Op != add || fs[5].OpID != "add_7" {
		t.Errorf("by source line: %+v", fs[5])
	}
	if fs[6].Rule != ruleReorder {
		t.Errorf("reorder: %+v", fs[6])
	}
	gs := GroupFindings(fs)
	if gs[0].Rule != RuleElementType || gs[0].Count != 1 {
		t.Errorf("groups: %+v", gs[0])
	}
}

func FuzzMapLog(f *testing.F) {
	for _, name := range []string{"seed-arm-a.log", "seed-arm-d.log", "issue205-empty-errorlist.log"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "compilerlogs", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := compilerlog.Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
		g.out(g.op("coreai.exp", "add_40", 330, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
		fs := MapLog(g.m, l)
		if len(fs) != len(l.Diagnostics) {
			t.Fatalf("%d findings for %d diagnostics", len(fs), len(l.Diagnostics))
		}
		_ = GroupFindings(fs)
	})
}
