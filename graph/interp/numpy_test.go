package interp

import (
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/interp/refvec"
)

func loadVecs(t testing.TB, name string) *refvec.File {
	t.Helper()
	f, err := refvec.ReadFile(filepath.Join("..", "..", "testdata", "numpy", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fromVec converts a reference record into an interpreter tensor.
func fromVec(v *refvec.Tensor) *Tensor {
	shape := append([]int{}, v.Shape...)
	switch v.DType {
	case refvec.F32:
		d := make([]float32, v.Len())
		for i := range d {
			d[i] = math.Float32frombits(v.F32(i))
		}
		return NewFloat(F32, shape, d)
	case refvec.F16:
		d := make([]float32, v.Len())
		for i := range d {
			d[i] = f16.ToFloat32(v.U16(i))
		}
		return NewFloat(F16, shape, d)
	case refvec.SI32:
		d := make([]int64, v.Len())
		for i := range d {
			d[i] = int64(v.I32(i))
		}
		return NewInt(SI32, shape, d)
	case refvec.Bool:
		d := make([]int64, v.Len())
		for i := range d {
			d[i] = int64(v.Data[i])
		}
		return NewInt(Bool, shape, d)
	}
	panic("unsupported refvec dtype " + v.DType.String())
}

// ulps is the distance in units in the last place of kind e between two
// values of that kind (0 for equal, equal NaNs, or ±0).
func ulps(e Elem, a, b float32) int64 {
	if a != a && b != b {
		return 0
	}
	if a == b {
		return 0
	}
	if a != a || b != b {
		return math.MaxInt64
	}
	ord := func(x float32) int64 {
		if e == F16 {
			h := int64(f16.FromFloat32(x))
			if h&0x8000 != 0 {
				return -(h & 0x7fff)
			}
			return h
		}
		u := int64(math.Float32bits(x))
		if u&0x80000000 != 0 {
			return -(u & 0x7fffffff)
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return d
}

// compareTensors checks got against want within maxUlps (0 = bit-identical,
// which also distinguishes -0 from +0).
func compareTensors(t *testing.T, name string, got, want *Tensor, maxUlps int64) (worst int64) {
	t.Helper()
	if !slices.Equal(got.Shape, want.Shape) {
		t.Errorf("%s: shape %v, want %v", name, got.Shape, want.Shape)
		return
	}
	if got.Elem != want.Elem {
		t.Errorf("%s: elem %s, want %s", name, got.Elem, want.Elem)
		return
	}
	if !got.Elem.IsFloat() {
		for i := range want.I {
			if got.I[i] != want.I[i] {
				t.Errorf("%s[%d]: got %d want %d", name, i, got.I[i], want.I[i])
				return
			}
		}
		return
	}
	g, w := got.Floats(), want.Floats()
	bad := 0
	for i := range w {
		u := ulps(want.Elem, g[i], w[i])
		if maxUlps == 0 && u == 0 && w[i] == 0 && !zeroSignFree[name[:strings.Index(name+"/", "/")]] && math.Signbit(float64(g[i])) != math.Signbit(float64(w[i])) {
			u = 1
		}
		worst = max(worst, u)
		if u > maxUlps {
			if bad < 5 {
				t.Errorf("%s[%d]: got %v want %v (%d ulp, allowed %d)", name, i, g[i], w[i], u, maxUlps)
			}
			bad++
		}
	}
	return worst
}

func vecIn(t *testing.T, f *refvec.File, c string, k string) *Tensor {
	t.Helper()
	v, err := f.Get(c + "/" + k)
	if err != nil {
		t.Fatal(err)
	}
	return fromVec(v)
}

// zeroSignFree lists ops whose sign of a zero result numpy itself does not
// define consistently (maximum(-0, +0) is -0 in float16, +0 in float32).
var zeroSignFree = map[string]bool{"maximum": true, "minimum": true, "maximum_scalar": true, "minimum_scalar": true, "relu": true}

// Stated tolerances, in ulps of the result type. Correctly rounded ops must
// be bit-identical; the transcendentals differ only where Go's math library
// and glibc's disagree in float64.
var opTolerance = map[string]int64{
	"exp": 1, "log": 1, "sqrt": 0, "rsqrt": 1, "sigmoid": 1, "silu": 1, "tanh": 1, "gelu": 1,
	"gelu_tanh": 1, "softplus": 1, "sin": 1, "cos": 1, "neg": 0, "abs": 0, "square": 0,
	"softmax": 1, "erf": 1, "pow": 1, "pow_scalar": 1, "reciprocal": 0,
}

// TestOpsAgainstNumpy runs every case of testdata/numpy/ops.vec.gz through
// the kernels and logs the worst ulp distance per case.
func TestOpsAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "ops.vec.gz")
	cases := map[string]bool{}
	for _, n := range f.Order {
		if strings.HasSuffix(n, "/out") {
			cases[strings.TrimSuffix(n, "/out")] = true
		}
	}
	names := make([]string, 0, len(cases))
	for c := range cases {
		names = append(names, c)
	}
	sort.Strings(names)
	var report []string
	for _, c := range names {
		op, dt, _ := strings.Cut(c, "/")
		want := vecIn(t, f, c, "out")
		el := want.Elem
		var got *Tensor
		var err error
		tol := opTolerance[op]
		base := strings.TrimSuffix(op, "_scalar")
		switch {
		case unaryFloat[op] != nil:
			got, err = unary(op, vecIn(t, f, c, "in0"), el)
		case binaryFloat[base] != nil:
			got, err = broadcastBinary(base, vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), el)
		case compareOps[op] != nil:
			got, err = compare(op, vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"))
		case op == "where":
			got, err = where(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), vecIn(t, f, c, "in2"), el)
		case strings.HasPrefix(op, "reduce_"):
			name := op[:strings.LastIndex(op, "_ax")]
			acc16 := strings.Contains(name, "_acc16")
			name = strings.Replace(name, "_acc16", "", 1)
			got, err = reduce(name, vecIn(t, f, c, "in0"), vecIn(t, f, c, "axis").Ints(), true, el, acc16)
		case op == "softmax":
			got, err = softmax(vecIn(t, f, c, "in0"), vecIn(t, f, c, "axis").Ints()[0], el)
		case strings.HasPrefix(op, "matmul"):
			got, err = MatMul(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), false, false, el, strings.HasSuffix(op, "_acc16"))
		case op == "conv1x1":
			got, err = Conv(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), nil, convParams{}, el, false)
		case op == "conv_dw_causal":
			pad := vecIn(t, f, c, "pad").Ints()
			p := convParams{Groups: int(vecIn(t, f, c, "groups").Ints()[0])}
			for i := range p.Pads {
				p.Pads[i] = int(pad[i])
			}
			got, err = Conv(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), nil, p, el, false)
		case op == "transpose":
			got, err = transpose(vecIn(t, f, c, "in0"), vecIn(t, f, c, "perm").Ints())
		case op == "concat":
			got, err = concat([]*Tensor{vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1")}, vecIn(t, f, c, "axis").Ints()[0])
		case op == "slice":
			got, err = slice(vecIn(t, f, c, "in0"), vecIn(t, f, c, "begin").Ints(), vecIn(t, f, c, "stride").Ints(), want.Shape)
		case op == "slice_update":
			got, err = sliceUpdate(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), vecIn(t, f, c, "begin").Ints(), nil, el)
		case op == "gather":
			got, err = gather(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), vecIn(t, f, c, "axis").Ints()[0])
		case op == "gather_nd":
			got, err = gatherND(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"))
		case op == "scatter_nd":
			got, err = ScatterND(vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), vecIn(t, f, c, "in2"), el)
		case op == "broadcast_to":
			got, err = broadcastTo(vecIn(t, f, c, "in0"), want.Shape)
		case op == "dequantize" || op == "quantize" || op == "blockwise_shift_scale":
			// dt is "<data>_<result>"; quantized integers come as si32
			// records and take the IR type the case name gives.
			src, dst, _ := strings.Cut(dt, "_")
			ins := []*Tensor{vecIn(t, f, c, "in0"), vecIn(t, f, c, "scale"), vecIn(t, f, c, "off1"), vecIn(t, f, c, "off2")}
			axis := int64(0)
			if op != "blockwise_shift_scale" {
				axis = vecIn(t, f, c, "axis").Ints()[0]
			}
			if op == "quantize" {
				el = quantElem(dst)
				ins[2] = asElem(ins[2], el)
				got, err = quantize(ins, axis, el)
				want = asElem(want, el)
			} else {
				ins[0], ins[2] = asElem(ins[0], quantElem(src)), asElem(ins[2], quantElem(src))
				got, err = dequantize(ins, axis, el)
			}
		case op == "lut_to_dense" || op == "lut_to_dense_vec":
			got, err = LutToDense(asElem(vecIn(t, f, c, "in0"), UI4), vecIn(t, f, c, "in1"), vecIn(t, f, c, "axis").Ints()[0], el)
		case strings.HasPrefix(op, "cast_"):
			got = cast(vecIn(t, f, c, "in0"), el)
			_ = dt
		default:
			t.Errorf("%s: no kernel mapped to this numpy case", c)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		worst := compareTensors(t, c, got, want, tol)
		report = append(report, c+"="+itoa(worst))
	}
	// split has several results.
	for _, dt := range []string{"f32", "f16"} {
		c := "split/" + dt
		parts, err := splitAxis(vecIn(t, f, c, "in0"), vecIn(t, f, c, "sizes").Ints(), vecIn(t, f, c, "axis").Ints()[0])
		if err != nil || len(parts) != 3 {
			t.Fatalf("%s: %v", c, err)
		}
		for i, p := range parts {
			compareTensors(t, c, p, vecIn(t, f, c, "out"+itoa(int64(i))), 0)
		}
		report = append(report, c+"=0")
	}
	t.Logf("worst ulps per case (%d cases): %s", len(report), strings.Join(report, " "))
	if len(names) < 100 {
		t.Errorf("only %d numpy cases found; the vector file looks truncated", len(names))
	}
}

func quantElem(name string) Elem {
	return map[string]Elem{"si8": SI8, "ui8": UI8, "si4": SI4, "ui4": UI4}[name]
}

// asElem gives an integer tensor another integer kind (values checked to
// fit, so a wrong record cannot pass silently).
func asElem(t *Tensor, e Elem) *Tensor {
	if t.Elem == e {
		return t
	}
	d := make([]int64, len(t.I))
	for i, v := range t.I {
		if e.wrap(v) != v {
			panic("value does not fit " + e.String())
		}
		d[i] = v
	}
	return NewInt(e, append([]int(nil), t.Shape...), d)
}

func itoa(v int64) string {
	if v == math.MaxInt64 {
		return "inf"
	}
	return strings.TrimSpace(strings.Repeat(" ", 0) + formatInt(v))
}

func formatInt(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}

// rawF16 re-encodes an f16 tensor as raw little-endian bytes, the way a
// dense_resource weight reaches the kernels.
func rawF16(t *Tensor) *Tensor {
	b := make([]byte, 2*t.Len())
	for i, v := range t.Floats() {
		h := f16.FromFloat32(v)
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	return &Tensor{Elem: F16, Shape: append([]int(nil), t.Shape...), raw: b, rawEl: F16}
}

// The in-place weight kernels (raw f16 rows, four at a time; transposed
// raw columns) give numpy's bits too.
func TestRawWeightPathsAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "ops.vec.gz")
	// conv1x1: weight rows raw (dot4h over 8 output channels).
	c := "conv1x1/f16"
	got, err := Conv(vecIn(t, f, c, "in0"), rawF16(vecIn(t, f, c, "in1")), nil, convParams{}, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	compareTensors(t, c+" (raw weight)", got, vecIn(t, f, c, "out"), 0)
	// matmul_vec [1,64]·[64,48]: B raw row-major (row form), and B given as
	// a lazily transposed raw [48,64] (contiguous columns, dot4h).
	c = "matmul_vec/f16"
	a, b, want := vecIn(t, f, c, "in0"), vecIn(t, f, c, "in1"), vecIn(t, f, c, "out")
	got, err = MatMul(a, rawF16(b), false, false, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	compareTensors(t, c+" (raw B)", got, want, 0)
	bt, _ := transpose(b, []int64{1, 0})
	lazy, _ := transpose(rawF16(bt), []int64{1, 0})
	if !lazy.rawT {
		t.Fatal("expected a lazy transpose")
	}
	got, err = MatMul(a, lazy, false, false, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	compareTensors(t, c+" (transposed raw B)", got, want, 0)
	// Odd sizes: 7 output rows (4 + 3 remainder) against the float path.
	x := FromF32(F16, []int{1, 5, 1, 2}, []float32{1, -2, 0.5, 3, 0.25, -1, 2, 2, 2, -0.5})
	wv := make([]float32, 7*5)
	for i := range wv {
		wv[i] = float32(i%5) - 1.5 + float32(i)/16
	}
	w := FromF32(F16, []int{7, 5, 1, 1}, wv)
	want2, _ := Conv(x, w, nil, convParams{}, F16, false)
	got2, _ := Conv(x, rawF16(w), nil, convParams{}, F16, false)
	compareTensors(t, "conv 7x5 raw vs float", got2, want2, 0)
}
