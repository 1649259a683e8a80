package passes

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/internal/cluster"
	"github.com/anefix/anefix/passes/internal/ops"
)

var palettizeAbout = About{
	Summary: "replace weight constants by n-bit palette indices and a look-up table (coreai.lut_to_dense), legal for the Neural Engine by default",
	Doc: `Each selected weight becomes coreai.lut_to_dense(indices, lut, axis) in the
form apple/coreai-optimization's palettize_weights emits and coreai-torch
prints (src/coreai_opt/coreai_utils/passes/weight_palettization.py,
coreai-torch tests/compression/test_compression.py): indices of type
ui<bits> with the weight's shape (the channel axis divided by cluster-dim),
a LUT of rank + 2 dimensions [1…, groups on the channel axis, …1, 2^bits,
cluster-dim] in the weight's float type, and an si16 scalar axis (the
channel axis for vector palettes, else 0). Sub-byte indices are stored
packed in a dense_resource blob (graph/subbyte.go); 8-bit indices are a
blob too (coreai-torch prints them as dense<…>; a blob lets the writer
stream them), LUTs up to 64 KiB inline.

The default is what check calls legal: 4-bit palettes, one per group of
32 output channels (per-grouped-channel, group-size=32; the MiniCPM5 and
Qwen3 compiles that got 31/31 Neural Engine functions used it). A choice
check would call a blocker (4-bit palettes over fewer than 32 channels:
lut4-small-group; ExecuTorch's Core AI presets use groups of 16) is done,
with a warning in the notes, and check reports it; both ask the same
definition of a group (passes.LUTGroup).

Output channels run along the axis coreai-optimization picks from the
weight's readers (the last axis of a matmul's y operand, the one before it
of its x operand, axis 0 for gather_nd, conv2d and anything else; a
transpose takes the axis of the matmul it feeds). granularity=per-tensor is
one palette for the whole weight, per-channel one per output channel,
per-grouped-channel one per group-size channels (which must divide them,
else the weight is left with a note).

rules= gives weights their own settings in the same run: an ordered list
such as *self_attn*:bits=6,*mlp*:bits=4:group-size=16,*embed*:skip. The
first rule whose pattern (a glob as weights= takes) matches a weight sets
the settings it names; the others, and every weight no rule matches, keep
this pass's options; skip leaves the weights it takes as they are. Rules
choose among the weights the selector takes. The report (rewrite
--dry-run, --json) says per rule how many weights it took, how many it
compressed (their bytes before and after) and how many it left as they
are (their bytes, and per weight why, with a setting that would take it,
such as group-size=34 for 68 channels), naming each weight as patterns
match it, and those an earlier rule took; a rule that selects nothing is a
warning, not an error, so one recipe serves several models.

method=kmeans (default) is the least-squares palette: exact (dynamic
programming over the sorted distinct values) for groups of up to 4096
distinct values; above that coreai-optimization's default (the values
rounded to rounding-precision decimals, then their exact k-means), refined
by Lloyd's iterations on the exact values, so never worse than it. A group
of fp16 weights has at most 65,536 distinct values whatever its size: its
histogram is the input, not its elements. method=uniform is
coreai-optimization's evenly spaced palette from the group's minimum to its
maximum; method=unique takes the group's distinct values, exact, and
leaves a weight with more than 2^bits of them in some group (with a
note). A weight holding NaN or infinite values, or f32 values beyond
fp16's range (the histogram clustering works in fp16), is left as it is
with a note that counts them over the whole weight; so is one whose every
nonzero value would come back as 0.
cluster-dim > 1 is vector palettization: cluster-dim consecutive channels
share an index, clustered by k-means (k-means++ seeds from a fixed seed,
then Lloyd's iterations to convergence; kmeans and unique only), which
costs O(elements · 2^bits) per iteration. That work is bounded per weight
at 2^36 distance terms (elements · 2^bits for k-means++ and again for each
iteration, some ten minutes of one core): past it the iterations stop
early, with a note; a weight for which even one iteration does not fit is
refused before any work (fewer bits, or cluster-dim=1). Memory is
bounded too: rewrite --max-memory (default 8 GiB) refuses a weight whose
plan the pass estimates above it (a per-tensor vector palette holds the
weight's values as float64, 8 + 12/cluster-dim bytes per value), before
any weight changes; palettes per group of channels need only a few
groups at once.

lut-dtype=si8, ui8 or f8E4M3FN stores the LUT quantized (one symmetric
scale for the whole LUT, as coreai-optimization does): lut_to_dense gives
the quantized type, a cast the weight's float type, and
blockwise_shift_scale(data, scale, offset1, offset2) the weight. The
scale is kept small enough that the extreme step stays finite in the
weight's type (and positive for a LUT that is not all zero), as
quantize-weights keeps its scales.
per-channel-scale=true divides the weights by the largest magnitude along
the channel axis first (coreai-optimization: np.max(|w|, axis=channel_axis),
one scale per position of the other axes) and multiplies back with a
blockwise_shift_scale. With both, the scale is the LUT's scale times the
per-channel scale, one per position, and the zero point stays the LUT's
(coreai-optimization's code keeps only the first element of that product
and also scales the zero point; anefix writes the scale·(q − zero point)
both mean).

Numerics: every weight changes; the report gives, per weight, its bytes
before and after and its signal-to-noise ratio 10·log10(Σw²/Σ(w−ŵ)²) in dB
(ŵ as the interpreter reconstructs it), and anefix verify REF CAND compares
the outputs.
Each weight's indices are computed again while the output is written
(each value's nearest palette entry), so no more than one group's data is
ever held; the result does not depend on the number of cores. A blob read
by constants of several functions is palettized once.

What it costs on synth arm A is measured, not stated here: the
performance table times it at full scale and cmd/anefix TestNumericsTable
ranks bits, group size and the tied head by next-token numerics (both
write their sections of testdata/measurements.md). Synthetic weights give
flat, near-tied logits, so same top-1 is low for a given weight error:
rank settings by those figures, do not read them as a trained model's.

` + weightSelectDoc,
	Addresses: "the seed's export asked for --compression 4bit_weight_palettized_group32 and the measured arms had fp16 weights (1.5 GB)",
}

// palettizeOptions are palettize's options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type palettizeOptions struct {
	Bits              int
	Granularity       string
	GroupSize         int
	ClusterDim        int
	LUTDType          string
	PerChannelScale   bool
	Method            string
	RoundingPrecision int
	Ops               []string
	Weights           []string
	Exclude           []string
	TiedHead          bool
	MinElements       int
	Rules             []weightRule
}

func (o *palettizeOptions) declare(d *Decls) {
	o.declarePalette(d)
	declareWeightSelect(d, &o.Ops, &o.Weights, &o.Exclude, &o.TiedHead, &o.MinElements)
	declareRules(d, &o.Rules, (*palettizeOptions).declarePalette)
}

// declarePalette declares the options that say what palette a weight
// gets: the ones a rule may set.
func (o *palettizeOptions) declarePalette(d *Decls) {
	Declare(d, &o.Bits, Option[int]{Name: "bits", Default: 4, Doc: "bits per index (2^bits palette entries)", Values: paletteBits})
	Declare(d, &o.Granularity, Option[string]{Name: "granularity", Default: "per-grouped-channel", Doc: "one palette per tensor, per output channel, or per group of group-size output channels", Values: []string{"per-tensor", "per-channel", "per-grouped-channel"}})
	Declare(d, &o.GroupSize, Option[int]{Name: "group-size", Default: 32, Doc: "output channels per palette with per-grouped-channel (below 32 at 4 bits: check's lut4-small-group blocker)", Check: checkPositive})
	Declare(d, &o.ClusterDim, Option[int]{Name: "cluster-dim", Default: 1, Doc: "channels per palette entry (vector palettization when > 1)", Check: checkPositive})
	Declare(d, &o.LUTDType, Option[string]{Name: "lut-dtype", Default: "f16", Doc: "element type of the palette entries (f16: the weight's own float type)", Values: []string{"f16", "si8", "ui8", "f8E4M3FN"}})
	Declare(d, &o.PerChannelScale, Option[bool]{Name: "per-channel-scale", Doc: "normalize by the largest magnitude along the channel axis before clustering"})
	Declare(d, &o.Method, Option[string]{Name: "method", Default: "kmeans", Doc: "how the palette is chosen", Values: []string{"kmeans", "uniform", "unique"}})
	Declare(d, &o.RoundingPrecision, Option[int]{Name: "rounding-precision", Default: 4, Doc: "kmeans on groups of more than 4096 distinct values: decimals of the rounded problem that seeds it (coreai-optimization's fast mode); -1: Lloyd's from quantile seeds only", Values: roundingPrecisions})
}

// paletteBits are the index widths a palette takes (palettize and
// legalize-weights).
var paletteBits = []string{"1", "2", "3", "4", "6", "8"}

// roundingPrecisions are the values of rounding-precision: -1 (off) and 0
// to 8 decimals.
var roundingPrecisions = intValues(-1, 8)

func checkPositive(n int) error {
	if n < 1 {
		return fmt.Errorf("want a number >= 1, got %d", n)
	}
	return nil
}

// lutSettings is the palette a weight gets.
type lutSettings struct {
	Bits, GroupSize, ClusterDim int
	Granularity, LUTDType       string
	PerChannelScale             bool
	Method                      string
	Decimals                    int
}

func (o *palettizeOptions) settings() lutSettings {
	return lutSettings{Bits: o.Bits, GroupSize: o.GroupSize, ClusterDim: o.ClusterDim, Granularity: o.Granularity,
		LUTDType: o.LUTDType, PerChannelScale: o.PerChannelScale, Method: o.Method, Decimals: o.RoundingPrecision}
}

// ruleSettings are the palettes of the rules table's entries: the pass's
// own (entry 0), then each rule's settings over them, each checked (an
// error names the rule).
func (o *palettizeOptions) ruleSettings() ([]lutSettings, error) {
	opts, err := ruleOptions(o, o.Rules, (*palettizeOptions).declarePalette)
	if err != nil {
		return nil, err
	}
	out := make([]lutSettings, len(opts))
	for i, x := range opts {
		out[i] = x.settings()
	}
	for i, s := range out {
		if err := s.check(); err != nil && (i == 0 || !o.Rules[i-1].Skip) {
			return nil, fmt.Errorf("%s%v", ruleLabel(o.Rules, i), err)
		}
	}
	return out, nil
}

func (s lutSettings) check() error {
	if s.ClusterDim > 1 && s.Method == "uniform" {
		return fmt.Errorf("method=uniform has no vector form (cluster-dim=%d); use kmeans or unique", s.ClusterDim)
	}
	if s.ClusterDim > 1 && s.PerChannelScale {
		return fmt.Errorf("per-channel-scale=true does not combine with cluster-dim > 1 (as in coreai-optimization)")
	}
	return nil
}

// form describes the palette for reports.
func (s lutSettings) form(group int64) string {
	g := s.Granularity
	if s.Granularity == "per-grouped-channel" {
		g = fmt.Sprintf("per-grouped-channel %d", group)
	}
	extra := ""
	if s.ClusterDim > 1 {
		extra += fmt.Sprintf(", vectors of %d", s.ClusterDim)
	}
	if s.PerChannelScale {
		extra += ", per-channel scale"
	}
	return fmt.Sprintf("%d-bit LUT (%s), %s, %s%s", s.Bits, s.LUTDType, g, s.Method, extra)
}

func palettize(ctx *Context, gm *graph.Module, o *palettizeOptions) (*Change, error) {
	m := newWeightModule(gm)
	ss, err := o.ruleSettings()
	if err != nil {
		return nil, fmt.Errorf("palettize: %v", err)
	}
	forms := make([]string, len(ss))
	for i, s := range ss {
		forms[i] = s.form(int64(s.GroupSize))
	}
	sel := weightSelect{Ops: o.Ops, Weights: o.Weights, Exclude: o.Exclude, TiedHead: o.TiedHead, MinElements: o.MinElements}
	ws, notes := sel.pick(m)
	ch := &Change{Notes: notes}
	rt := newRuleTable(o.Rules, forms)
	if len(ws) == 0 {
		rt.finish(ch)
		return ch, nil
	}
	ws = rt.assign(ws, ch)
	var warns smallGroupWarnings
	defer warns.note(ch)
	err = compressWeights(ctx, m, ws, ch, "palettize", "palettized",
		func(w *weightConst) error {
			return lutBound("palettize", w.op, w.name(), w.typ, w.axis, newFloatReader(w.blob, w.elem).eb, ss[w.rule], ctx.MaxMemory)
		},
		func(pl *lutPlan) *shared { return &pl.sh },
		func(w *weightConst) (*lutPlan, leftWhy, error) {
			pl, skip, err := planLUT(newFloatReader(w.blob, w.elem), w.typ, w.axis, ss[w.rule], w.name())
			return pl, leftWhy{skip, lutHint(w.typ, w.axis, ss[w.rule], skip)}, err
		},
		func(pl *lutPlan, w *weightConst, first bool) *graph.Value {
			cw, warn := pl.emit(m, w.op, w.name(), ch)
			cw.Op, cw.Resource, cw.Type, cw.BytesBefore, cw.Rule = ref(w.g, w.op), w.res, w.typ.String(), w.bytes(), w.rule
			cw.Name, cw.key = w.label(), w.ruleKey()
			if first {
				ch.Compressed = append(ch.Compressed, cw)
				warns.add(w.label()+" ("+w.op.DescribeInGraph()+")", warn)
				if pl.kmNote != "" {
					ch.Notes = append(ch.Notes, w.label()+" ("+w.op.DescribeInGraph()+"): "+pl.kmNote)
				}
			}
			return pl.out
		})
	if err != nil {
		return nil, err
	}
	rt.finish(ch)
	return ch, nil
}

// lutBound refuses, before any work, a weight of type typ whose palettes
// under s would need more memory than limit (0: no bound), or whose vector
// k-means could not run even one iteration within vectorWorkBound. A
// weight the grouping does not divide passes: planLUT leaves it with a
// note.
func lutBound(pass string, op *graph.Operation, name string, typ *graph.TensorType, axis int, eb int64, s lutSettings, limit int64) error {
	return lutBoundPlus(pass, op, name, typ, axis, eb, s, limit, 0)
}

// lutBoundPlus is lutBound for a plan that holds extra bytes besides its
// palettes (legalize-weights' decoded parameters).
func lutBoundPlus(pass string, op *graph.Operation, name string, typ *graph.TensorType, axis int, eb int64, s lutSettings, limit, extra int64) error {
	geo := newGeometry(typ.Shape, axis)
	group := lutGroupChannels(geo, s)
	if group <= 0 || geo.channels%group != 0 || group%int64(s.ClusterDim) != 0 {
		return nil
	}
	if need := lutHeap(geo, group, eb, s) + extra; limit > 0 && need > limit {
		what := "use granularity=per-grouped-channel (each group is clustered alone) or a smaller cluster-dim"
		if s.ClusterDim == 1 {
			what = "use granularity=per-grouped-channel or fewer bits"
		}
		return overMemory(pass, op, name, typ, need, limit, what)
	}
	if s.ClusterDim > 1 && s.Method != "unique" && vectorIterations(geo.n(), int64(1)<<s.Bits) < 1 {
		per := geo.n() * (int64(1) << s.Bits)
		return fmt.Errorf("%s: %s (%s %s): vector k-means over its %d values with palettes of %d entries takes %d distance terms per pass over the values, so k-means++ and one Lloyd iteration (%d) already pass the bound of %d per weight (some ten minutes of one core); use fewer bits (the work is values × 2^bits per pass), cluster-dim=1, or leave it out (--set %s.exclude=%s)",
			pass, op.DescribeInGraph(), name, typ, geo.n(), 1<<s.Bits, per, 2*per, int64(vectorWorkBound), pass, name)
	}
	return nil
}

// lutHint is a setting under which palettize would take a weight of type
// typ (output channels on axis) that s left for skip: a group size that
// divides its channels (at 4 bits one of 32 channels or more where there is
// one, else with 6 bits: check calls 4-bit palettes over fewer channels a
// blocker, lut4-small-group), a cluster-dim that divides its
// groups, kmeans for more distinct values than unique holds; "" otherwise
// (values no palette can hold).
func lutHint(typ *graph.TensorType, axis int, s lutSettings, skip string) string {
	if skip == "" {
		return ""
	}
	geo := newGeometry(typ.Shape, axis)
	group := lutGroupChannels(geo, s)
	switch {
	case geo.channels%group != 0:
		floor := int64(1)
		if s.Bits == 4 {
			floor = minLUT4Group
		}
		d := nearestDivisor(geo.channels, group, floor)
		if s.Bits == 4 && d < minLUT4Group {
			return fmt.Sprintf("group-size=%d:bits=6", d)
		}
		return fmt.Sprintf("group-size=%d", d)
	case group%int64(s.ClusterDim) != 0:
		return fmt.Sprintf("cluster-dim=%d", nearestDivisor(group, int64(s.ClusterDim), 1))
	case s.Method == "unique" && strings.Contains(skip, "distinct"):
		return "method=kmeans"
	}
	return ""
}

// lutGroupChannels is the channels per palette under s.
func lutGroupChannels(geo geometry, s lutSettings) int64 {
	switch s.Granularity {
	case "per-tensor":
		return geo.channels
	case "per-channel":
		return 1
	}
	return int64(s.GroupSize)
}

// smallGroupWarnings gathers the weights check will call blockers
// (lut4-small-group) into one warning: the first in full, then a count.
type smallGroupWarnings struct {
	first string
	n     int
}

func (w *smallGroupWarnings) add(what, warn string) {
	if warn == "" {
		return
	}
	if w.n == 0 {
		w.first = what + ": " + warn
	}
	w.n++
}

func (w *smallGroupWarnings) note(ch *Change) {
	switch {
	case w.n == 1:
		ch.Notes = append(ch.Notes, "warning: "+w.first)
	case w.n > 1:
		ch.Notes = append(ch.Notes, fmt.Sprintf("warning: %d weights have 4-bit palettes of fewer than %d channels; the first: %s", w.n, minLUT4Group, w.first))
	}
}

// lutPlan is one weight's palette, computed from its values, before and
// while it is written.
type lutPlan struct {
	r      floatReader
	typ    *graph.TensorType
	axis   int
	geo    geometry // of the weight
	s      lutSettings
	group  int64 // channels per palette
	ng     int   // palettes
	p, v   int   // entries per palette, values per entry
	lut    []float64
	pcs    []float64 // per position of the other axes (outer·inner), or nil
	scale  float64   // LUT quantization (lut-dtype si8, ui8, f8E4M3FN)
	zp     float64
	steps  float64             // the most quantization steps from zp (127 for si8, 448 for f8)
	q      []float64           // quantized LUT entries
	assign []*cluster.Assigner // per group (1-D palettes)
	gsig   []float64           // per group: Σw², Σ(w − ŵ)² (summed in group order: the same bits on any core count)
	gerr   []float64
	gnz    []float64 // per group: nonzero values, and those that reconstruct as 0
	gfl    []float64
	signal float64
	err    float64
	out    *graph.Value
	pass   string // the pass whose name new ops' locations carry
	sh     shared
	// kmIters bounds vector k-means' Lloyd iterations (vectorIterations);
	// kmCut counts the groups it stopped before converging, kmNote says so.
	kmIters int
	kmCut   atomic.Int64
	kmNote  string
}

// planLUT computes a weight's palette. skip says why a weight is left as
// it is (a shape the grouping does not divide, non-finite values, more
// distinct values than unique can hold).
func planLUT(r floatReader, typ *graph.TensorType, axis int, s lutSettings, seedKey string) (*lutPlan, string, error) {
	geo := newGeometry(typ.Shape, axis)
	pl := &lutPlan{r: r, typ: typ, axis: axis, geo: geo, s: s, p: 1 << s.Bits, v: s.ClusterDim}
	pl.group = lutGroupChannels(geo, s)
	if geo.channels%pl.group != 0 {
		return nil, fmt.Sprintf("its %d output channels (axis %d) are not a multiple of group-size %d", geo.channels, axis, pl.group), nil
	}
	if pl.group%int64(pl.v) != 0 {
		return nil, fmt.Sprintf("groups of %d channels are not a multiple of cluster-dim %d", pl.group, pl.v), nil
	}
	pl.ng = int(geo.channels / pl.group)
	pl.kmIters = vectorIterations(geo.n(), int64(pl.p))
	if s.PerChannelScale {
		if err := pl.perChannelScale(); err != nil {
			return nil, "", err
		}
	}
	pl.lut = make([]float64, pl.ng*pl.p*pl.v)
	pl.assign = make([]*cluster.Assigner, pl.ng)
	pl.gsig, pl.gerr = make([]float64, pl.ng), make([]float64, pl.ng)
	pl.gnz, pl.gfl = make([]float64, pl.ng), make([]float64, pl.ng)
	floatLUT := s.LUTDType == "f16"
	var mu sync.Mutex
	var skip string
	var nonFinite, beyond int64 // over the whole weight, for the note
	scratch := sync.Pool{New: func() any {
		return &groupScratch{h: cluster.NewHist16(r.elem == "bf16" && pl.pcs == nil), ws: new(cluster.Workspace)}
	}}
	err := forGroupBatches(r, geo, pl.group, func(b *groupBatch) error {
		sc := scratch.Get().(*groupScratch)
		defer scratch.Put(sc)
		for g := b.g0; g < b.g1; g++ {
			why, bad, big, err := pl.clusterGroup(b, g, sc, seedKey, floatLUT)
			if err != nil {
				return err
			}
			mu.Lock()
			if why != "" && skip == "" {
				skip = why
			}
			nonFinite += bad
			beyond += big
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	var why []string
	if nonFinite > 0 {
		why = append(why, fmt.Sprintf("%d of its values are NaN or infinite", nonFinite))
	}
	if beyond > 0 {
		why = append(why, fmt.Sprintf("%d of its values lie beyond fp16's range (±65504), in which palettize clusters", beyond))
	}
	if len(why) > 0 {
		return nil, strings.Join(why, "; "), nil
	}
	if skip != "" {
		return nil, skip, nil
	}
	if n := pl.kmCut.Load(); n > 0 {
		pl.kmNote = fmt.Sprintf("vector k-means stopped after %d Lloyd iterations (of at most %d) in %d of %d groups, before converging, to keep its work within %d distance terms (values × 2^bits per iteration); fewer bits leave room for more iterations",
			pl.kmIters, cluster.MaxVectorIterations, n, pl.ng, int64(vectorWorkBound))
	}
	if !floatLUT {
		pl.quantizeLUT()
		pl.buildAssigners()
		if err := pl.measure(); err != nil {
			return nil, "", err
		}
	}
	var nz, fl float64
	for g := 0; g < pl.ng; g++ {
		pl.signal += pl.gsig[g]
		pl.err += pl.gerr[g]
		nz += pl.gnz[g]
		fl += pl.gfl[g]
	}
	if why := lossNote(pl.err, nz, fl); why != "" {
		return nil, why, nil
	}
	return pl, "", nil
}

// perChannelScale computes the largest magnitude along the channel axis
// at every position of the other axes (0 becomes 1, as
// coreai-optimization does).
func (pl *lutPlan) perChannelScale() error {
	geo, r := pl.geo, pl.r
	pl.pcs = make([]float64, geo.outer*geo.inner)
	var mu sync.Mutex
	err := forGroupBatches(r, geo, pl.group, func(b *groupBatch) error {
		part := make([]float64, len(pl.pcs))
		n := int(b.c1 - b.c0)
		for o := int64(0); o < geo.outer; o++ {
			for c := 0; c < n; c++ {
				base := int(o*b.run) + c*int(geo.inner)
				for i := int64(0); i < geo.inner; i++ {
					x := math.Abs(r.value(b.raw, base+int(i)))
					if k := o*geo.inner + i; x > part[k] {
						part[k] = x
					}
				}
			}
		}
		mu.Lock()
		for k, x := range part {
			pl.pcs[k] = math.Max(pl.pcs[k], x)
		}
		mu.Unlock()
		return nil
	})
	for k, x := range pl.pcs {
		if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			pl.pcs[k] = 1
		} else {
			pl.pcs[k] = roundTo(pl.r.elem, x)
		}
	}
	return err
}

// normalized is the value clustering sees for element (o, i of the inner
// axes) with value x: x itself, or x over the per-channel scale rounded to
// fp16 (coreai-optimization divides and casts to float16).
func (pl *lutPlan) normalized(x float64, o, i int64) float64 {
	if pl.pcs == nil {
		return x
	}
	return f16.ToFloat64(f16.FromFloat64(x / pl.pcs[o*pl.geo.inner+i]))
}

// groupScratch is one goroutine's reusable buffers.
type groupScratch struct {
	h  *cluster.Hist16
	ws *cluster.Workspace
	x  []float64 // a vector palette's values
}

// clusterGroup computes group g's palette from the batch holding it (and,
// for a float LUT, its error). A group holding NaN or infinite values, or
// finite values its fp16 histogram cannot hold (f32 weights past ±65504),
// gets no palette: it returns their counts, for the weight's note.
func (pl *lutPlan) clusterGroup(b *groupBatch, g int, sc *groupScratch, seedKey string, floatLUT bool) (skip string, nonFinite, beyond int64, err error) {
	geo, r, h := pl.geo, pl.r, sc.h
	k := pl.p
	var c []float64
	var pts cluster.Points
	if pl.v == 1 {
		direct := pl.pcs == nil && r.elem != "f32"
		if direct {
			b.groupRaw(geo, pl.group, r.eb, g, h.Add)
		} else {
			pl.eachValue(b, g, func(x float64, o, c, i int64) {
				y := pl.normalized(x, o, i)
				p := f16.FromFloat64(y)
				if f16.IsInf(p) && !math.IsInf(y, 0) && !math.IsNaN(y) {
					beyond++
					return
				}
				h.AddPattern(p)
			})
		}
		pts, nonFinite = h.Points()
		if nonFinite > 0 || beyond > 0 {
			return "", nonFinite, beyond, nil
		}
		switch pl.s.Method {
		case "uniform":
			c = cluster.Uniform(pts, k)
		case "unique":
			u, ok := cluster.Unique(pts, k)
			if !ok {
				return fmt.Sprintf("method=unique: group %d has %d distinct values, more than the %d entries of %d bits", g, pts.Len(), k, pl.s.Bits), 0, 0, nil
			}
			c = u
		default:
			c = sc.ws.KMeans1D(pts, k, pl.s.Decimals)
		}
		for j := range c {
			c[j] = roundTo(r.elem, c[j])
		}
		slicesSortFloat(c)
		c = cluster.Pad(c, k)
	} else {
		// The group's values, in a buffer the goroutine keeps for its next
		// group (lutHeap counts one per goroutine).
		x := sc.x[:0]
		if n := int(geo.outer * pl.group * geo.inner); cap(x) < n {
			x = make([]float64, 0, n)
		}
		defer func() { sc.x = x[:0] }()
		var bad int64
		pl.eachVector(b, g, func(vec []float64, o, cc, i int64) {
			for _, e := range vec {
				if math.IsNaN(e) || math.IsInf(e, 0) {
					bad++
				}
			}
			x = append(x, vec...)
		})
		if bad > 0 {
			return "", bad, 0, nil
		}
		if pl.s.Method == "unique" {
			u, ok := cluster.UniqueVectors(x, pl.v, k)
			if !ok {
				return fmt.Sprintf("method=unique: group %d has more than %d distinct vectors", g, k), 0, 0, nil
			}
			c = u
		} else {
			var converged bool
			c, _, converged = cluster.VectorKMeans(x, pl.v, k, seedOf(seedKey, g), pl.kmIters)
			if !converged {
				pl.kmCut.Add(1)
			}
		}
		for j := range c {
			c[j] = roundTo(r.elem, c[j])
		}
		for len(c) < k*pl.v { // unused entries repeat the last
			c = append(c, c[len(c)-pl.v:]...)
		}
	}
	copy(pl.lut[g*k*pl.v:(g+1)*k*pl.v], c)
	if !floatLUT {
		return "", 0, 0, nil
	}
	// A float LUT reconstructs its own entries: measure now, from the
	// histogram where the error depends on the value alone.
	if pl.v == 1 && pl.pcs == nil && r.elem != "f32" {
		a := cluster.NewAssigner(c)
		var sig, e, nz, fl float64
		a.Sorted(pts.V, func(i, j int) {
			x := pts.V[i]
			d := x - c[j]
			sig += pts.W[i] * x * x
			e += pts.W[i] * d * d
			if x != 0 {
				nz += pts.W[i]
				if c[j] == 0 {
					fl += pts.W[i]
				}
			}
		})
		pl.assign[g] = a
		pl.gsig[g], pl.gerr[g], pl.gnz[g], pl.gfl[g] = sig, e, nz, fl
		return "", 0, 0, nil
	}
	if pl.v == 1 {
		pl.assign[g] = cluster.NewAssigner(c)
	}
	pl.groupError(b, g)
	return "", 0, 0, nil
}

// seedOf derives the vector k-means seed of group g of a weight from its
// name, so a weight's palette does not depend on the order weights run in.
func seedOf(key string, g int) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	return h ^ uint64(g)*0x9E3779B97F4A7C15
}

func slicesSortFloat(c []float64) { slices.Sort(c) }

// eachValue calls f on every element of group g in a batch, with its
// coordinates (outer index, channel, inner index).
func (pl *lutPlan) eachValue(b *groupBatch, g int, f func(x float64, o, c, i int64)) {
	geo, r := pl.geo, pl.r
	c0 := int64(g) * pl.group
	for o := int64(0); o < geo.outer; o++ {
		for c := c0; c < c0+pl.group; c++ {
			base := int(o*b.run + (c-b.c0)*geo.inner)
			for i := int64(0); i < geo.inner; i++ {
				f(r.value(b.raw, base+int(i)), o, c, i)
			}
		}
	}
}

// eachVector calls f on every palette vector of group g: v consecutive
// channels at one position of the other axes, in the order of the indices
// that address them (outer, channel / v, inner), normalized.
func (pl *lutPlan) eachVector(b *groupBatch, g int, f func(vec []float64, o, c, i int64)) {
	geo, r := pl.geo, pl.r
	vec := make([]float64, pl.v)
	c0 := int64(g) * pl.group
	for o := int64(0); o < geo.outer; o++ {
		for c := c0; c < c0+pl.group; c += int64(pl.v) {
			for i := int64(0); i < geo.inner; i++ {
				for e := 0; e < pl.v; e++ {
					x := r.value(b.raw, int(o*b.run+(c+int64(e)-b.c0)*geo.inner+i))
					vec[e] = pl.normalized(x, o, i)
				}
				f(vec, o, c, i)
			}
		}
	}
}

// quantizeLUT stores the palette in lut-dtype: one symmetric scale for
// the whole LUT, coreai-optimization's _quantize_data_by_dtype
// (src/coreai_opt/coreai_utils/_utils/quantize_utils.py): si8 in
// [−127, 127]; ui8 in [0, 254] with zero point 127; f8E4M3FN within ±448;
// scale = (2·max|lut| + 1e-6)/(q_max − q_min), stored in the weight's type.
func (pl *lutPlan) quantizeLUT() {
	var mx float64
	for _, x := range pl.lut {
		mx = math.Max(mx, math.Abs(x))
	}
	qmin, qmax := -127.0, 127.0
	switch pl.s.LUTDType {
	case "ui8":
		qmin, qmax = 0, 254
		pl.zp = 127
	case "f8E4M3FN":
		qmin, qmax = -448, 448
	}
	pl.scale = roundTo(pl.r.elem, (2*mx+1e-6)/(qmax-qmin))
	if pl.scale == 0 && mx == 0 {
		pl.scale = roundTo(pl.r.elem, 1e-6)
	}
	// The extreme step from the zero point: the scale (and each fused
	// per-channel scale) stays small enough that it reconstructs finitely.
	pl.steps = math.Max(qmax-pl.zp, pl.zp-qmin)
	pl.scale = fitScale(pl.r.elem, pl.scale, pl.steps, mx > 0)
	pl.q = make([]float64, len(pl.lut))
	for i, x := range pl.lut {
		switch pl.s.LUTDType {
		case "f8E4M3FN":
			pl.q[i] = f8E4M3FN(math.Max(-448, math.Min(448, x/pl.scale)))
		default:
			pl.q[i] = math.Max(qmin, math.Min(qmax, math.RoundToEven(x/pl.scale)+pl.zp))
		}
	}
}

// f8E4M3FN rounds x (|x| ≤ 448) to the nearest f8E4M3FN value, ties to
// even: 3 mantissa bits, exponent bias 7, subnormals below 2^-6.
func f8E4M3FN(x float64) float64 {
	if x == 0 || math.IsNaN(x) {
		return x
	}
	a := math.Abs(x)
	_, exp := math.Frexp(a) // a = f·2^exp, f in [½, 1)
	e := max(exp-1, -6)
	step := math.Ldexp(1, e-3)
	r := math.RoundToEven(a/step) * step
	return math.Copysign(math.Min(r, 448), x)
}

// f8Bits encodes an f8E4M3FN value (one f8E4M3FN returns).
func f8Bits(x float64) byte {
	var sgn byte
	if math.Signbit(x) {
		sgn = 0x80
	}
	a := math.Abs(x)
	if a == 0 {
		return sgn
	}
	_, exp := math.Frexp(a)
	e := exp - 1
	if e < -6 { // subnormal: mantissa in units of 2^-9
		return sgn | byte(math.RoundToEven(a/math.Ldexp(1, -9)))
	}
	m := byte(math.RoundToEven((a/math.Ldexp(1, e) - 1) * 8))
	return sgn | byte(e+7)<<3 | m
}

// entryValue is palette entry j of group g's component e as the program
// reconstructs it before the per-channel scale: the LUT value, or
// scale·(q − zero point) for a quantized LUT.
func (pl *lutPlan) entryValue(idx int) float64 {
	if pl.q == nil {
		return pl.lut[idx]
	}
	return pl.scale * (pl.q[idx] - pl.zp)
}

// recon is the weight value the program computes for palette entry idx
// (flat into the LUT) at position (o, i) of the other axes.
func (pl *lutPlan) recon(idx int, o, i int64) float64 {
	switch {
	case pl.pcs == nil && pl.q == nil:
		return pl.lut[idx]
	case pl.pcs == nil:
		return roundTo(pl.r.elem, pl.scale*(pl.q[idx]-pl.zp))
	case pl.q == nil:
		return roundTo(pl.r.elem, pl.pcs[o*pl.geo.inner+i]*pl.lut[idx])
	}
	return roundTo(pl.r.elem, pl.fused(o, i)*(pl.q[idx]-pl.zp))
}

// fused is the LUT scale times the per-channel scale at (o, i), stored in
// the weight's type (fitScale: its extreme step stays finite).
func (pl *lutPlan) fused(o, i int64) float64 {
	return fitScale(pl.r.elem, roundTo(pl.r.elem, pl.scale*pl.pcs[o*pl.geo.inner+i]), pl.steps, false)
}

// buildAssigners makes each group's nearest-entry search over the values
// its entries stand for (after LUT quantization).
func (pl *lutPlan) buildAssigners() {
	if pl.v != 1 {
		return
	}
	e := make([]float64, pl.p)
	for g := range pl.assign {
		for j := range e {
			if pl.pcs == nil {
				e[j] = pl.recon(g*pl.p+j, 0, 0)
			} else {
				e[j] = pl.entryValue(g*pl.p + j)
			}
		}
		pl.assign[g] = cluster.NewAssigner(e)
	}
}

// index is the palette entry of element (o, c, i) with value x (1-D).
func (pl *lutPlan) index(g int, x float64, o, i int64) int {
	return pl.assign[g].Index(pl.normalized(x, o, i))
}

// vectorIndex is the palette entry of a (normalized) vector of group g.
func (pl *lutPlan) vectorIndex(g int, vec []float64) int {
	k := pl.p * pl.v
	if pl.q == nil {
		return cluster.NearestVector(pl.lut[g*k:(g+1)*k], vec)
	}
	eff := make([]float64, k)
	for j := range eff {
		eff[j] = pl.entryValue(g*k + j)
	}
	return cluster.NearestVector(eff, vec)
}

// groupError sets group g's Σw², Σ(w − ŵ)² and its counts of nonzero
// values and of those that reconstruct as 0, from its elements.
func (pl *lutPlan) groupError(b *groupBatch, g int) {
	var sig, e, nz, fl float64
	add := func(x, y float64) {
		d := x - y
		sig += x * x
		e += d * d
		if x != 0 {
			nz++
			if y == 0 {
				fl++
			}
		}
	}
	if pl.v == 1 {
		pl.eachValue(b, g, func(x float64, o, c, i int64) {
			j := pl.index(g, x, o, i)
			add(x, pl.recon(g*pl.p+j, o, i))
		})
	} else {
		geo, r := pl.geo, pl.r
		pl.eachVector(b, g, func(vec []float64, o, c, i int64) {
			j := pl.vectorIndex(g, vec)
			for k := 0; k < pl.v; k++ {
				x := r.value(b.raw, int(o*b.run+(c+int64(k)-b.c0)*geo.inner+i))
				add(x, pl.recon((g*pl.p+j)*pl.v+k, o, i))
			}
		})
	}
	pl.gsig[g], pl.gerr[g], pl.gnz[g], pl.gfl[g] = sig, e, nz, fl
}

// measure reads the weight again for the error of a quantized LUT.
func (pl *lutPlan) measure() error {
	return forGroupBatches(pl.r, pl.geo, pl.group, func(b *groupBatch) error {
		for g := b.g0; g < b.g1; g++ {
			pl.groupError(b, g)
		}
		return nil
	})
}

// lutElem is the element type of the LUT constant.
func (pl *lutPlan) lutElem() graph.Type {
	switch pl.s.LUTDType {
	case "si8":
		return graph.SI8
	case "ui8":
		return graph.UI8
	case "f8E4M3FN":
		return &graph.FloatType{Name: "f8E4M3FN"}
	}
	return pl.typ.Elem
}

// emit writes the palette as constants and ops before ref and sets pl.out
// to the reconstructed weight; it returns the report entry (bytes after,
// error, form) and a warning when check will call the result a blocker.
func (pl *lutPlan) emit(m *weightModule, ref *graph.Operation, base string, ch *Change) (CompressedWeight, string) {
	pass := pl.pass
	if pass == "" {
		pass = "palettize"
	}
	loc := ops.PassLoc(pass, ref.Loc)
	rank := pl.typ.Rank()
	var after int64
	count := func(v *graph.Value) {
		ch.OpsAdded++
		switch a := v.DefiningOp().Inherent("value").(type) {
		case *graph.DenseElementsAttr:
			after += int64(len(a.Raw))
		case *graph.DenseResourceAttr:
			if r := m.Resource(a.Key); r != nil && r.Blob != nil {
				after += r.Blob.Size()
			}
		}
	}
	// indices
	ishape := slices.Clone(pl.typ.Shape)
	ishape[pl.axis] /= int64(pl.v)
	itype := graph.Tensor(&graph.IntegerType{Width: pl.s.Bits, Signedness: graph.Unsigned}, ishape...)
	idx := pl.sh.konst(m, ref, loc, func() (graph.Attr, *graph.TensorType) {
		return blobAttr(m, base+".lut_indices", pl.indexBlob(ishape), 1, itype), itype
	})
	count(idx)
	// LUT
	lshape := make([]int64, rank+2)
	for d := range lshape {
		lshape[d] = 1
	}
	lshape[pl.axis] = int64(pl.ng)
	lshape[rank], lshape[rank+1] = int64(pl.p), int64(pl.v)
	le := pl.lutElem()
	ltype := graph.Tensor(le, lshape...)
	vals := pl.lut
	if pl.q != nil {
		vals = pl.q
	}
	var lut *graph.Value
	var lraw []byte
	switch x := le.(type) {
	case *graph.IntegerType:
		iv := make([]int64, len(vals))
		for i, v := range vals {
			iv[i] = int64(v)
		}
		a := intDense(x, lshape, iv)
		lraw = a.Raw
	case *graph.FloatType:
		if x.Name == "f8E4M3FN" {
			lraw = make([]byte, len(vals))
			for i, v := range vals {
				lraw[i] = f8Bits(v)
			}
		} else {
			lraw = floatDense(x, lshape, vals).Raw
		}
	}
	// An f8 LUT is a blob, as coreai-optimization writes it (its constant
	// API holds reduced-precision floats as dense_resource); other LUTs are
	// inline up to inlineLUTBytes.
	lut = pl.sh.konst(m, ref, loc, func() (graph.Attr, *graph.TensorType) {
		if f, ok := le.(*graph.FloatType); (ok && f.Name == "f8E4M3FN") || len(lraw) > inlineLUTBytes {
			return blobAttr(m, base+".lut", graph.MemBlob(lraw), uint64(graph.ElemBytes(le)), ltype), ltype
		}
		return splatOrDense(&graph.DenseElementsAttr{Type: ltype, Raw: lraw, Splat: allEqual(lraw, graph.ElemBytes(le))}), ltype
	})
	count(lut)
	axis := int64(0)
	if pl.v > 1 {
		axis = int64(pl.axis)
	}
	ax := pl.sh.konst(m, ref, loc, func() (graph.Attr, *graph.TensorType) {
		return intDense(graph.SI16, nil, []int64{axis}), graph.Tensor(graph.SI16)
	})
	count(ax)
	dense := graph.NewOp("coreai.lut_to_dense", []*graph.Value{idx, lut, ax}, []graph.Type{pl.typ.WithElem(le)}, nil, loc)
	dense.InsertBefore(ref)
	ch.OpsAdded++
	out := dense.Result(0)
	if pl.q != nil || pl.pcs != nil {
		out = pl.emitScale(m, ref, loc, base, out, count, ch)
	}
	pl.out = out
	cw := CompressedWeight{Form: pl.s.form(pl.group), BytesAfter: after, SignalPower: pl.signal, ErrorPower: pl.err, SNR: snrDB(pl.signal, pl.err)}
	g, _, split, _ := LUTGroup(itype, ltype, axis)
	if split {
		cw.Group = g
	}
	warn := ""
	if d, _, small := LUT4SmallGroup(dense); small {
		warn = d + ": check reports it as a blocker (lut4-small-group: such compiles wrote no Neural Engine region); the default group-size=32 is legal"
	}
	return cw, warn
}

// emitScale writes the cast and blockwise_shift_scale of a quantized LUT
// or a per-channel scale (coreai-optimization's op chains 2-4).
func (pl *lutPlan) emitScale(m *weightModule, ref *graph.Operation, loc graph.Loc, base string, x *graph.Value, count func(*graph.Value), ch *Change) *graph.Value {
	elem := pl.typ.Elem
	if !graph.TypeEqual(x.Type().(*graph.TensorType).Elem, elem) {
		c := graph.NewOp("coreai.cast", []*graph.Value{x}, []graph.Type{pl.typ}, nil, loc)
		c.InsertBefore(ref)
		ch.OpsAdded++
		x = c.Result(0)
	}
	rank := pl.typ.Rank()
	sshape := make([]int64, rank)
	for d := range sshape {
		sshape[d] = 1
	}
	var scale, zp []float64
	if pl.pcs != nil {
		for d := range sshape {
			if d != pl.axis {
				sshape[d] = pl.typ.Shape[d]
			}
		}
		scale = make([]float64, len(pl.pcs))
		for k := range scale {
			o, i := int64(k)/pl.geo.inner, int64(k)%pl.geo.inner
			if pl.q != nil {
				scale[k] = pl.fused(o, i)
			} else {
				scale[k] = pl.pcs[k]
			}
		}
	} else {
		scale = []float64{pl.scale}
	}
	zp = make([]float64, len(scale))
	for k := range zp {
		zp[k] = pl.zp
	}
	mk := func(suffix string, vals []float64) *graph.Value {
		v := pl.sh.konst(m, ref, loc, func() (graph.Attr, *graph.TensorType) {
			a := floatDense(elem, sshape, vals)
			if !a.Splat && len(a.Raw) > inlineLUTBytes {
				return blobAttr(m, base+suffix, graph.MemBlob(a.Raw), uint64(graph.ElemBytes(elem)), a.Type), a.Type
			}
			return splatOrDense(a), a.Type
		})
		count(v)
		return v
	}
	s := mk(".lut_scale", scale)
	o1 := mk(".lut_zero_point", zp)
	o2 := mk(".lut_offset", make([]float64, len(scale)))
	bss := graph.NewOp("coreai.blockwise_shift_scale", []*graph.Value{x, s, o1, o2}, []graph.Type{pl.typ}, nil, loc)
	bss.InsertBefore(ref)
	ch.OpsAdded++
	return bss.Result(0)
}

// indexBlob is the weight's indices, computed while they are written.
func (pl *lutPlan) indexBlob(ishape []int64) *lutIndexBlob {
	var n int64 = 1
	for _, d := range ishape {
		n *= d
	}
	return &lutIndexBlob{pl: pl, n: n, size: graph.PackedSize(n, pl.s.Bits)}
}

// lutIndexBlob is a palettized weight's index blob: each index is the
// nearest palette entry of its value (the assigner the error was measured
// with), computed from the source weight as the writer asks for the bytes,
// and packed as Core AI stores sub-byte integers (graph/subbyte.go). Any
// byte range can be read on its own; large reads are split over the cores.
type lutIndexBlob struct {
	pl   *lutPlan
	n    int64 // indices
	size int64
}

func (b *lutIndexBlob) Size() int64 { return b.size }

func (b *lutIndexBlob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("lut indices: negative offset")
	}
	if off >= b.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), b.size-off)
	epu, bpu := graph.PackUnit(b.pl.s.Bits)
	u0, u1 := off/int64(bpu), (off+want+int64(bpu)-1)/int64(bpu)
	e0, e1 := u0*int64(epu), min(u1*int64(epu), b.n)
	ib := getBuf(int(e1 - e0))
	defer putBuf(ib)
	idx := *ib
	if err := b.indices(idx, e0); err != nil {
		return 0, err
	}
	pb := getBuf(int(graph.PackedSize(int64(len(idx)), b.pl.s.Bits)))
	defer putBuf(pb)
	packed := *pb
	graph.PackBits(packed, idx, b.pl.s.Bits)
	n := copy(p[:want], packed[off-u0*int64(bpu):])
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

// bufs recycles the blob writers' scratch buffers (a writer reads 1 MiB
// at a time; without reuse every read allocated several times that).
var bufs sync.Pool

func getBuf(n int) *[]byte {
	if b, ok := bufs.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

func putBuf(b *[]byte) { bufs.Put(b) }

// parallelIndices is the index count from which a read is split over the
// cores.
const parallelIndices = 1 << 18

// indices fills dst with indices [e0, e0+len(dst)).
func (b *lutIndexBlob) indices(dst []uint8, e0 int64) error {
	workers := runtime.GOMAXPROCS(0)
	if int64(len(dst)) < parallelIndices || workers < 2 {
		return b.indexRange(dst, e0)
	}
	chunk := (len(dst) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min(len(dst), (w+1)*chunk)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = b.indexRange(dst[lo:hi], e0+int64(lo))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// indexRange computes indices [e0, e0+len(dst)) in the indices' row-major
// order (outer, channel / v, inner).
func (b *lutIndexBlob) indexRange(dst []uint8, e0 int64) error {
	pl := b.pl
	geo, r, v := pl.geo, pl.r, int64(pl.v)
	ic := geo.channels / v // index channels
	n := int64(len(dst))
	if n == 0 {
		return nil
	}
	// The source elements these indices read: from the first index's first
	// component to the last index's last one.
	src := func(e int64, k int64) int64 {
		o, rest := e/(ic*geo.inner), e%(ic*geo.inner)
		c, i := rest/geo.inner, rest%geo.inner
		return (o*geo.channels+c*v+k)*geo.inner + i
	}
	s0, s1 := src(e0, 0), src(e0+n-1, v-1)+1
	rb := getBuf(int((s1 - s0) * r.eb))
	defer putBuf(rb)
	raw := *rb
	if err := r.read(raw, s0); err != nil {
		return err
	}
	vec := make([]float64, v)
	o, rest := e0/(ic*geo.inner), e0%(ic*geo.inner)
	c, i := rest/geo.inner, rest%geo.inner
	byKey := v == 1 && pl.pcs == nil && r.elem == "f16"
	tb := getBuf(0)
	defer func() { putBuf(tb) }()
	tab := (*tb)[:0]
	var lo int32
	var last int
	tabGroup := -1
	for k := int64(0); k < n; k++ {
		g := int(c * v / pl.group)
		base := (o*geo.channels+c*v)*geo.inner + i - s0
		if byKey && i+1 < geo.inner && k+1 < n {
			// a run of one row of one group: the patterns' keys looked up
			// in the group's table (cluster.Assigner.KeyTable), no decoding
			if g != tabGroup {
				tab, lo = pl.assign[g].KeyTable(tab)
				*tb = tab
				last, tabGroup = pl.assign[g].Last(), g
			}
			run := min(geo.inner-i, n-k)
			for e := int64(0); e < run; e++ {
				b := 2 * (base + e)
				dst[k+e] = uint8(cluster.LookupKey(tab, lo, last, cluster.Key(uint16(raw[b])|uint16(raw[b+1])<<8)))
			}
			k += run - 1
			i += run - 1
		} else if v == 1 {
			dst[k] = uint8(pl.index(g, r.value(raw, int(base)), o, i))
		} else {
			for e := int64(0); e < v; e++ {
				vec[e] = pl.normalized(r.value(raw, int(base+e*geo.inner)), o, i)
			}
			dst[k] = uint8(pl.vectorIndex(g, vec))
		}
		if i++; i == geo.inner {
			i = 0
			if c++; c == ic {
				c = 0
				o++
			}
		}
	}
	return nil
}
