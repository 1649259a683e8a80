package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/record"
)

// TeacherOptions configure a teacher-forced comparison: both graphs are fed
// the same token streams, so a difference at one position cannot change
// what either graph sees next (the greedy Compare feeds each graph its own
// argmax, where one near tie flips every later step).
type TeacherOptions struct {
	// Streams are the token streams, all of one length; the k-th token of
	// every stream is fed at position k. RandomStreams makes them.
	Streams [][]int64
	// Seed seeds the pseudo-random float inputs (embeddings, hidden
	// states); stream s uses Seed+s.
	Seed      uint64
	Function  string
	Ref, Cand interp.Options
	// CandConstants, CandStateLog2, MaxMemory, Ranges and Family are
	// Options'.
	CandConstants []record.ConstantInput
	CandStateLog2 map[string]int
	MaxMemory     int64
	Ranges        bool
	Family        interp.Family
	// ClearMargin is the gap between REF's two largest logits from which a
	// position counts as a clear top-1 (Teacher.ClearSame); 0 means
	// DefaultClearMargin.
	ClearMargin float64
	// Progress is Options'.
	Progress func(done, total int64)
}

// DefaultClearMargin is the logit gap (REF's top-1 over its top-2, in
// nats: the log of their probability ratio) from which a top-1 counts as
// clear: 0.1 means the top token is at least 1.105 times as likely as the
// next.
const DefaultClearMargin = 0.1

// The default gates of verify's teacher-forced mode (and so of rewrite
// --verify): mean KL divergence at most DefaultMaxKLD nats and same-top-1
// at least DefaultMinSameTop1. On tiny synth arm A the default rewrite
// measures about 3e-6 nats and 99 %, 8-bit palettes 1.6e-4 and 91 %, 6-bit
// 1.2e-3 and 67 % (8 streams × 256, ieee).
const (
	DefaultMaxKLD      = 0.01
	DefaultMinSameTop1 = 0.9
)

// driftPoint is the relative RMS of one state at one position, over all
// streams: ‖ref − cand‖ / ‖ref‖ after that position's step.
type driftPoint struct {
	Position int // 0-based
	RelRMS   float64
	MaxAbs   float64
}

// stateCurve is one state's drift along the streams.
type stateCurve struct {
	Name   string
	Points []driftPoint
}

// Teacher is the outcome of a teacher-forced comparison. Every figure is
// over all streams × positions, computed in float64 from the two graphs'
// logits (the last row of the compared output).
type Teacher struct {
	Function          string
	Streams, Length   int
	Positions         int     // Streams × Length
	MeanKLD           float64 // mean over positions of KL(REF‖CAND) of the softmaxes, nats
	KLDP50, KLDP90    float64
	KLDP99, KLDMax    float64
	SameTop1          int     // positions whose argmaxes agree
	SameTop1Low, High float64 // Wilson 95 % interval of SameTop1/Positions
	ClearMargin       float64
	ClearPositions    int // positions whose REF top-2 logit gap ≥ ClearMargin
	ClearSame         int // of those, how many agree
	RMSDeltaP         float64
	PSNR              float64
	Identical         bool
	States            []stateCurve
	Final             []StateDrift // each state after the last position
	Inputs            []input
	Notes             []string
	Ranges            []Range
	// WeightBytes is what matmul and conv read from the weights of both
	// graphs over the run (interp.Interp.WeightBytesRead): with the streams
	// batched, about the two graphs' weight bytes per position, whatever
	// the number of streams; a paired op (PairedOps) reads its weight once
	// for both.
	WeightBytes int64
	// PairedOps is how many convs and matmuls ran once for both graphs
	// per position (interp.Pair): the same weight bytes applied alike.
	PairedOps int
	// Blobs is what the two graphs' weight blobs took (interp.SharedBlobs):
	// a blob byte-identical in both is held, mapped and paged in once.
	Blobs interp.SharedBlobsStats
}

// SameTop1Frac is SameTop1 as a fraction of the positions.
func (t *Teacher) SameTop1Frac() float64 { return frac(t.SameTop1, t.Positions) }

// ClearSameFrac is ClearSame as a fraction of ClearPositions (1 when none).
func (t *Teacher) ClearSameFrac() float64 { return frac(t.ClearSame, t.ClearPositions) }

func frac(k, n int) float64 {
	if n == 0 {
		return 1
	}
	return float64(k) / float64(n)
}

// RandomStreams makes n deterministic pseudo-random token streams of the
// given length: stream s is drawn uniformly from [0, vocab) by a PCG
// generator seeded with (seed, s), so the same flags give the same tokens
// on every machine. Uniform tokens are not text; they exercise every row
// of the embedding and keep the comparison free of any corpus.
func RandomStreams(n, length, vocab int, seed uint64) [][]int64 {
	out := make([][]int64, n)
	for s := range out {
		r := rand.New(rand.NewPCG(seed, uint64(s)))
		out[s] = make([]int64, length)
		for k := range out[s] {
			out[s][k] = int64(r.IntN(max(vocab, 1)))
		}
	}
	return out
}

// Vocab is the size of the last axis of the output Compare compares in m
// (the logits' vocabulary), 0 when it has none.
func Vocab(m *graph.Module, function string) (int, error) {
	s, err := newSide(m, function, interp.Options{})
	if err != nil {
		return 0, err
	}
	defer s.in.Close()
	tt, ok := graph.AsTensor(s.outs[s.logits].Type)
	if !ok || !tt.IsStatic() || len(tt.Shape) == 0 {
		return 0, nil
	}
	return int(tt.Shape[len(tt.Shape)-1]), nil
}

// laneSide is a side decoded for several streams at once (RunLanes).
type laneSide struct {
	*side
	lanes [][]*interp.Tensor
}

func newLaneSide(s *side, n int) *laneSide {
	ls := &laneSide{side: s, lanes: make([][]*interp.Tensor, n)}
	for l := range ls.lanes {
		ls.lanes[l] = make([]*interp.Tensor, len(s.args))
		for i, t := range s.args {
			if s.consts[i] != "" {
				ls.lanes[l][i] = t // never written: fed once, shared
			} else {
				ls.lanes[l][i] = t.Clone()
			}
		}
	}
	return ls
}

// feed sets every lane's inputs of position pos.
func (ls *laneSide) feed(streams [][]int64, pos int, seed uint64) error {
	for l := range ls.lanes {
		ls.args = ls.lanes[l]
		if err := ls.side.feed(streams[l][pos], pos, stepNoise(seed+uint64(l), pos)); err != nil {
			return err
		}
	}
	return nil
}

// carry takes each lane's states over from its outputs of a step.
func (ls *laneSide) carry(outs [][]*interp.Tensor) ([][]*interp.Tensor, error) {
	var err error
	for l, o := range outs {
		for i, k := range ls.state {
			t := o[k]
			if len(t.Shape) != len(ls.lanes[l][i].Shape) {
				if t, err = interp.Reshape(t, ls.lanes[l][i].Shape); err != nil {
					return nil, err
				}
			}
			ls.lanes[l][i] = t
		}
	}
	return outs, nil
}

// CompareTeacher feeds both modules the same token streams, all streams
// stepping together (RunLanes: each weight read once per position for all
// of them), and measures per position, in float64, the KL divergence of
// CAND's softmax from REF's, Δp (CAND's probability of REF's top token
// minus REF's), whether the top-1 tokens agree and REF's top-2 margin; and
// each state's drift along the streams.
func CompareTeacher(ref, cand *graph.Module, o TeacherOptions) (*Teacher, error) {
	if len(o.Streams) == 0 || len(o.Streams[0]) == 0 {
		return nil, fmt.Errorf("no token streams to feed")
	}
	L := len(o.Streams[0])
	for s, st := range o.Streams {
		if len(st) != L {
			return nil, fmt.Errorf("token stream %d has %d tokens, stream 1 has %d: streams run together, so they need one length", s+1, len(st), L)
		}
	}
	if o.ClearMargin <= 0 {
		o.ClearMargin = DefaultClearMargin
	}
	base := Options{Function: o.Function, Ref: o.Ref, Cand: o.Cand, MaxMemory: o.MaxMemory, CandConstants: o.CandConstants, CandStateLog2: o.CandStateLog2, Ranges: o.Ranges, Family: o.Family}
	if err := checkLanesMemory(ref, cand, base, len(o.Streams)); err != nil {
		return nil, err
	}
	var recs []*rangeRec
	if o.Ranges {
		recs = []*rangeRec{newRangeRec("reference", o.Family, newOpNames(ref)), newRangeRec("candidate", o.Family, newOpNames(cand))}
		recs[0].hook(&o.Ref)
		recs[1].hook(&o.Cand)
	}
	blobs := shareBlobs(&o.Ref, &o.Cand)
	defer blobs.Close()
	rs0, cs0, err := newSides(ref, cand, o.Function, o.Ref, o.Cand, o.CandConstants)
	if err != nil {
		return nil, err
	}
	defer rs0.in.Close()
	defer cs0.in.Close()
	res := &Teacher{Function: rs0.g.Name(), Streams: len(o.Streams), Length: L, ClearMargin: o.ClearMargin, Identical: true}
	res.Notes = append(res.Notes, logitsNotes(rs0)...)
	for i := range rs0.ins {
		res.Inputs = append(res.Inputs, input{Name: rs0.ins[i].Name, Role: rs0.role(i)})
	}
	var scratch Result
	if err := matchInputs(rs0, cs0, &scratch); err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, scratch.Notes...)
	rs, cs := newLaneSide(rs0, len(o.Streams)), newLaneSide(cs0, len(o.Streams))
	// REF and CAND step together: a conv or matmul on the same weight
	// bytes in both runs once for both (interp.Pair).
	pair := interp.NewPair(rs.in, rs.g.Name(), cs.in, cs.g.Name())
	checkpoints := driftPositions(L)
	curves := map[string]*stateCurve{}
	var acc teacherAcc
	var sqErr, peak float64
	var count int
	report(o.Progress, 0, L)
	for pos := 0; pos < L; pos++ {
		if err := rs.feed(o.Streams, pos, o.Seed); err != nil {
			return nil, err
		}
		if err := cs.feed(o.Streams, pos, o.Seed); err != nil {
			return nil, err
		}
		ro, co, rerr, cerr := pair.Run(rs.lanes, cs.lanes)
		if rerr == nil {
			ro, rerr = rs.carry(ro)
		}
		if cerr == nil {
			co, cerr = cs.carry(co)
		}
		if rerr != nil {
			return nil, fmt.Errorf("reference, position %d: %w", pos, rerr)
		}
		if cerr != nil {
			return nil, fmt.Errorf("candidate, position %d: %w", pos, cerr)
		}
		for l := range o.Streams {
			rl, cl := ro[l][rs.logits], co[l][cs.logits]
			if rl.Len() != cl.Len() {
				return nil, fmt.Errorf("first outputs differ in size: %v vs %v", rl.Shape, cl.Shape)
			}
			rf, cf := values(rl), values(cl)
			var st step
			if !compareLogits(rf, cf, &st, &sqErr, &peak) {
				res.Identical = false
			}
			count += len(rf)
			n := len(rf)
			if len(rl.Shape) > 0 {
				n = min(rl.Shape[len(rl.Shape)-1], n)
			}
			if n > 0 {
				acc.add(positionMeasure(rf[len(rf)-n:], cf[len(cf)-n:]), o.ClearMargin)
			}
		}
		if slices.Contains(checkpoints, pos) || pos == L-1 {
			for _, d := range laneStateDrift(rs, cs, o.CandStateLog2) {
				c := curves[d.Name]
				if c == nil {
					c = &stateCurve{Name: d.Name}
					curves[d.Name] = c
				}
				if slices.Contains(checkpoints, pos) {
					c.Points = append(c.Points, driftPoint{Position: pos, RelRMS: d.RelRMS, MaxAbs: d.MaxAbs})
				}
				if pos == L-1 {
					res.Final = append(res.Final, d)
					if !d.Identical {
						res.Identical = false
					}
				}
			}
		}
		report(o.Progress, pos+1, L)
	}
	acc.fill(res)
	res.PSNR = psnr(sqErr, peak, count)
	res.WeightBytes = rs.in.WeightBytesRead() + cs.in.WeightBytesRead()
	res.PairedOps = pair.Paired()
	res.Blobs = o.Ref.Blobs.Stats()
	if o.Cand.Blobs != o.Ref.Blobs { // the caller gave each its own store
		c := o.Cand.Blobs.Stats()
		res.Blobs.Held += c.Held
		res.Blobs.Shared += c.Shared
		res.Blobs.Compared += c.Compared
		res.Blobs.Folded += c.Folded
		res.Blobs.FoldShared += c.FoldShared
	}
	for _, c := range curves {
		res.States = append(res.States, *c)
	}
	sort.Slice(res.States, func(i, j int) bool { return res.States[i].Name < res.States[j].Name })
	for _, r := range recs {
		res.Ranges = append(res.Ranges, r.result()...)
	}
	for _, name := range sortedScaleNames(o.CandStateLog2) {
		res.Notes = append(res.Notes, fmt.Sprintf("candidate state %s is stored × 2^%d (scale-state); compared in the reference's units", name, -o.CandStateLog2[name]))
	}
	if acc.nonFinite > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d position(s) had non-finite logits; their KL divergence counts as +inf", acc.nonFinite))
	}
	return res, nil
}

// StreamsWithin is the largest number of streams, from 1 to want, whose
// teacher-forced comparison of ref and cand fits maxMemory by the same
// estimate CompareTeacher checks (want when maxMemory ≤ 0); 1 when none
// does, so that CompareTeacher reports the overrun.
func StreamsWithin(ref, cand *graph.Module, function string, maxMemory int64, want int) int {
	o := Options{Function: function, MaxMemory: maxMemory}
	for n := want; n > 1; n-- {
		if checkLanesMemory(ref, cand, o, n) == nil {
			return n
		}
	}
	return 1
}

// driftPositions are the positions (0-based) at which state drift is
// sampled: eight evenly spaced ending at the last, or every position when
// there are fewer than eight.
func driftPositions(L int) []int {
	const points = 8
	if L <= points {
		out := make([]int, L)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, points)
	for k := 1; k <= points; k++ {
		p := (L*k+points-1)/points - 1
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// laneStateDrift is stateDrift over all lanes together: one relative RMS
// per state from the squared differences and squares of every stream.
func laneStateDrift(rs, cs *laneSide, log2 map[string]int) []StateDrift {
	var out []StateDrift
	for l := range rs.lanes {
		rs.args, cs.args = rs.lanes[l], cs.lanes[l]
		ds := stateDriftSums(rs.side, cs.side, log2)
		if out == nil {
			out = ds
			continue
		}
		for i := range out {
			out[i].num += ds[i].num
			out[i].den += ds[i].den
			out[i].MaxAbs = math.Max(out[i].MaxAbs, ds[i].MaxAbs)
			out[i].Identical = out[i].Identical && ds[i].Identical
		}
	}
	for i := range out {
		out[i].RelRMS = relRMS(out[i].num, out[i].den)
	}
	return out
}

// measure is what one position contributes, from REF's and CAND's logits.
type measure struct {
	KLD       float64 // KL(REF‖CAND) of the softmaxes, nats (+inf when CAND is not finite where REF is)
	DeltaP    float64 // CAND's probability of REF's top token minus REF's
	Same      bool    // the argmaxes agree (first of equal ones)
	Margin    float64 // REF's largest logit minus its second largest
	NonFinite bool
}

// positionMeasure computes a position's Measure in float64: log-softmax
// by subtracting the maximum and the log of the sum of exponentials.
func positionMeasure(r, c []float64) measure {
	lr, okR := logSoftmax(r)
	lc, okC := logSoftmax(c)
	top, ctop := argmax64(r), argmax64(c)
	m := measure{Same: top == ctop, Margin: topGap(r, top)}
	if !okR || !okC {
		m.KLD, m.NonFinite = math.Inf(1), true
		if okR {
			m.DeltaP = -math.Exp(lr[top])
		}
		return m
	}
	var kl float64
	for i, a := range lr {
		if p := math.Exp(a); p > 0 {
			kl += p * (a - lc[i])
		}
	}
	m.KLD = math.Max(kl, 0) // rounding can leave a tiny negative sum
	m.DeltaP = math.Exp(lc[top]) - math.Exp(lr[top])
	return m
}

func logSoftmax(v []float64) ([]float64, bool) {
	mx := math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		mx = math.Max(mx, x)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	ls := mx + math.Log(s)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x - ls
	}
	return out, true
}

// argmax64 is the index of the largest value, the first of equal ones; a
// NaN is taken over by whatever follows it (argmax's rule).
func argmax64(v []float64) int {
	b := 0
	for j, x := range v {
		if x > v[b] || v[b] != v[b] {
			b = j
		}
	}
	return b
}

// topGap is v[top] minus the largest other value (+inf with one value).
func topGap(v []float64, top int) float64 {
	second := math.Inf(-1)
	for j, x := range v {
		if j != top {
			second = math.Max(second, x)
		}
	}
	return v[top] - second
}

// wilson is the 95 % Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// teacherAcc gathers the per-position measures.
type teacherAcc struct {
	klds            []float64
	same, clear, cs int
	sqDP            float64
	nonFinite       int
}

func (a *teacherAcc) add(m measure, clearMargin float64) {
	a.klds = append(a.klds, m.KLD)
	if m.Same {
		a.same++
	}
	if m.Margin >= clearMargin {
		a.clear++
		if m.Same {
			a.cs++
		}
	}
	a.sqDP += m.DeltaP * m.DeltaP
	if m.NonFinite {
		a.nonFinite++
	}
}

func (a *teacherAcc) fill(t *Teacher) {
	n := len(a.klds)
	t.Positions, t.SameTop1, t.ClearPositions, t.ClearSame = n, a.same, a.clear, a.cs
	t.SameTop1Low, t.High = wilson(a.same, n)
	if n == 0 {
		return
	}
	var sum float64
	for _, k := range a.klds {
		sum += k
	}
	t.MeanKLD = sum / float64(n)
	sorted := slices.Clone(a.klds)
	slices.Sort(sorted)
	t.KLDP50, t.KLDP90, t.KLDP99 = percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99)
	t.KLDMax = sorted[n-1]
	t.RMSDeltaP = math.Sqrt(a.sqDP / float64(n))
}

// percentile is the p-th percentile of sorted values by linear
// interpolation between closest ranks (numpy.percentile's default).
func percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := p / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, n-1)
	f := pos - float64(lo)
	if f == 0 || math.IsInf(sorted[lo], 0) || math.IsInf(sorted[hi], 0) {
		if f == 0 {
			return sorted[lo]
		}
		return sorted[hi]
	}
	return sorted[lo] + f*(sorted[hi]-sorted[lo])
}
