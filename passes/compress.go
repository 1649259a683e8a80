package passes

// What the weight-compression passes share (palettize.go,
// quantize_weights.go, legalize_weights.go): which constants are weights
// and along which axis their output channels run, how a weight's values
// are read group by group without loading it whole, how new constants are
// made, and the per-weight record of what a rewrite cost.

import (
	"fmt"
	"math"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/internal/cluster"
	"github.com/anefix/anefix/passes/internal/ops"
)

// CompressedWeight records one weight a compression pass rewrote.
type CompressedWeight struct {
	Op       OpRef
	Resource string // the weight's dense_resource key; "" for an inline constant
	Type     string // the weight's type
	// Form says what it became ("4-bit LUT, per-grouped-channel 32, kmeans").
	Form string
	// Group is the number of channels per palette (LUTGroup) for a LUT, the
	// block size along the input axis for linear quantization; 0 for one
	// palette or scale over the whole tensor.
	Group       int64
	BytesBefore int64 // the constant's storage
	BytesAfter  int64 // the new constants' storage
	// SNR is the weight's signal-to-noise ratio after the rewrite in dB,
	// 10·log10(Σw² / Σ(w − ŵ)²) over every element, ŵ being the value the
	// program reconstructs (rounded to the weight's type as the
	// interpreter computes it); +Inf when every element is exact.
	SNR float64
	// SignalPower and ErrorPower are Σw² and Σ(w − ŵ)², so totals over
	// weights can be formed.
	SignalPower, ErrorPower float64
	// Rule is the entry of the pass's rules option that set it
	// (weight_rules.go: 1 for the first rule), 0 for the pass's own options.
	Rule int
	// Name is the weight's name as patterns match it (weightNames' first).
	Name string
	key  string // weightConst.ruleKey
}

// LeftWeight records one weight a compression pass took and left as it is.
type LeftWeight struct {
	Name     string // as CompressedWeight.Name
	Op       OpRef
	Resource string
	Type     string
	Bytes    int64 // its storage, unchanged
	Rule     int   // as CompressedWeight.Rule
	// Reason says why ("its 68 output channels (axis 0) are not a multiple
	// of group-size 32", "a skip rule").
	Reason string
	// Hint is a setting under which the pass would take it, as a rule or
	// --set writes it ("group-size=34"); "" when none is known.
	Hint string
	key  string
}

// leftWhy is why a plan leaves a weight, "" reason for none, and a setting
// that would take it.
type leftWhy struct{ reason, hint string }

// left is the record of w left as it is for why.
func (w *weightConst) left(why leftWhy) LeftWeight {
	return LeftWeight{Name: w.label(), Op: ref(w.g, w.op), Resource: w.res, Type: w.typ.String(), Bytes: w.bytes(),
		Rule: w.rule, Reason: why.reason, Hint: why.hint, key: w.ruleKey()}
}

// nearestDivisor is the divisor of n nearest to want, at least atLeast
// when n has such a divisor (ties go to the larger): a group or block size
// that divides a weight's channels where want did not.
func nearestDivisor(n, want, atLeast int64) int64 {
	best := int64(0)
	floor := int64(1)
	if atLeast <= n {
		floor = atLeast
	}
	for d := floor; d <= n; d++ {
		if n%d != 0 {
			continue
		}
		if best == 0 || abs64(d-want) <= abs64(best-want) {
			best = d
		}
	}
	return best
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// SNRdB is 10·log10(signal/err) for reports, +Inf for no error.
func SNRdB(signal, err float64) float64 { return snrDB(signal, err) }

// snrDB is 10·log10(signal/err), +Inf for no error.
func snrDB(signal, err float64) float64 {
	if err <= 0 {
		return math.Inf(1)
	}
	if signal <= 0 {
		return math.Inf(-1)
	}
	return 10 * math.Log10(signal/err)
}

// compressOps are the consumers that make a constant a weight, as
// coreai-optimization's passes choose them (_OPS_WEIGHT_NEED_COMPRESSION in
// src/coreai_opt/coreai_utils/passes/__init__.py).
var compressOps = []string{"batch_matmul", "broadcasting_batch_matmul", "conv2d", "gather_nd", "transpose"}

// weightSelectDoc is the selector options' documentation, shared by the
// passes that take them.
const weightSelectDoc = `Which constants: a coreai.constant of a float type (f16, bf16, f32) with
a static shape and more than min-elements elements whose every use is one
of the ops= kinds (default: batch_matmul, broadcasting_batch_matmul,
conv2d, gather_nd, transpose: coreai-optimization's choice,
src/coreai_opt/coreai_utils/passes/__init__.py; its rule of also taking
constants of 10^8 elements or more whatever reads them is not followed),
one of whose names matches a glob of weights= and none of exclude= (a
weight's names: its resource key, its op id (FX name), the SSA name its
MLIR text gives it (%v13, or v13), each it has; op#N, its position in its
graph as inspect counts ops, when it has none; '*' matches any run of
characters, '/' included, so weights=* takes every weight). Reports and
notes name a weight by the first of its names. tied-head=false leaves the
tied embedding/head table alone (the constant that feeds both a gather_nd
table and a matmul, the test check's suspect.tied-head-constant uses). A
selector that matches nothing is a note, not an error, which counts the
float constants each criterion left.`

// declareWeightSelect declares the selector options every compression
// pass shares, bound to that pass's fields.
func declareWeightSelect(d *Decls, ops, weights, exclude *[]string, tiedHead *bool, minElements *int) {
	Declare(d, ops, Option[[]string]{Name: "ops", Default: compressOps, Doc: "the op kinds whose constant operands are weights (without coreai. or decomposable.)", Check: checkNonEmptyList})
	Declare(d, weights, Option[[]string]{Name: "weights", Default: []string{"*"}, Doc: "globs over the names of the constants to take (resource key, FX name, the text's SSA name)", Check: checkGlobs})
	Declare(d, exclude, Option[[]string]{Name: "exclude", Doc: "globs of constants to leave alone", Check: checkGlobs})
	Declare(d, tiedHead, Option[bool]{Name: "tied-head", Default: true, Doc: "take the tied embedding/head table too"})
	Declare(d, minElements, Option[int]{Name: "min-elements", Default: 1024, Doc: "take only constants with more elements than this (coreai-optimization's weight_num_threshold)", Check: checkNonNegative})
}

func checkNonEmptyList(l []string) error {
	if len(l) == 0 {
		return fmt.Errorf("want at least one value")
	}
	return nil
}

func checkGlobs(l []string) error {
	for _, g := range l {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad glob %q: %v", g, err)
		}
	}
	return nil
}

func checkNonNegative(n int) error {
	if n < 0 {
		return fmt.Errorf("want a number >= 0, got %d", n)
	}
	return nil
}

// weightSelect is the selector part of a compression pass's options.
type weightSelect struct {
	Ops         []string
	Weights     []string
	Exclude     []string
	TiedHead    bool
	MinElements int
}

// weightConst is a constant chosen as a weight.
type weightConst struct {
	g      *graph.Graph
	op     *graph.Operation
	typ    *graph.TensorType
	elem   string // f16, bf16, f32
	blob   graph.BlobSource
	res    string // resource key ("" inline)
	axis   int    // output-channel axis
	inAxis int    // input-channel axis (-1 when the rank has none)
	note   string // why the axes are a default
	rule   int    // the rules entry that sets it (weight_rules.go): 0 for the pass's own options
	names  []string
	index  int // the op's position in its graph, as OpRef.index and inspect's op#N count
}

// name is the key new blobs and palette seeds derive from: the resource
// key, else the op id ("" for an inline constant without one).
func (w *weightConst) name() string {
	if w.res != "" {
		return w.res
	}
	return w.op.OpID()
}

// label is the name reports and notes give the weight: the first of its
// names, which patterns match.
func (w *weightConst) label() string { return w.names[0] }

// weightNames are the names patterns (weights=, exclude=, rules) match, the
// first the one reports print: the resource key, the op id (FX name), the
// SSA name the MLIR text gave it ("%v13", matched also without the '%'),
// each when it has one; a weight with none of them is named by its
// position in its graph as inspect numbers ops ("op#12"). So every weight
// has a name, and "*" matches every weight.
func weightNames(res string, op *graph.Operation, index int) []string {
	var out []string
	for _, n := range []string{res, op.OpID(), graph.TextName(op)} {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if t := graph.TextName(op); t != "" {
		out = append(out, t[1:])
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("op#%d", index))
	}
	return out
}

func (w *weightConst) bytes() int64 { return w.typ.NumElements() * int64(graph.ElemBytes(w.typ.Elem)) }

// Why the selector leaves a float constant, the first of these it fails in
// the order pick asks them; counted for the note on an empty selection.
const (
	rejUnused   = iota // no op reads it
	rejOps             // an op outside ops= reads it
	rejSize            // min-elements or fewer elements
	rejOneValue        // a scalar or splat, or a value attribute that is no array
	rejWeights         // no glob of weights= matches a name
	rejExclude         // a glob of exclude= matches a name
	rejTied            // the tied embedding/head table, with tied-head=false
	rejBytes           // its blob is absent or of the wrong size (a note says which)
	nRej
)

// rejections counts the float constants a selection left, by reason.
type rejections struct {
	float    int // float constants of static shape
	n        [nRej]int
	reader   string   // the first reader outside ops= met
	unnamed  []string // the first few names weights= matched none of
	excluded []string // the first few names exclude= matched
}

func (r *rejections) add(why int, names []string) {
	r.n[why]++
	switch {
	case why == rejWeights && len(r.unnamed) < 3:
		r.unnamed = append(r.unnamed, names[0])
	case why == rejExclude && len(r.excluded) < 3:
		r.excluded = append(r.excluded, names[0])
	}
}

// note says how many float constants each criterion of s rejected, so
// that a user sees which option to change when nothing is taken.
func (r *rejections) note(s weightSelect) string {
	if r.float == 0 {
		return "no weight taken: the module has no float constant of static shape"
	}
	var parts []string
	add := func(why int, format string, args ...any) {
		if n := r.n[why]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, fmt.Sprintf(format, args...)))
		}
	}
	add(rejUnused, "read by no op")
	add(rejOps, "read by an op outside ops=%s (e.g. %s)", strings.Join(s.Ops, ","), r.reader)
	add(rejSize, "of %d elements or fewer (min-elements=%d)", s.MinElements, s.MinElements)
	add(rejOneValue, "holding one value (a scalar or splat: nothing to compress)")
	add(rejWeights, "matched by no glob of weights=%s (names such as %s)", strings.Join(s.Weights, ","), strings.Join(r.unnamed, ", "))
	add(rejExclude, "matched by exclude=%s (%s)", strings.Join(s.Exclude, ","), strings.Join(r.excluded, ", "))
	add(rejTied, "the tied embedding/head table (tied-head=false)")
	add(rejBytes, "without their bytes (see the notes above)")
	return fmt.Sprintf("no weight taken: of %d float constant(s), %s; a weight is named by its resource key, FX name or the SSA name its MLIR text gives it (%%v13), else op#N as inspect numbers ops", r.float, strings.Join(parts, ", "))
}

// pick returns the weights of m the selector takes, in module order, and
// notes on constants it had to leave (absent bytes, unknown axes); when it
// takes none, a note counts the float constants each criterion rejected.
func (s weightSelect) pick(m *weightModule) ([]*weightConst, []string) {
	kinds := map[string]bool{}
	for _, k := range s.Ops {
		k = strings.TrimPrefix(strings.TrimPrefix(k, "coreai."), "decomposable.")
		kinds["coreai."+k] = true
	}
	var out []*weightConst
	var notes []string
	var rej rejections
	for _, g := range m.Graphs() {
		index := -1
		g.Op.Walk(func(op *graph.Operation) bool {
			if op == g.Op {
				return true // not counted: inspect's op#0 is the body's first op
			}
			index++
			if op.Name != "coreai.constant" || op.NumResults() != 1 {
				return true
			}
			tt, _ := op.Result(0).Type().(*graph.TensorType)
			if tt == nil || !tt.IsStatic() {
				return true
			}
			ft, _ := tt.Elem.(*graph.FloatType)
			if ft == nil || (ft.Name != "f16" && ft.Name != "bf16" && ft.Name != "f32") {
				return true
			}
			rej.float++
			w := &weightConst{g: g, op: op, typ: tt, elem: ft.Name, index: index}
			if why := s.reject(m, w, kinds, &rej, &notes); why >= 0 {
				rej.add(why, w.names)
				return true
			}
			w.inAxis, w.axis, w.note = weightAxes(op)
			out = append(out, w)
			return true
		})
	}
	if len(out) == 0 {
		notes = append(notes, rej.note(s))
	}
	return out, notes
}

// reject is why the selector leaves w (a rej constant), or -1 when it
// takes it; it fills in w's names and bytes on the way.
func (s weightSelect) reject(m *weightModule, w *weightConst, kinds map[string]bool, rej *rejections, notes *[]string) int {
	op := w.op
	uses := op.Result(0).Uses()
	if len(uses) == 0 {
		return rejUnused
	}
	for _, u := range uses {
		if !kinds[coreaiop.Base(u.Op.Name)] {
			if rej.reader == "" {
				rej.reader = u.Op.Name
			}
			return rejOps
		}
	}
	if w.typ.NumElements() <= int64(s.MinElements) {
		return rejSize
	}
	var blob graph.BlobSource
	switch a := op.Inherent("value").(type) {
	case *graph.DenseResourceAttr:
		w.res = a.Key
	case *graph.DenseElementsAttr:
		if a.Splat {
			return rejOneValue
		}
		blob = graph.MemBlob(a.Raw)
	default:
		return rejOneValue
	}
	if w.typ.Rank() == 0 {
		return rejOneValue
	}
	w.names = weightNames(w.res, op, w.index)
	switch {
	case !w.matchesAny(s.Weights):
		return rejWeights
	case w.matchesAny(s.Exclude):
		return rejExclude
	case !s.TiedHead && IsTiedHeadTable(op):
		return rejTied
	}
	if w.res != "" {
		r := m.Resource(w.res)
		if r == nil || r.Blob == nil {
			*notes = append(*notes, fmt.Sprintf("%s (%s): left alone: the bytes of dense_resource<%s> are not in the file", w.label(), op.DescribeInGraph(), w.res))
			return rejBytes
		}
		if r.Blob.Size() != w.bytes() {
			*notes = append(*notes, fmt.Sprintf("%s (%s): left alone: dense_resource<%s> has %d bytes, its type %s needs %d", w.label(), op.DescribeInGraph(), w.res, r.Blob.Size(), w.typ, w.bytes()))
			return rejBytes
		}
		blob = r.Blob
	}
	w.blob = blob
	return -1
}

// matchesAny says whether one of globs matches one of the weight's names
// (weightNames): the one pattern language of weights=, exclude= and the
// rules option.
func (w *weightConst) matchesAny(globs []string) bool {
	for _, g := range globs {
		for _, n := range w.names {
			if globMatch(g, n) {
				return true
			}
		}
	}
	return false
}

// globMatch is path.Match with '/' an ordinary character, so that '*'
// matches any run of characters and "*" every name (a resource key may
// hold '/'): both sides spell '/' as U+FFFF, a noncharacter, first.
func globMatch(pattern, name string) bool {
	ok, _ := path.Match(strings.ReplaceAll(pattern, "/", "\uffff"), strings.ReplaceAll(name, "/", "\uffff"))
	return ok
}

// weightAxes are the input- and output-channel axes of a weight, chosen
// from what reads it as coreai-optimization's
// _select_input_output_channel_axis does (src/coreai_opt/coreai_utils/
// _utils/graph_utils.py): a matmul's y operand has its outputs on the last
// axis and inputs on the one before, its x operand the reverse; a transpose
// takes the axes of the matmul it feeds; gather_nd, conv2d and everything
// else put outputs on axis 0 and inputs on 1. Uses that disagree give the
// defaults (0 and 1), with a note.
func weightAxes(op *graph.Operation) (in, out int, note string) {
	rank := op.Result(0).Type().(*graph.TensorType).Rank()
	norm := func(a int) int {
		if a < 0 {
			a += rank
		}
		return a
	}
	isMatmul := func(o *graph.Operation) bool {
		b := coreaiop.Base(o.Name)
		return b == "coreai.batch_matmul" || b == "coreai.broadcasting_batch_matmul"
	}
	type pair struct{ in, out int }
	seen := map[pair]bool{}
	for _, u := range op.Result(0).Uses() {
		p := pair{1, 0}
		switch {
		case isMatmul(u.Op) && u.Index == 1:
			p = pair{norm(-2), norm(-1)}
		case isMatmul(u.Op):
			p = pair{norm(-1), norm(-2)}
		case coreaiop.Base(u.Op.Name) == "coreai.transpose" && u.Op.NumResults() == 1:
			tp := map[pair]bool{}
			for _, tu := range u.Op.Result(0).Uses() {
				if isMatmul(tu.Op) {
					if tu.Index == 1 {
						tp[pair{norm(-1), norm(-2)}] = true
					} else {
						tp[pair{norm(-2), norm(-1)}] = true
					}
				}
			}
			if len(tp) == 1 {
				for q := range tp {
					p = q
				}
			}
		}
		seen[p] = true
	}
	if rank < 2 {
		return -1, 0, ""
	}
	if len(seen) == 1 {
		for p := range seen {
			return p.in, p.out, ""
		}
	}
	return 1, 0, "its uses disagree on the output-channel axis; axis 0 taken (as coreai-optimization does)"
}

// geometry is a weight's shape seen around its output-channel axis:
// outer × channels × inner elements, row-major.
type geometry struct {
	outer, channels, inner int64
}

func newGeometry(shape []int64, axis int) geometry {
	g := geometry{outer: 1, channels: shape[axis], inner: 1}
	for d, n := range shape {
		switch {
		case d < axis:
			g.outer *= n
		case d > axis:
			g.inner *= n
		}
	}
	return g
}

func (g geometry) n() int64 { return g.outer * g.channels * g.inner }

// floatReader decodes a float weight blob of elem (f16, bf16 or f32).
type floatReader struct {
	src  graph.BlobSource
	elem string
	eb   int64
}

func newFloatReader(src graph.BlobSource, elem string) floatReader {
	eb := int64(2)
	if elem == "f32" {
		eb = 4
	}
	return floatReader{src: src, elem: elem, eb: eb}
}

// read fills buf with the bytes of elements [e0, e0+len(buf)/eb).
func (r floatReader) read(buf []byte, e0 int64) error {
	if n, err := r.src.ReadAt(buf, e0*r.eb); n < len(buf) {
		return fmt.Errorf("reading weight bytes at element %d: %v", e0, err)
	}
	return nil
}

// value decodes element i of raw.
func (r floatReader) value(raw []byte, i int) float64 {
	switch r.elem {
	case "f16":
		return f16.ToFloat64(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
	case "bf16":
		return float64(f16.BF16ToFloat32(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8))
	}
	return float64(math.Float32frombits(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24))
}

// roundTo rounds x to a float element type (f16, bf16, f32) as the
// interpreter rounds a result of that type.
func roundTo(elem string, x float64) float64 {
	switch elem {
	case "f16":
		return f16.ToFloat64(f16.FromFloat64(x))
	case "bf16":
		return float64(f16.BF16ToFloat32(f16.BF16FromFloat64(x)))
	case "f32":
		return float64(float32(x))
	}
	return x
}

// maxFinite is the largest finite value of a float element type.
func maxFinite(elem string) float64 {
	switch elem {
	case "f16":
		return f16.MaxHalf
	case "bf16":
		return float64(f16.BF16ToFloat32(0x7f7f))
	}
	return math.MaxFloat32
}

// minPositive is the smallest positive value (subnormal) of a float
// element type.
func minPositive(elem string) float64 {
	switch elem {
	case "f16":
		return math.Ldexp(1, -24)
	case "bf16":
		return math.Ldexp(1, -133)
	}
	return math.SmallestNonzeroFloat32
}

// roundDown is the largest value of elem at most x (x >= 0), the largest
// finite one for an x past it.
func roundDown(elem string, x float64) float64 {
	r := roundTo(elem, x)
	if r <= x {
		return r
	}
	switch elem { // r is the next value up (or inf): step one below it
	case "f16":
		return f16.ToFloat64(f16.FromFloat64(r) - 1)
	case "bf16":
		return float64(f16.BF16ToFloat32(f16.BF16FromFloat64(r) - 1))
	}
	return float64(math.Nextafter32(float32(r), 0))
}

// fitScale keeps a stored scale (a value of elem) whose products with up
// to steps quantization steps the program computes in elem: no larger
// than the largest scale whose steps·scale stays finite (a scale rounded
// up to the type can carry the extreme step past its largest value:
// ±65504 f16 weights at si8 got 516·127 = 65532, inf), and, for a block
// with a range, positive (one that rounds to 0 takes the type's smallest
// positive value, which all-subnormal blocks need).
func fitScale(elem string, scale, steps float64, hasRange bool) float64 {
	if scale == 0 && hasRange {
		scale = minPositive(elem)
	}
	if steps > 0 {
		scale = math.Min(scale, roundDown(elem, maxFinite(elem)/steps))
	}
	return scale
}

// lossNote says why a compressed weight must not replace its constant,
// "" when it may: a reconstruction that is not finite, or one that turns
// every nonzero value into 0 (nonzero and flushed count such values).
func lossNote(errPower, nonzero, flushed float64) string {
	switch {
	case math.IsInf(errPower, 0) || math.IsNaN(errPower):
		return "its reconstruction would not be finite"
	case nonzero > 0 && flushed == nonzero:
		return fmt.Sprintf("all %.0f of its nonzero values would reconstruct as 0 (smaller than half the smallest step the scheme can store for them)", nonzero)
	}
	return ""
}

// groupBatch is a run of consecutive channel groups of a weight read into
// memory: for every outer index o, the channels [c0, c1) × inner elements,
// contiguous (data[o·run + (c − c0)·inner + r]).
type groupBatch struct {
	g0, g1 int // groups
	c0, c1 int64
	run    int64 // elements per outer index
	raw    []byte
}

// batchBytes bounds a batch's buffer (a batch holds at least one group).
const batchBytes = 8 << 20

// forGroupBatches reads the weight in batches of whole groups of size
// channels each and calls f on each batch, from up to GOMAXPROCS
// goroutines (f must only touch what belongs to its groups). The first
// error stops the walk.
func forGroupBatches(r floatReader, geo geometry, group int64, f func(b *groupBatch) error) error {
	ng := int(geo.channels / group)
	per, workers := batchPlan(geo, group, r.eb)
	type job struct{ g0, g1 int }
	jobs := make(chan job)
	var mu sync.Mutex
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return first != nil
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := range jobs {
				if failed() {
					continue
				}
				b := &groupBatch{g0: j.g0, g1: j.g1, c0: int64(j.g0) * group, c1: int64(j.g1) * group}
				b.run = (b.c1 - b.c0) * geo.inner
				need := int(geo.outer * b.run * r.eb)
				if cap(buf) < need {
					buf = make([]byte, need)
				}
				b.raw = buf[:need]
				var err error
				for o := int64(0); o < geo.outer && err == nil; o++ {
					e0 := (o*geo.channels + b.c0) * geo.inner
					err = r.read(b.raw[o*b.run*r.eb:(o+1)*b.run*r.eb], e0)
				}
				if err == nil {
					err = f(b)
				}
				if err != nil {
					fail(err)
				}
			}
		}()
	}
	for g := 0; g < ng; g += per {
		jobs <- job{g, min(ng, g+per)}
	}
	close(jobs)
	wg.Wait()
	return first
}

// batchPlan is how forGroupBatches reads a weight of geometry geo in
// groups of group channels: per groups a batch and workers goroutines,
// each holding one batch (memory estimates count the same).
func batchPlan(geo geometry, group, eb int64) (per, workers int) {
	ng := int(geo.channels / group)
	per = max(1, int(batchBytes/max(1, geo.outer*group*geo.inner*eb)))
	// Enough batches to keep every core busy to the end of the weight.
	per = max(1, min(per, ng/(4*runtime.GOMAXPROCS(0))))
	return per, max(1, min(runtime.GOMAXPROCS(0), (ng+per-1)/per))
}

// batchHeap is the memory forGroupBatches holds at once for such a weight:
// a batch buffer per worker.
func batchHeap(geo geometry, group, eb int64) int64 {
	per, workers := batchPlan(geo, group, eb)
	return int64(workers) * int64(per) * geo.outer * group * geo.inner * eb
}

// groupRaw calls f with each contiguous run of group g's raw bytes in a
// batch ((o, c, r) order).
func (b *groupBatch) groupRaw(geo geometry, group int64, eb int64, g int, f func(raw []byte)) {
	c := int64(g)*group - b.c0
	for o := int64(0); o < geo.outer; o++ {
		s := (o*b.run + c*geo.inner) * eb
		f(b.raw[s : s+group*geo.inner*eb])
	}
}

// weightModule is the module a compression pass edits, with its resource
// table indexed once and its constant style asked once: a pass over n
// weights that looked each blob up (graph.Module.Resource scans the table)
// or asked the style per new constant did work quadratic in the model's
// size (TestPassWorkLinear). The embedded module's own Resource and
// UniqueResourceKey are shadowed by the indexed ones below; resources
// added through AddBlob stay indexed.
type weightModule struct {
	*graph.Module
	byKey map[string]*graph.Resource
	keys  *graph.ResourceKeys
	style ops.Style
}

func newWeightModule(m *graph.Module) *weightModule {
	return &weightModule{Module: m, byKey: m.ResourcesByKey(), keys: m.ResourceKeys(), style: ops.StyleOf(m)}
}

// Resource is the first resource named key, as graph.Module.Resource.
func (m *weightModule) Resource(key string) *graph.Resource { return m.byKey[key] }

// newConst inserts before ref a coreai.constant holding a (dense or
// dense_resource), styled as the module's constants.
func newConst(m *weightModule, a graph.Attr, t *graph.TensorType, ref *graph.Operation, loc graph.Loc) *graph.Value {
	op := m.style.ConstValue(a, t, loc)
	op.InsertBefore(ref)
	return op.Result(0)
}

// blobAttr adds blob as a resource under a new key derived from base and
// returns the dense_resource attribute of type t naming it.
func blobAttr(m *weightModule, base string, blob graph.BlobSource, align uint64, t *graph.TensorType) *graph.DenseResourceAttr {
	key := m.keys.Unique(base)
	r := m.AddResource(key, align, blob)
	if _, dup := m.byKey[key]; !dup {
		m.byKey[key] = r
	}
	return &graph.DenseResourceAttr{Key: key, Type: t}
}

// shared makes the constants one compressed weight needs, and makes them
// once: a weight blob read by several constants (each function of a
// multi-function export holds its own constant of the shared weight) gets
// one set of new blobs, which every rewritten constant names.
type shared struct {
	made []sharedConst
	n    int // constants made in the current emission
}

type sharedConst struct {
	a graph.Attr
	t *graph.TensorType
}

// konst inserts before ref the next constant of this emission: the one
// mk makes the first time, the same attribute every later time.
func (sh *shared) konst(m *weightModule, ref *graph.Operation, loc graph.Loc, mk func() (graph.Attr, *graph.TensorType)) *graph.Value {
	i := sh.n
	sh.n++
	if i >= len(sh.made) {
		a, t := mk()
		sh.made = append(sh.made, sharedConst{a, t})
	}
	c := sh.made[i]
	return newConst(m, c.a, c.t, ref, loc)
}

// again starts another emission of the same constants.
func (sh *shared) again() bool {
	reused := sh.n > 0
	sh.n = 0
	return reused
}

// compressWeights is the loop palettize and quantize-weights share. Each
// selected weight is planned once per blob (weightKey: the constants of one
// blob in several functions share the plan and its new blobs) or left as it
// is, recorded in ch.Left with why; emit writes the plan's ops before the constant
// (first: this is the plan's first constant, the one the report lists) and
// returns the value that replaces it; the blobs nothing refers to any more
// are dropped at the end.
//
// bound is asked about every weight before any is planned, and its error
// (a weight whose plan would need more memory or work than allowed) stops
// the pass with the module unchanged.
func compressWeights[P any](ctx *Context, m *weightModule, ws []*weightConst, ch *Change, pass, done string, bound func(*weightConst) error,
	sh func(P) *shared, plan func(*weightConst) (P, leftWhy, error), emit func(p P, w *weightConst, first bool) *graph.Value) error {
	var total, read int64
	for _, w := range ws {
		if err := bound(w); err != nil {
			return err
		}
		total += w.bytes()
	}
	var replaced []string
	plans := map[string]P{}
	skipped := map[string]bool{}
	sharedN := 0
	for _, w := range ws {
		// Planning (k-means, rounding) is what takes seconds on a large
		// model: the bar counts the bytes of weights planned or passed over.
		ctx.Progress(read, total, "")
		read += w.bytes()
		if w.note != "" {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s (%s): %s", w.label(), w.op.DescribeInGraph(), w.note))
		}
		k := weightKey(w)
		if skipped[k] {
			continue // noted once, for the first constant of the blob
		}
		p, ok := plans[k]
		if !ok {
			var skip leftWhy
			var err error
			stop := countReads(ctx, w, read-w.bytes(), total)
			p, skip, err = plan(w)
			stop()
			if err != nil {
				return fmt.Errorf("%s: %s: %v", pass, w.op.DescribeInGraph(), err)
			}
			if skip.reason != "" {
				ch.Left = append(ch.Left, w.left(skip))
				if k != "" {
					skipped[k] = true
				}
				continue
			}
			if k != "" {
				plans[k] = p
			}
		}
		first := !sh(p).again()
		out := emit(p, w, first)
		if !first {
			sharedN++
		}
		if w.res != "" {
			replaced = append(replaced, w.res)
		}
		w.op.Result(0).ReplaceAllUsesWith(out)
		if err := w.op.Erase(); err != nil {
			return fmt.Errorf("%s: %s: %v", pass, w.op.DescribeInGraph(), err)
		}
		ch.OpsRemoved++
	}
	ctx.Progress(total, total, "")
	if sharedN > 0 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%d more constant(s) read weights already %s here (the same blob in another function) and name the same new blobs", sharedN, done))
	}
	dropUnreferenced(m, replaced)
	return nil
}

// countReads has the progress of ctx (Context.Progress) follow the reads
// of w's blob while w is planned, so that a bar moves through one large
// weight (an embedding is a third of a model) instead of jumping over it:
// base + the bytes read so far, at most w's size (planning may read a
// weight twice). The returned stop ends the counting; the plan keeps
// reading the blob while it is written, uncounted.
func countReads(ctx *Context, w *weightConst, base, total int64) (stop func()) {
	if !ctx.following() || w.blob == nil {
		return func() {}
	}
	orig, size := w.blob, w.bytes()
	var seen atomic.Int64
	var live atomic.Bool
	live.Store(true)
	w.blob = countedBlob{orig, func(n int64) {
		if live.Load() {
			ctx.Progress(base+min(seen.Add(n), size), total, "")
		}
	}}
	return func() { live.Store(false); w.blob = orig }
}

// countedBlob calls read with the size of every read of its blob.
type countedBlob struct {
	graph.BlobSource
	read func(n int64)
}

func (b countedBlob) ReadAt(p []byte, off int64) (int, error) {
	n, err := b.BlobSource.ReadAt(p, off)
	b.read(int64(n))
	return n, err
}

// weightKey identifies the weight a constant holds: its blob, type,
// output axis and rules entry (constants of one blob and type compress
// alike unless rules give them different settings).
func weightKey(w *weightConst) string {
	if w.res == "" {
		return ""
	}
	return fmt.Sprintf("%s|%s|%d|%d", w.res, w.typ, w.axis, w.rule)
}

// floatDense is an inline dense attribute of float element type elem
// holding vals (rounded to elem).
func floatDense(elem graph.Type, shape []int64, vals []float64) *graph.DenseElementsAttr {
	ft := elem.(*graph.FloatType)
	eb := graph.ElemBytes(ft)
	raw := make([]byte, eb*len(vals))
	for i, v := range vals {
		bits := graph.FloatBits(v, ft.Name)
		for k := 0; k < eb; k++ {
			raw[eb*i+k] = byte(bits >> (8 * k))
		}
	}
	return &graph.DenseElementsAttr{Type: graph.Tensor(elem, shape...), Raw: raw, Splat: allEqual(raw, eb)}
}

// intDense is an inline dense attribute of an integer element type (one
// element per byte or more, as MLIR stores dense integers).
func intDense(elem *graph.IntegerType, shape []int64, vals []int64) *graph.DenseElementsAttr {
	eb := graph.ElemBytes(elem)
	raw := make([]byte, eb*len(vals))
	for i, v := range vals {
		for k := 0; k < eb; k++ {
			raw[eb*i+k] = byte(uint64(v) >> (8 * k))
		}
	}
	return &graph.DenseElementsAttr{Type: graph.Tensor(elem, shape...), Raw: raw, Splat: allEqual(raw, eb)}
}

// allEqual reports a buffer of one repeated element (then the attribute is
// stored as a splat: raw keeps only the first element).
func allEqual(raw []byte, eb int) bool {
	if len(raw) <= eb {
		return false
	}
	for i := eb; i < len(raw); i++ {
		if raw[i] != raw[i%eb] {
			return false
		}
	}
	return true
}

// splatOrDense keeps one element of a splat attribute (MLIR's storage).
func splatOrDense(a *graph.DenseElementsAttr) *graph.DenseElementsAttr {
	if a.Splat {
		a.Raw = a.Raw[:graph.ElemBytes(a.Type.Elem)]
	}
	return a
}

// dropUnreferenced removes the resources of keys that no op refers to any
// more (the blobs of the constants a compression pass replaced); with
// attributes it cannot see into, it keeps them for dce.
func dropUnreferenced(m *weightModule, keys []string) {
	refs, ok := m.ResourceRefs()
	if !ok {
		return
	}
	var drop []string
	for _, k := range keys {
		if refs[k] == 0 {
			drop = append(drop, k)
			delete(m.byKey, k)
		}
	}
	m.RemoveResources(drop...)
}

// inlineLUTBytes bounds the LUTs and scales written as inline dense<…>
// (coreai-torch prints palettes that way); larger ones go to a blob.
const inlineLUTBytes = 64 << 10

// The memory a compression pass's plan of one weight is estimated to take
// at its peak, counted from the weight's shape and the options before any
// value is read, so that a weight over the limit (Context.MaxMemory,
// rewrite --max-memory) is refused before the pass starts any work. Each
// term follows an allocation of palettize.go, quantize_weights.go,
// legalize_weights.go or internal/cluster; TestWeightMemoryEstimate
// measures the heap against them. The Go runtime may keep up to about
// twice the live heap before it collects (GOGC=100), so the process's
// resident size can exceed the estimate by that much.
const (
	// scalarBase is a goroutine's 1-D clustering scratch apart from the
	// exact k-means' split table: a 2^16-key histogram with its points
	// (cluster.Hist16) and the prefix sums over up to 2^16 distinct
	// values (cluster.Workspace).
	scalarBase = 6 << 20
	// assignerBytes is one palette entry's share of a cluster.Assigner
	// (a float64 threshold and an int32 key threshold).
	assignerBytes = 12
	// histBytes is the histogram every goroutine's scratch holds, vector
	// palettes included (cluster.Hist16's counts and seen-bits).
	histBytes = 1<<16*4 + 1<<10*8
)

// scalarScratch is a goroutine's 1-D clustering scratch for palettes of k
// entries: scalarBase and the exact k-means' table of the best split per
// entry and end, for up to 4,096 distinct values (int32 each).
func scalarScratch(k int64) int64 { return scalarBase + k*4097*4 }

// lutHeap is planLUT's estimated peak for a weight of geometry geo and
// element size eb under s, in groups of group channels.
func lutHeap(geo geometry, group, eb int64, s lutSettings) int64 {
	ng := geo.channels / group
	p, v := int64(1)<<s.Bits, int64(s.ClusterDim)
	_, workers := batchPlan(geo, group, eb)
	conc := min(int64(workers), ng) // groups being clustered at once
	heap := batchHeap(geo, group, eb)
	if v > 1 {
		// The group's values as float64 (x, kept per goroutine), and per
		// vector a k-means++ distance (float64) and an assignment (int32).
		elems := geo.outer * group * geo.inner
		heap += conc * (8*elems + 12*(elems/v) + histBytes)
	} else {
		heap += conc * scalarScratch(p)
		heap += ng * p * assignerBytes
	}
	if s.PerChannelScale {
		heap += (1 + int64(workers)) * geo.outer * geo.inner * 8
	}
	heap += ng * p * v * 8 * 2 // the LUT, and its quantized entries
	heap += ng * 16            // per group Σw², Σ(w − ŵ)²
	return heap
}

// vectorWorkBound is the most distance terms (a subtraction, a product and
// a sum per value) one weight's vector k-means may compute: values ×
// 2^bits for k-means++ and again for each Lloyd iteration. About 7·10^10:
// TestWeightMemoryEstimate's vector cases ran at about 10^8 terms a second
// on this shared 2-core machine, so some ten minutes of one core. Past it
// Lloyd's iterations stop early (said in a note); a weight for which even
// k-means++ and one iteration pass it is refused before any work (issue
// 28: per-tensor vector palettes at 8 bits would have run for hours).
const vectorWorkBound = 1 << 36

// vectorIterations is how many Lloyd iterations vector k-means may run on
// a weight of elems values with palettes of k entries; 0 when even one is
// over vectorWorkBound.
func vectorIterations(elems, k int64) int {
	per := elems * k // per iteration, over all groups
	if per <= 0 {
		return 0
	}
	return int(min(int64(cluster.MaxVectorIterations), vectorWorkBound/per-1))
}

// overMemory is the error for a weight (op, named name, of type typ) whose
// plan needs more than limit; what says which options need less.
func overMemory(pass string, op *graph.Operation, name string, typ *graph.TensorType, need, limit int64, what string) error {
	leave := fmt.Sprintf(", leave it out (--set %s.exclude=%s)", pass, name)
	if pass == "legalize-weights" {
		leave = ", leave legalize-weights out"
	}
	return fmt.Errorf("%s: %s (%s %s): its plan needs about %s of memory by the pass's estimate, over the limit of %s (--max-memory); %s%s, or raise --max-memory if this machine has the memory",
		pass, op.DescribeInGraph(), name, typ, graph.FormatBytes(need), graph.FormatBytes(limit), what, leave)
}
