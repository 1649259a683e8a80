package interp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"github.com/anefix/anefix/graph/interp/refvec"
	"github.com/anefix/anefix/graph/mlirtext"
)

// zooNoNumpy lists the zoo's modules (op, with ":variant", without
// "coreai.") that testdata/numpy/zoo.vec.gz has no case for, and why. Every
// other zoo module must have one: TestZooAgainstNumpy fails on a module
// neither covered nor listed, so a new zoo op gets a numpy case or a reason.
var zooNoNumpy = map[string]string{
	"create_complex":      "complex element types: the interpreter refuses them (README \"Known limits\")",
	"real_part":           "complex element types: the interpreter refuses them",
	"imaginary_part":      "complex element types: the interpreter refuses them",
	"expand_dims:dynamic": "a dynamic shape: the interpreter refuses it",
	"shrink_dims:dynamic": "a dynamic shape: the interpreter refuses it",
	"non_zero":            "a data-dependent result shape: the interpreter refuses it (ops2.vec.gz checks the kernel)",
	"invoke:external":     "a call to a graph without a body: nothing to compute",
	"metal4_kernel":       "Metal shader source: no numpy equivalent, the interpreter refuses it",
	"read_handle":         "a state (handle) port: its output is a token; slice_update, what it computes, has its own case",
}

// TestZooAgainstNumpy runs every zoo module in its f32-io form (f32 graph
// ports) on the inputs testdata/numpy/gen.py drew for it and compares each
// output with numpy's within the case's tolerance (0: bit for bit; 1 ulp
// where gen.py computes in float64 and Go's math library may round the
// other way). TestZooModulesRun checks only that each module runs; here
// what it computes is checked, for every zoo op numpy has.
func TestZooAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "zoo.vec.gz")
	cases := map[string]bool{}
	for _, n := range f.Order {
		if c, ok := strings.CutSuffix(n, "/tol"); ok {
			cases[strings.TrimPrefix(c, "zoo/")] = true
		}
	}
	var covered, lacking []string
	seen := map[string]bool{}
	for _, zm := range zoo.Modules() {
		if zm.Form != zoo.FormF32IO {
			continue
		}
		key := strings.TrimPrefix(strings.TrimSuffix(zm.Name, "/"+zm.Form), "coreai.")
		seen[key] = true
		why, listed := zooNoNumpy[key]
		switch {
		case !cases[key] && listed:
			lacking = append(lacking, key+" ("+why+")")
			continue
		case !cases[key]:
			t.Errorf("%s: no case in testdata/numpy/zoo.vec.gz and not listed in zooNoNumpy: add one to gen.py's zoo()", key)
			continue
		case listed:
			t.Errorf("%s: listed in zooNoNumpy but zoo.vec.gz has a case for it", key)
		}
		covered = append(covered, key)
		t.Run(key, func(t *testing.T) { zooCase(t, f, key, zm) })
	}
	for c := range cases {
		if !seen[c] {
			t.Errorf("zoo.vec.gz has a case %q for no zoo module (renamed or removed?)", c)
		}
	}
	for k := range zooNoNumpy {
		if !seen[k] {
			t.Errorf("zooNoNumpy lists %q, which is no zoo module", k)
		}
	}
	slices.Sort(lacking)
	t.Logf("%d zoo ops checked against numpy: %s", len(covered), strings.Join(covered, " "))
	t.Logf("%d without a numpy case: %s", len(lacking), strings.Join(lacking, "; "))
}

// zooCase feeds one module its recorded inputs and compares its outputs.
func zooCase(t *testing.T, f *refvec.File, key string, zm zoo.Module) {
	m, _, err := mlirtext.Parse(zm.Name+".mlir", string(zm.Text))
	if err != nil {
		t.Fatal(err)
	}
	c := "zoo/" + key
	g := m.Graph("main")
	var args []*Tensor
	for i, p := range g.Inputs() {
		tt, ok := graph.AsTensor(p.Type)
		if !ok || !tt.IsStatic() {
			t.Fatalf("input %d is %s, not a static tensor", i, p.Type)
		}
		el, err := ElemOf(tt.Elem)
		if err != nil {
			t.Fatal(err)
		}
		shape, err := ShapeOf(tt)
		if err != nil {
			t.Fatal(err)
		}
		a := vecIn(t, f, c, fmt.Sprintf("in%d", i))
		if !slices.Equal(a.Shape, shape) {
			t.Fatalf("in%d: gen.py drew shape %v, the zoo module takes %v: update gen.py's zoo()", i, a.Shape, shape)
		}
		if a.Elem != el {
			a = asElem(a, el)
		}
		args = append(args, a)
	}
	if _, err := f.Get(fmt.Sprintf("%s/in%d", c, len(args))); err == nil {
		t.Fatalf("gen.py drew more than the module's %d inputs", len(args))
	}
	outs, err := New(m, Options{}).Run("main", args)
	if err != nil {
		t.Fatal(err)
	}
	tol := int64(vecIn(t, f, c, "tol").I[0])
	for j, got := range outs {
		want := vecIn(t, f, c, fmt.Sprintf("out%d", j))
		if want.Elem != got.Elem && !want.Elem.IsFloat() {
			want = asElem(want, got.Elem)
		}
		compareTensors(t, fmt.Sprintf("%s/out%d", key, j), got, want, tol)
	}
	if _, err := f.Get(fmt.Sprintf("%s/out%d", c, len(outs))); err == nil {
		t.Errorf("gen.py expects more than the module's %d outputs", len(outs))
	}
}
