package ane

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// fp16 hazards: constants and bounded inputs whose values do not survive
// IEEE binary16 arithmetic. They are advisory (severity Hazard): they never
// change a verdict, a region count or the exit code, because the compiler
// accepts such graphs; what they threaten is the numbers, not placement.
//
// The facts they rest on are those of the binary16 format itself (graph/f16
// implements the rounding): the largest finite value is 65504; values of
// magnitude 65520 and above round to ±inf; nonzero values below 2^-25 in
// magnitude round to ±0; exp(x) exceeds 65504 for x > ln(65504) ≈ 11.0898.

// expLimit is ln(65504): exp of anything larger is not finite in fp16.
var expLimit = math.Log(f16.MaxHalf)

// maxHazardScanBytes bounds how many bytes of dense_resource blobs one check
// reads for the constant hazards (full-scale weights are about 1.5 GB, read
// in 1 MiB pieces). Blobs past the budget are skipped with a note.
const maxHazardScanBytes = 4 << 30

const hazardChunk = 1 << 20

// constStats summarises one float constant's elements.
type constStats struct {
	n                int64   // elements examined
	posInf, negInf   int64   // ±inf as stored
	overflow         int64   // finite, |x| > 65504 (rounds to ±65504 or ±inf in fp16)
	toInf            int64   // finite but rounds to ±inf in fp16 (|x| >= 65520)
	flush            int64   // nonzero but rounds to ±0 in fp16
	min, max         float64 // over finite and infinite elements (NaN skipped)
	firstOver        float64 // first finite |x| > 65504
	firstFlush       float64 // first value that flushes to zero
	haveMin, sawNaN  bool
	resource, reason string // resource key; why it was skipped (a category)
	why              string // the skip's specifics (sizes, the read error)
}

func (s *constStats) addValue(v float64, checkNarrow bool) {
	s.n++
	if math.IsNaN(v) {
		s.sawNaN = true
		return
	}
	if !s.haveMin || v < s.min {
		s.min = v
	}
	if !s.haveMin || v > s.max {
		s.max = v
	}
	s.haveMin = true
	switch {
	case math.IsInf(v, 1):
		s.posInf++
		return
	case math.IsInf(v, -1):
		s.negInf++
		return
	}
	if !checkNarrow {
		return
	}
	a := math.Abs(v)
	if a > f16.MaxHalf {
		if s.overflow == 0 {
			s.firstOver = v
		}
		s.overflow++
		if f16.IsInf(f16.FromFloat64(v)) {
			s.toInf++
		}
	}
	if v != 0 && f16.FromFloat64(v)&0x7fff == 0 {
		if s.flush == 0 {
			s.firstFlush = v
		}
		s.flush++
	}
}

// f32 bit patterns (sign cleared) the fast path compares against: 65504,
// 65520 (the tie between 65504 and 2^16, which rounds to even: inf), 2^-25
// (the tie between 0 and 2^-24, which rounds to even: 0), +inf.
const (
	f32MaxHalf  = 0x477fe000
	f32HalfInf  = 0x477ff000
	f32HalfZero = 0x33000000
	f32Inf      = 0x7f800000
)

// addF32 is addValue for one f32 by its bits, without a float conversion
// for the common, safe case (TestAddF32 checks it against addValue).
func (s *constStats) addF32(bits uint32) {
	a := bits & 0x7fffffff
	if a >= f32Inf || a > f32MaxHalf || (a != 0 && a <= f32HalfZero) {
		s.addValue(float64(math.Float32frombits(bits)), true)
		return
	}
	s.n++
	v := float64(math.Float32frombits(bits))
	if !s.haveMin {
		s.min, s.max, s.haveMin = v, v, true
	} else if v < s.min {
		s.min = v
	} else if v > s.max {
		s.max = v
	}
}

// addF16Counts folds a histogram of f16 bit patterns into s: the same
// result as addValue on each element (f16 narrows to nothing, so only
// counts, min and max matter, none of which depends on the order), at the
// cost of one increment per element.
func (s *constStats) addF16Counts(hist *[1 << 16]uint32) {
	for h, c := range hist {
		if c == 0 {
			continue
		}
		s.addValue(f16.ToFloat64(uint16(h)), false)
		s.n += int64(c) - 1
		switch {
		case f16.IsInf(uint16(h)) && h&0x8000 != 0:
			s.negInf += int64(c) - 1
		case f16.IsInf(uint16(h)):
			s.posInf += int64(c) - 1
		}
	}
}

// addChunk classifies whole elements of p, little-endian, of element type
// name (f16, bf16, f32 or f64); the type is switched on once per chunk.
// f16 elements are counted into hist, which addF16Counts folds in.
func (s *constStats) addChunk(name string, p []byte, narrow bool, hist *[1 << 16]uint32) {
	switch name {
	case "f16":
		for i := 0; i+2 <= len(p); i += 2 {
			hist[binary.LittleEndian.Uint16(p[i:])]++
		}
	case "bf16":
		for i := 0; i+2 <= len(p); i += 2 {
			s.addValue(float64(f16.BF16ToFloat32(binary.LittleEndian.Uint16(p[i:]))), narrow)
		}
	case "f32":
		for i := 0; i+4 <= len(p); i += 4 {
			s.addF32(binary.LittleEndian.Uint32(p[i:]))
		}
	case "f64":
		for i := 0; i+8 <= len(p); i += 8 {
			s.addValue(math.Float64frombits(binary.LittleEndian.Uint64(p[i:])), narrow)
		}
	}
}

// hazardScan holds what the hazard rules read, shared by the graphs of a
// module (a resource is scanned once).
type hazardScan struct {
	m       *graph.Module
	budget  int64
	noBlobs bool                       // Options.NoHazardBlobs
	res     map[string]*graph.Resource // the module's resources by key, made at the first blob
	byKey   map[string]*constStats
	byOp    map[*graph.Operation]*constStats // inline constants, read once
	// skips groups the blobs skipped by reason, in first-seen order, so
	// an export whose weights are all absent gets one note, not hundreds.
	skips     map[string]*skipNote
	skipOrder []string
}

type skipNote struct {
	count      int
	first, why string // the first blob and op; its specifics
}

func newHazardScan(m *graph.Module) *hazardScan {
	return &hazardScan{m: m, budget: maxHazardScanBytes, byKey: map[string]*constStats{}, byOp: map[*graph.Operation]*constStats{}, skips: map[string]*skipNote{}}
}

func (h *hazardScan) skip(reason, first, why string) {
	n := h.skips[reason]
	if n == nil {
		n = &skipNote{first: first, why: why}
		h.skips[reason] = n
		h.skipOrder = append(h.skipOrder, reason)
	}
	n.count++
}

// notes says what was skipped, one line per reason.
func (h *hazardScan) notes() []string {
	var out []string
	for _, r := range h.skipOrder {
		n := h.skips[r]
		why := ""
		if n.why != "" {
			why = "; " + n.why
		}
		if n.count == 1 {
			out = append(out, fmt.Sprintf("%s skipped: %s%s", n.first, r, why))
		} else {
			out = append(out, fmt.Sprintf("%d dense_resource blobs skipped: %s (the first: %s%s)", n.count, r, n.first, why))
		}
	}
	return out
}

// floatConstStats reads a coreai.constant's float value: inline dense
// elements or a dense_resource blob through graph.Resource's BlobSource, in
// bounded pieces. It returns nil for non-float constants and for values it
// cannot read (noted, never an error: the rules look at types, not bytes).
func (h *hazardScan) floatConstStats(op *graph.Operation) *constStats {
	switch a := op.Inherent("value").(type) {
	case *graph.DenseElementsAttr:
		ft, ok := a.Type.Elem.(*graph.FloatType)
		if !ok || graph.ElemBytes(ft) == 0 || strings.HasPrefix(ft.Name, "f8") {
			return nil
		}
		n := a.NumElements()
		if a.Splat {
			n = 1
		}
		if size, ok := graph.MulSize(n, int64(graph.ElemBytes(ft))); !ok || int64(len(a.Raw)) < size {
			return nil
		}
		if s, done := h.byOp[op]; done {
			return s
		}
		s := &constStats{}
		h.byOp[op] = s
		narrow := ft.Name != "f16"
		for i := int64(0); i < n; i++ {
			s.addValue(a.Float64At(i), narrow)
		}
		return s
	case *graph.DenseResourceAttr:
		ft, ok := a.Type.Elem.(*graph.FloatType)
		if !ok || a.Type == nil {
			return nil
		}
		s, done := h.byKey[a.Key]
		if !done {
			s = h.scanResource(a.Key, ft, a.Type)
			h.byKey[a.Key] = s
			if s.reason != "" {
				h.skip(s.reason, fmt.Sprintf("dense_resource<%s> (%s)", a.Key, op.DescribeInGraph()), s.why)
			}
		}
		if s.reason != "" {
			return nil
		}
		return s
	}
	return nil
}

func (h *hazardScan) scanResource(key string, ft *graph.FloatType, t *graph.TensorType) *constStats {
	s := &constStats{resource: key}
	switch ft.Name {
	case "f16", "bf16", "f32", "f64":
	default:
		s.reason = "element type " + ft.Name + " is not read by the hazard rules"
		return s
	}
	if h.noBlobs {
		s.reason = "dense_resource blobs are not read (--hazard-weights=false)"
		return s
	}
	if h.res == nil {
		h.res = h.m.ResourcesByKey()
	}
	r := h.res[key]
	if r == nil || r.Blob == nil {
		s.reason = "its bytes are not in the file"
		return s
	}
	size := r.Blob.Size()
	if want, err := t.ByteSize(); err != nil || size != want {
		s.reason = "the blob's size does not match its type"
		s.why = fmt.Sprintf("the blob holds %d bytes, %s needs %d", size, t, want)
		if err != nil {
			s.why = fmt.Sprintf("the blob holds %d bytes for %v", size, err)
		}
		return s
	}
	if size > h.budget {
		s.reason = fmt.Sprintf("the scan budget of %d bytes per check is spent", int64(maxHazardScanBytes))
		return s
	}
	h.budget -= size
	narrow := ft.Name != "f16"
	buf := make([]byte, min(int64(hazardChunk), size))
	// The budget keeps a blob under 2^32 f16 elements, so counts fit.
	var hist *[1 << 16]uint32
	if ft.Name == "f16" {
		hist = new([1 << 16]uint32)
	}
	for off := int64(0); off < size; {
		k := min(int64(len(buf)), size-off)
		if _, err := r.Blob.ReadAt(buf[:k], off); err != nil && err != io.EOF {
			s.reason = "reading the blob failed"
			s.why = fmt.Sprintf("at byte %d: %v", off, err)
			return s
		}
		s.addChunk(ft.Name, buf[:k], narrow, hist)
		off += k
	}
	if hist != nil {
		s.addF16Counts(hist)
	}
	return s
}

// hazards runs the fp16 hazard rules over the graph's ops.
func (c *checker) checkHazards() {
	if c.scan == nil {
		return
	}
	for _, op := range c.ops {
		switch baseOpName(op.Name) {
		case "coreai.constant":
			c.constantHazards(op)
		case "coreai.exp":
			c.expHazard(op)
		}
	}
}

func fmtVal(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// numLabel is "op_id N: " when op's location carries a numeric op id (the
// FX name is the group's op id already), else "".
func numLabel(op *graph.Operation) string {
	if n, ok := graph.OpNumber(op.Loc); ok {
		return "op_id " + strconv.FormatUint(n, 10) + ": "
	}
	return ""
}

// userLabel names the first op that reads op's result, for the finding's
// detail ("used by add_3 (op_id 9)").
func userLabel(op *graph.Operation) string {
	if op.NumResults() == 0 {
		return ""
	}
	for _, u := range op.Result(0).Uses() {
		if l := graph.OpLabel(u.Op.Loc); l != "" {
			return "; used by " + l
		}
		return "; used by " + u.Op.Name
	}
	return ""
}

func hazardWhat(op *graph.Operation, s *constStats) string {
	what := numLabel(op)
	if s.resource != "" {
		what += "dense_resource<" + s.resource + ">, "
	}
	return what
}

func (c *checker) constantHazards(op *graph.Operation) {
	s := c.scan.floatConstStats(op)
	if s == nil || s.n == 0 {
		return
	}
	what := hazardWhat(op, s)
	rng := fmt.Sprintf("range [%s, %s] over %d element(s)", fmtVal(s.min), fmtVal(s.max), s.n)
	if inf := s.posInf + s.negInf; inf > 0 || s.overflow > 0 {
		var parts []string
		if s.negInf > 0 {
			parts = append(parts, fmt.Sprintf("%d × -inf", s.negInf))
		}
		if s.posInf > 0 {
			parts = append(parts, fmt.Sprintf("%d × +inf", s.posInf))
		}
		if s.overflow > 0 {
			parts = append(parts, fmt.Sprintf("%d finite beyond ±65504 (first %s; %d of them round to ±inf in fp16)",
				s.overflow, fmtVal(s.firstOver), s.toInf))
		}
		fix := ""
		if s.haveMin && s.min < -f16.MaxHalf { // -inf or below -65504: a mask finite-masks rewrites
			fix = "finite-masks"
		}
		c.add(HazardRange, op, fix, what+strings.Join(parts, ", ")+"; "+rng+userLabel(op))
	}
	if s.flush > 0 {
		c.add(HazardFlush, op, "", fmt.Sprintf("%s%d nonzero value(s) round to 0 in fp16 (first %s; fp16's smallest subnormal is 2^-24 ≈ 5.96e-08); %s%s",
			what, s.flush, fmtVal(s.firstFlush), rng, userLabel(op)))
	}
}

// interval bounds every element of a value: lo ≤ x ≤ hi. A side marked
// open is not proven (it stands at ∓inf); only closed sides are evidence.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
	how            string
}

func unbounded() interval {
	return interval{lo: math.Inf(-1), hi: math.Inf(1), loOpen: true, hiOpen: true}
}

func (iv interval) String() string {
	lo, hi := fmtVal(iv.lo), fmtVal(iv.hi)
	if iv.loOpen {
		lo = "?"
	}
	if iv.hiOpen {
		hi = "?"
	}
	return "[" + lo + ", " + hi + "]"
}

// bound proves a range for v from what the graph states: constants, data
// movement (reshape, transpose, expand/shrink dims, slice, cast), clamps
// (broadcasting_maximum then broadcasting_minimum, as coreai-torch lowers
// torch.clamp), and add, sub and mul by interval arithmetic. Anything else
// (graph inputs, states, matmuls) is unbounded: the rule never guesses.
func (c *checker) bound(v *graph.Value, depth int) interval {
	if v == nil || depth > 32 {
		return unbounded()
	}
	d := v.DefiningOp()
	if d == nil {
		return unbounded()
	}
	name := baseOpName(d.Name)
	switch name {
	case "coreai.constant":
		s := c.scan.floatConstStats(d)
		if s == nil || s.n == 0 || s.sawNaN || !s.haveMin {
			return unbounded()
		}
		return interval{lo: s.min, hi: s.max, how: "constant " + graph.OpLabel(d.Loc)}
	case "coreai.reshape", "coreai.transpose", "coreai.expand_dims", "coreai.shrink_dims", "coreai.slice", "coreai.cast":
		if d.NumOperands() == 0 || !isFloatValue(v) {
			return unbounded()
		}
		iv := c.bound(d.Operand(0), depth+1)
		if name == "coreai.cast" && isF16Value(v) { // rounding is monotonic
			iv.lo, iv.hi = f16.ToFloat64(f16.FromFloat64(iv.lo)), f16.ToFloat64(f16.FromFloat64(iv.hi))
		}
		return iv
	}
	if d.NumOperands() != 2 {
		return unbounded()
	}
	a, b := c.bound(d.Operand(0), depth+1), c.bound(d.Operand(1), depth+1)
	how := func(op string) string {
		var parts []string
		for _, x := range []interval{a, b} {
			if x.how != "" {
				parts = append(parts, x.how+" "+x.String())
			}
		}
		return op + " of " + strings.Join(parts, " and ")
	}
	var r interval
	switch name {
	case "coreai.broadcasting_minimum":
		// min(x, y) ≤ y.hi whatever x is.
		r = interval{lo: math.Min(a.lo, b.lo), hi: math.Min(a.hi, b.hi),
			loOpen: a.loOpen || b.loOpen, hiOpen: a.hiOpen && b.hiOpen, how: how("minimum")}
	case "coreai.broadcasting_maximum":
		r = interval{lo: math.Max(a.lo, b.lo), hi: math.Max(a.hi, b.hi),
			loOpen: a.loOpen && b.loOpen, hiOpen: a.hiOpen || b.hiOpen, how: how("maximum")}
	case "coreai.broadcasting_add":
		r = interval{lo: a.lo + b.lo, hi: a.hi + b.hi, loOpen: a.loOpen || b.loOpen, hiOpen: a.hiOpen || b.hiOpen, how: how("sum")}
	case "coreai.broadcasting_sub":
		r = interval{lo: a.lo - b.hi, hi: a.hi - b.lo, loOpen: a.loOpen || b.hiOpen, hiOpen: a.hiOpen || b.loOpen, how: how("difference")}
	case "coreai.broadcasting_mul":
		if a.loOpen || a.hiOpen || b.loOpen || b.hiOpen {
			return unbounded()
		}
		p := []float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
		r = interval{lo: p[0], hi: p[0], how: how("product")}
		for _, x := range p {
			r.lo, r.hi = math.Min(r.lo, x), math.Max(r.hi, x)
		}
	default:
		return unbounded()
	}
	if math.IsNaN(r.lo) || math.IsNaN(r.hi) { // inf - inf, 0 × inf
		return unbounded()
	}
	if r.loOpen && r.hiOpen {
		return unbounded()
	}
	return r
}

func isFloatValue(v *graph.Value) bool {
	_, ok := graph.ElementType(v.Type()).(*graph.FloatType)
	return ok
}

func isF16Value(v *graph.Value) bool { return graph.IsFloat(graph.ElementType(v.Type()), "f16") }

// expHazard flags an exp whose input is proven able to exceed ln(65504):
// its proven upper bound is above it (the bound is reached by a constant, or
// by a clamp's limit when the clamped value gets there), or its proven lower
// bound is, so that every element overflows.
func (c *checker) expHazard(op *graph.Operation) {
	if op.NumOperands() == 0 {
		return
	}
	iv := c.bound(op.Operand(0), 0)
	hiOver := !iv.hiOpen && iv.hi > expLimit
	loOver := !iv.loOpen && iv.lo > expLimit
	if !hiOver && !loOver {
		return
	}
	var reach string
	switch {
	case hiOver && math.IsInf(iv.hi, 1):
		reach = "it can be +inf"
	case hiOver:
		reach = "exp(" + fmtVal(iv.hi) + ") = " + fmtVal(math.Exp(iv.hi))
	default:
		reach = "exp(" + fmtVal(iv.lo) + ") = " + fmtVal(math.Exp(iv.lo))
	}
	always := ""
	if loOver {
		always = "; every element overflows (lower bound " + fmtVal(iv.lo) + ")"
	}
	c.add(HazardExp, op, "", fmt.Sprintf("%sinput range %s from %s: %s, above ln(65504) ≈ %.4f, so the result is +inf in fp16%s",
		numLabel(op), iv, iv.how, reach, expLimit, always))
}
