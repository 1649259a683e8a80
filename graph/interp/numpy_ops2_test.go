package interp

import (
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// ops2Row says how a case of testdata/numpy/ops2.vec.gz ("<op>/<type>[/<variant>]")
// runs: the coreai op as coreai-torch prints it, its operand records in
// operand order (all fed as graph inputs: the interpreter reads a setting
// operand's values whatever defines it), and what else the op needs.
type ops2Row struct {
	op       string
	operands []string
	// ui32 lists operand records that are ui32 in coreai-torch's IR (the
	// vectors store every integer as si32).
	ui32 map[string]bool
	// result is the result's element type when it is not the out record's.
	result Elem
	// props gives the op's enum attributes for a case's variant.
	props func(variant string) []graph.NamedAttr
	tol   int64 // ulps of the result type
}

func enumAttr(name, word string) []graph.NamedAttr {
	return []graph.NamedAttr{{Name: name, Value: &graph.OpaqueAttr{Text: "#coreai." + name + "<" + word + ">"}}}
}

// ops2Rows maps every op of ops2.vec.gz to its row; the unary rows follow.
var ops2Rows = map[string]ops2Row{
	"modulo":             {op: "coreai.decomposable.broadcasting_modulo", operands: []string{"in0", "in1"}},
	"bitwise_and":        {op: "coreai.decomposable.broadcasting_bitwise_and", operands: []string{"in0", "in1"}},
	"bitwise_or":         {op: "coreai.decomposable.broadcasting_bitwise_or", operands: []string{"in0", "in1"}},
	"bitwise_xor":        {op: "coreai.decomposable.broadcasting_bitwise_xor", operands: []string{"in0", "in1"}},
	"and":                {op: "coreai.decomposable.broadcasting_and", operands: []string{"in0", "in1"}},
	"or":                 {op: "coreai.decomposable.broadcasting_or", operands: []string{"in0", "in1"}},
	"xor":                {op: "coreai.decomposable.broadcasting_xor", operands: []string{"in0", "in1"}},
	"not":                {op: "coreai.not", operands: []string{"in0"}},
	"tile":               {op: "coreai.tile", operands: []string{"in0", "reps"}, ui32: map[string]bool{"reps": true}},
	"reverse":            {op: "coreai.reverse", operands: []string{"in0", "axes"}},
	"pad":                {op: "coreai.pad", operands: []string{"in0", "pads", "value"}, ui32: map[string]bool{"pads": true}, props: func(v string) []graph.NamedAttr { return enumAttr("mode", v) }},
	"broadcast_in_dims":  {op: "coreai.broadcast_in_dims", operands: []string{"in0", "sizes", "axes"}, ui32: map[string]bool{"sizes": true}},
	"get_shape":          {op: "coreai.get_shape", operands: []string{"in0"}, result: UI32},
	"broadcast_shapes":   {op: "coreai.broadcast_shapes", operands: []string{"in0", "in1"}, ui32: map[string]bool{"in0": true, "in1": true}, result: UI32},
	"range":              {op: "coreai.range", operands: []string{"start", "end", "step"}},
	"gather_along_axis":  {op: "coreai.gather_along_axis", operands: []string{"in0", "indices", "axis"}},
	"scatter_along_axis": {op: "coreai.scatter_along_axis", operands: []string{"in0", "indices", "updates", "axis"}, props: scatterMode},
	"argmax":             {op: "coreai.argmax", operands: []string{"in0", "axis"}, result: UI32},
	"sort":               {op: "coreai.sort", operands: []string{"in0", "axis", "descending", "sorted"}},
	"argsort":            {op: "coreai.argsort", operands: []string{"in0", "axis", "descending", "sorted"}},
	"any":                {op: "coreai.any", operands: []string{"in0", "axes"}},
	"non_zero":           {op: "coreai.non_zero", operands: []string{"in0"}},
	"scan":               {op: "coreai.scan", operands: []string{"in0", "axis", "flag"}, ui32: map[string]bool{"axis": true}, props: func(string) []graph.NamedAttr { return enumAttr("combiner", "sum") }},
	"max_pool_2d":        {op: "coreai.max_pool_2d", operands: []string{"in0", "kernel", "stride", "dilation", "ceil"}, ui32: windowUI32},
	"sum_pool_2d":        {op: "coreai.sum_pool_2d", operands: []string{"in0", "kernel", "stride", "dilation"}, ui32: windowUI32},
	"sum_pool_3d":        {op: "coreai.sum_pool_3d", operands: []string{"in0", "kernel", "stride", "dilation"}, ui32: windowUI32},
	"conv3d":             {op: "coreai.conv3d", operands: []string{"in0", "in1", "strides", "dilations", "groups"}, ui32: map[string]bool{"strides": true, "dilations": true, "groups": true}},
	"conv_transpose2d": {op: "coreai.conv_transpose2d", operands: []string{"in0", "in1", "stride", "padding", "dilation", "output_padding", "groups"},
		ui32: map[string]bool{"stride": true, "padding": true, "dilation": true, "output_padding": true, "groups": true}},
	"interpolate": {op: "coreai.interpolate", operands: []string{"in0", "size", "scale", "offset"}, props: func(v string) []graph.NamedAttr {
		if strings.HasPrefix(v, "nearest") {
			return enumAttr("interpolation_mode", "nearest_neighbor")
		}
		return enumAttr("interpolation_mode", "linear")
	}},
}

var windowUI32 = map[string]bool{"kernel": true, "stride": true, "dilation": true}

func scatterMode(v string) []graph.NamedAttr {
	if v == "update" {
		return nil // coreai-torch writes no scatter_mode for torch.scatter's src form
	}
	return enumAttr("scatter_mode", v)
}

func init() {
	for _, u := range []string{"acos", "asin", "atan", "atanh", "asinh", "acosh", "sinh", "cosh", "tan"} {
		// Transcendentals: Go's math library and glibc may differ by an ulp
		// (opTolerance's rule for exp, sin, …).
		ops2Rows[u] = ops2Row{op: "coreai." + u, operands: []string{"in0"}, tol: 1}
	}
}

// TestOps2AgainstNumpy runs every case of testdata/numpy/ops2.vec.gz as a
// one-op coreai graph through the interpreter (so the operand layout, enum
// attributes and result checks are exercised with the kernels) and compares
// the result with numpy's within the row's tolerance (0: bit for bit).
func TestOps2AgainstNumpy(t *testing.T) {
	f := loadVecs(t, "ops2.vec.gz")
	var cases []string
	for _, n := range f.Order {
		if c, ok := strings.CutSuffix(n, "/out"); ok {
			cases = append(cases, c)
		}
	}
	sort.Strings(cases)
	used := map[string]bool{}
	var report []string
	for _, c := range cases {
		parts := strings.SplitN(c, "/", 3)
		variant := ""
		if len(parts) == 3 {
			variant = parts[2]
		}
		if parts[0] == "while" {
			continue // a region op: TestWhileAgainstNumpy
		}
		row, ok := ops2Rows[parts[0]]
		if !ok {
			t.Errorf("%s: no op row for this numpy case", c)
			continue
		}
		used[parts[0]] = true
		want := vecIn(t, f, c, "out")
		if row.result != ElemInvalid {
			want = asElem(want, row.result)
		}
		var types []graph.Type
		var args []*Tensor
		for _, k := range row.operands {
			a := vecIn(t, f, c, k)
			if row.ui32[k] {
				a = asElem(a, UI32)
			}
			args = append(args, a)
			types = append(types, a.Type())
		}
		b, vals := newGB("main", types...)
		var props []graph.NamedAttr
		if row.props != nil {
			props = row.props(variant)
		}
		b.output(b.emit(row.op, vals, want.Type(), props...))
		if err := graph.Verify(b.m); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		res, err := New(b.m, Options{AccumulateF16: variant == "acc16"}).Run("main", args)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		worst := compareTensors(t, c, res[0], want, row.tol)
		report = append(report, c+"="+itoa(worst))
	}
	for op := range ops2Rows {
		if !used[op] {
			t.Errorf("%s: row without a numpy case", op)
		}
	}
	t.Logf("worst ulps per case (%d cases): %s", len(report), strings.Join(report, " "))
	if len(cases) < 100 {
		t.Errorf("only %d numpy cases found; the vector file looks truncated", len(cases))
	}
}
