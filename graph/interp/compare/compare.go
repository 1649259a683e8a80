// Package compare runs two modules (a reference and a candidate, typically
// an export and its rewrite) side by side through the interpreter with
// greedy decoding, and measures how far their outputs and states drift:
// the numbers behind `anefix verify`.
package compare

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/record"
)

// Options configure a comparison.
type Options struct {
	// Steps is the number of generated tokens compared (default 24).
	Steps int
	// Prompt are the token ids fed before generation (default [1]).
	Prompt []int64
	// Seed seeds the pseudo-random inputs of graphs that take embeddings or
	// hidden states; both graphs get the same values.
	Seed uint64
	// Function names the graph to run in both modules; "" picks "main", or
	// the first public graph.
	Function string
	// Ref and Cand are the interpreter options of each side.
	Ref, Cand interp.Options
	// CandConstants are candidate inputs that carry a constant the
	// reference holds in its graph (externalize-constant, listed in the
	// candidate's record; RecordInputs reads them): each is fed that
	// constant's values, evaluated in the reference, instead of being
	// treated as a data input. A constant is found by Resource (matched
	// first) or, for an inline constant, by OpID; entries for another
	// graph than the one run are ignored.
	CandConstants []record.ConstantInput
	// CandStateLog2 holds, by state input name, the exponents scale-state
	// recorded for the candidate (the bundle's anefix.json "stateScales"):
	// the candidate stores value × 2^-k, so its state is multiplied by 2^k
	// before it is compared with the reference's. Initial states are zeros,
	// which every scale leaves zero, so feeding needs no conversion.
	CandStateLog2 map[string]int
	// MaxMemory, when > 0, refuses a comparison whose two graphs need more
	// anonymous memory than this many bytes by interp.EstimateMemory
	// (mapped weights do not count), before anything is allocated.
	MaxMemory int64
	// Ranges records, per op of both graphs, the largest magnitude its
	// results reach and flags fp16 overflow, inf/NaN and the Neural Engine
	// profile's saturation points for Family (Result.Ranges).
	Ranges bool
	Family interp.Family
	// Localize runs the reference with f16 computed in float32 and ranks
	// the candidate's ops by the error they add (Result.Localize).
	Localize bool
	// Progress, when set, is told after each position how many of the
	// run's positions are done (for a progress bar).
	Progress func(done, total int64)
}

// report calls f, when set, with done of total positions.
func report(f func(done, total int64), done, total int) {
	if f != nil {
		f(int64(done), int64(total))
	}
}

// errMemory is the error (wrapped) of a comparison past Options.MaxMemory.
var errMemory = errors.New("needs more memory than allowed")

// FormatBytes prints n in the largest binary unit that keeps it >= 1
// (graph.FormatBytes).
func FormatBytes(n int64) string { return graph.FormatBytes(n) }

// checkMemory estimates both sides before newSide allocates their inputs.
func checkMemory(ref, cand *graph.Module, o Options) error {
	return checkLanesMemory(ref, cand, o, 1)
}

// checkLanesMemory is checkMemory for lanes streams run together.
func checkLanesMemory(ref, cand *graph.Module, o Options, lanes int) error {
	if o.MaxMemory <= 0 {
		return nil
	}
	var need int64
	for _, m := range []*graph.Module{ref, cand} {
		g, err := pickFunction(m, o.Function)
		if err != nil {
			return nil // newSide reports it
		}
		if err := interp.CheckSizes(m); err != nil {
			return err // a size past int64 has no estimate to compare
		}
		need = graph.SatAdd(need, interp.EstimateLanesMemory(m, g.Name(), lanes))
	}
	if o.Localize {
		need = graph.SatAdd(need, localizeBytes(ref))
	}
	if need > o.MaxMemory {
		streams := ""
		if lanes > 1 {
			streams = fmt.Sprintf(" for %d streams together (the live values once per stream, what is computed from weights alone once; fewer --streams need less)", lanes)
		}
		return fmt.Errorf("running both graphs %w: an estimated %s of heap from the shapes they declare (constants, inputs and the live values; mapped weights do not count)%s, over the limit of %s (--max-memory); raise --max-memory if this machine has the memory, or check the shapes the graphs declare",
			errMemory, FormatBytes(need), streams, FormatBytes(o.MaxMemory))
	}
	return nil
}

// step is one decoded position.
type step struct {
	Index     int   // 0-based over prompt and generated positions
	Prompt    bool  // a prompt position (not counted in the agreement)
	RefToken  int64 // argmax of the reference's first output
	CandToken int64
	Equal     bool
	Cosine    float64 // of the two first outputs (logits)
	MaxAbs    float64 // max |ref − cand| over the first output
}

// StateDrift compares one state of the two runs after the last step.
type StateDrift struct {
	Name   string
	MaxAbs float64
	RelRMS float64 // ‖ref − cand‖ / ‖ref‖
	// Identical reports bit-identical values (after widening to float64).
	Identical bool
	num, den  float64 // Σ(ref − cand)², Σ ref² (stateDriftSums)
}

// input says how one graph input was fed.
type input struct {
	Name string
	Role string // token, position, step, mask, state, random, zero
}

// Result is the outcome of a comparison.
type Result struct {
	Function        string
	Steps           []step
	Agree, N        int
	FirstDivergence int // index into the generated steps, -1 when none
	PSNR            float64
	// Identical is true when every output and state matched bit for bit.
	Identical bool
	States    []StateDrift
	Inputs    []input
	Notes     []string
	Ranges    []Range   // with Options.Ranges
	Localize  *localize // with Options.Localize
}

// side is one module being decoded.
type side struct {
	in     *interp.Interp
	g      *graph.Graph
	ins    []graph.Port
	outs   []graph.Port
	args   []*interp.Tensor
	state  map[int]int    // input index -> output index carrying its new value
	consts map[int]string // input index -> what constant it carries (fed once)
	logits int            // output index of the first non-state output
	// logitsIsState: the graph has no other output, so logits is a
	// state's (the first output).
	logitsIsState bool
}

var (
	tokenRe = regexp.MustCompile(`(?i)(input_?ids|token_?ids|^tokens?$|^ids$)`)
	posRe   = regexp.MustCompile(`(?i)^(position_?ids|positions?|pos)$`)
	stepRe  = regexp.MustCompile(`(?i)^(in_?step|step|cache_?position|current_?pos(ition)?)$`)
	maskRe  = regexp.MustCompile(`(?i)mask`)
)

func pickFunction(m *graph.Module, name string) (*graph.Graph, error) {
	if name != "" {
		g := m.Graph(name)
		if g == nil {
			var names []string
			for _, g := range m.Graphs() {
				if g.Visibility() != "private" {
					names = append(names, "@"+g.Name())
				}
			}
			return nil, fmt.Errorf("no graph @%s; --function takes one of: %s", name, strings.Join(names, ", "))
		}
		return g, nil
	}
	if g := m.Graph("main"); g != nil {
		return g, nil
	}
	for _, g := range m.Graphs() {
		if g.Visibility() == "" && g.Body() != nil {
			return g, nil
		}
	}
	return nil, fmt.Errorf("no public graph to run")
}

func tensorFor(t graph.Type) (interp.Elem, []int, error) {
	tt, ok := graph.AsTensor(t)
	if !ok || !tt.IsStatic() {
		return 0, nil, fmt.Errorf("type %s is not a static tensor", t)
	}
	el, err := interp.ElemOf(tt.Elem)
	if err != nil {
		return 0, nil, err
	}
	shape, err := interp.ShapeOf(tt)
	if err != nil {
		return 0, nil, err
	}
	return el, shape, nil
}

func newSide(m *graph.Module, fn string, opts interp.Options) (*side, error) {
	g, err := pickFunction(m, fn)
	if err != nil {
		return nil, err
	}
	s := &side{in: interp.New(m, opts), g: g, ins: g.Inputs(), outs: g.Outputs(), state: map[int]int{}, logits: -1}
	for i := range s.ins {
		if s.ins[i].Name == "" {
			s.ins[i].Name = fmt.Sprintf("%%arg%d", i)
		}
	}
	s.args = make([]*interp.Tensor, len(s.ins))
	used := map[int]bool{}
	for i, p := range s.ins {
		el, shape, err := tensorFor(p.Type)
		if err != nil {
			return nil, fmt.Errorf("@%s input %q: %w", g.Name(), p.Name, err)
		}
		s.args[i] = interp.Zeros(el, shape)
	}
	// The output carrying each state's new value, as every pass pairs them
	// (graph/states.go); a handle's token output stands for the handle's
	// last written tensor, which the interpreter returns in its place.
	for _, sp := range graph.States(g, graph.StateOptions{}).Pairs {
		if sp.Out >= 0 {
			s.state[sp.In] = sp.Out
			used[sp.Out] = true
		}
	}
	// The first output that is not a state; past one that holds no
	// elements (nothing to take a top-1 of) when a later one does.
	for k, o := range s.outs {
		if used[k] || o.IsState {
			continue
		}
		if s.logits < 0 {
			s.logits = k
		}
		if tt, ok := graph.AsTensor(o.Type); !ok || !tt.IsStatic() || tt.NumElements() > 0 {
			s.logits = k
			break
		}
	}
	if s.logits < 0 && len(s.outs) > 0 {
		// Every output carries a state: compare the first one's new value
		// (logitsNotes says so) rather than refuse the graph.
		s.logits, s.logitsIsState = 0, true
	}
	if s.logits < 0 {
		return nil, fmt.Errorf("@%s has no output; nothing to compare", g.Name())
	}
	return s, nil
}

// role decides how input i is fed.
func (s *side) role(i int) string {
	p := s.ins[i]
	isInt := !s.args[i].Elem.IsFloat()
	switch {
	case s.consts[i] != "":
		return "constant"
	case s.hasState(i):
		return "state"
	case isInt && tokenRe.MatchString(p.Name):
		return "token"
	case isInt && posRe.MatchString(p.Name):
		return "position"
	case isInt && stepRe.MatchString(p.Name):
		return "step"
	case maskRe.MatchString(p.Name):
		return "mask"
	case !isInt:
		return "random"
	}
	return "zero"
}

func (s *side) hasState(i int) bool { _, ok := s.state[i]; return ok }

func (s *side) isStateOutput(k int) bool {
	for _, o := range s.state {
		if o == k {
			return true
		}
	}
	return s.outs[k].IsState
}

// feed sets the per-step inputs. rnd holds, per input name, the values of
// the pseudo-random inputs shared by both sides.
//
// A graph with a query length q > 1 (its position input has q elements,
// as Apple's extend_* functions) advances q positions per step: positions
// pos·q … pos·q+q−1, in_step pos·q, and the mask opens up to the last of
// them.
func (s *side) feed(tok int64, pos int, rnd func(name string, n int) []float64) error {
	q := 1
	for i := range s.ins {
		if s.role(i) == "position" {
			q = max(q, s.args[i].Len())
		}
	}
	base := pos * q
	for i, p := range s.ins {
		t := s.args[i]
		switch s.role(i) {
		case "state", "constant":
			continue
		case "token":
			fill(t, float64(tok))
		case "position":
			for e := 0; e < t.Len(); e++ {
				t.I[e] = int64(base + e%q)
			}
		case "step":
			fill(t, float64(base))
		case "mask":
			// Additive causal mask along the longest axis: 0 up to the
			// current position, the most negative half beyond it (booleans:
			// true where attention is allowed). A rank-0 mask has no axis
			// to open: its element reads as position 0, always allowed.
			n, axis := 1, len(t.Shape)
			for k, d := range t.Shape {
				if d > n || axis == len(t.Shape) {
					n, axis = d, k
				}
			}
			inner := 1
			for _, d := range t.Shape[min(axis+1, len(t.Shape)):] {
				inner *= d
			}
			for e := 0; e < t.Len(); e++ {
				j := (e / inner) % n
				allowed := j <= base+q-1
				if t.Elem.IsFloat() {
					v := float32(0)
					if !allowed {
						v = -65504
					}
					t.F[e] = v
				} else {
					t.I[e] = 0
					if allowed {
						t.I[e] = 1
					}
				}
			}
		case "random":
			vals := rnd(p.Name, t.Len())
			for e := range t.F {
				t.F[e] = interp.FromF32(t.Elem, []int{1}, []float32{float32(vals[e])}).F[0]
			}
		default:
			fill(t, 0)
		}
	}
	return nil
}

func fill(t *interp.Tensor, v float64) {
	if t.Elem.IsFloat() {
		f := interp.FromF32(t.Elem, []int{1}, []float32{float32(v)}).F[0]
		for i := range t.F {
			t.F[i] = f
		}
		return
	}
	for i := range t.I {
		t.I[i] = int64(v)
	}
}

// step runs the graph once and carries the states over.
func (s *side) step() ([]*interp.Tensor, error) {
	outs, err := s.in.Run(s.g.Name(), s.args)
	if err != nil {
		return nil, err
	}
	for i, k := range s.state {
		t := outs[k]
		if len(t.Shape) != len(s.args[i].Shape) {
			var err error
			if t, err = interp.Reshape(t, s.args[i].Shape); err != nil {
				return nil, err
			}
		}
		s.args[i] = t
	}
	return outs, nil
}

// stepBoth runs one step of each side: at once when together (the two
// interpreters share nothing, and a step's ops outside matmul and conv run
// on one core, so the second core is otherwise idle for most of it), one
// after the other when not (--localize compares the two sides' ops in the
// order they run).
func stepBoth(rs, cs *side, together bool) (ro, co []*interp.Tensor, rerr, cerr error) {
	if !together {
		if ro, rerr = rs.step(); rerr != nil {
			return
		}
		co, cerr = cs.step()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		co, cerr = cs.step()
	}()
	ro, rerr = rs.step()
	<-done
	return
}

// argmax is the index of the largest element of the last row of v (the
// newest position's logits; the whole of a rank-0 tensor), the first of
// equal ones; a NaN is taken over by whatever follows it. ok is false when
// the row is empty (a size-0 dimension): there is no top-1.
func argmax(t *interp.Tensor, v []float64) (best int64, ok bool) {
	n := len(v)
	if len(t.Shape) > 0 {
		n = min(t.Shape[len(t.Shape)-1], len(v))
	}
	if n <= 0 {
		return 0, false
	}
	row := v[len(v)-n:]
	b := 0
	for j, x := range row {
		if x > row[b] || row[b] != row[b] {
			b = j
		}
	}
	return int64(b), true
}

// values widens any tensor's elements to float64 (exactly: float32, the
// f16/bf16/f8 values held in it, and integers up to 2^53), so top-1 and
// the logit measures work on float, integer and boolean outputs alike.
func values(t *interp.Tensor) []float64 {
	out := make([]float64, t.Len())
	if t.Elem.IsFloat() {
		for i, x := range t.Floats()[:len(out)] {
			out[i] = float64(x)
		}
		return out
	}
	for i, x := range t.I[:len(out)] {
		out[i] = float64(x)
	}
	return out
}

// Compare decodes both modules greedily from the same prompt, each feeding
// back its own tokens and states, and compares them step by step.
func Compare(ref, cand *graph.Module, o Options) (*Result, error) {
	if o.Steps <= 0 {
		o.Steps = 24
	}
	if len(o.Prompt) == 0 {
		o.Prompt = []int64{1}
	}
	if err := checkMemory(ref, cand, o); err != nil {
		return nil, err
	}
	var recs []*rangeRec
	var loc *localizer
	if o.Ranges {
		recs = []*rangeRec{newRangeRec("reference", o.Family, newOpNames(ref)), newRangeRec("candidate", o.Family, newOpNames(cand))}
		recs[0].hook(&o.Ref)
		recs[1].hook(&o.Cand)
	}
	if o.Localize {
		o.Ref.Wide = true
		loc = newLocalizer(ref, cand, newOpNames(cand))
		loc.hook(&o.Ref, &o.Cand)
	}
	defer shareBlobs(&o.Ref, &o.Cand).Close()
	rs, cs, err := newSides(ref, cand, o.Function, o.Ref, o.Cand, o.CandConstants)
	if err != nil {
		return nil, err
	}
	defer rs.in.Close()
	defer cs.in.Close()
	res := &Result{Function: rs.g.Name(), FirstDivergence: -1, Identical: true}
	res.Notes = append(res.Notes, logitsNotes(rs)...)
	for i := range rs.ins {
		res.Inputs = append(res.Inputs, input{Name: rs.ins[i].Name, Role: rs.role(i)})
	}
	if err := matchInputs(rs, cs, res); err != nil {
		return nil, err
	}
	var sqErr, peak float64
	var count int
	refTok, candTok := o.Prompt[0], o.Prompt[0]
	total := len(o.Prompt) + o.Steps - 1
	report(o.Progress, 0, total)
	for pos := 0; pos < total; pos++ {
		prompt := pos < len(o.Prompt)-1
		if pos < len(o.Prompt) {
			refTok, candTok = o.Prompt[pos], o.Prompt[pos]
		}
		if err := rs.feed(refTok, pos, stepNoise(o.Seed, pos)); err != nil {
			return nil, err
		}
		if err := cs.feed(candTok, pos, stepNoise(o.Seed, pos)); err != nil {
			return nil, err
		}
		if loc != nil {
			loc.inputErrors(rs, cs)
		}
		ro, co, rerr, cerr := stepBoth(rs, cs, loc == nil)
		if rerr != nil {
			return nil, fmt.Errorf("reference, position %d: %w", pos, rerr)
		}
		if cerr != nil {
			return nil, fmt.Errorf("candidate, position %d: %w", pos, cerr)
		}
		if loc != nil {
			loc.endStep()
		}
		rl, cl := ro[rs.logits], co[cs.logits]
		if rl.Len() != cl.Len() {
			return nil, fmt.Errorf("first outputs differ in size: %v vs %v", rl.Shape, cl.Shape)
		}
		rf, cf := values(rl), values(cl)
		st := step{Index: pos, Prompt: prompt}
		var okR, okC bool
		st.RefToken, okR = argmax(rl, rf)
		st.CandToken, okC = argmax(cl, cf)
		if !okR || !okC {
			// No top-1 to compare or feed back: the fed token stays.
			st.RefToken, st.CandToken, st.Equal = refTok, candTok, true
		}
		st.Equal = st.Equal || st.RefToken == st.CandToken
		if !compareLogits(rf, cf, &st, &sqErr, &peak) {
			res.Identical = false
		}
		count += len(rf)
		res.Steps = append(res.Steps, st)
		report(o.Progress, pos+1, total)
		if !okR || !okC {
			continue
		}
		if !prompt {
			res.N++
			if st.Equal {
				res.Agree++
			} else if res.FirstDivergence < 0 {
				res.FirstDivergence = res.N - 1
			}
		}
		refTok, candTok = st.RefToken, st.CandToken
	}
	res.PSNR = psnr(sqErr, peak, count)
	for _, r := range recs {
		res.Ranges = append(res.Ranges, r.result()...)
	}
	if loc != nil {
		res.Localize = loc.result()
		res.Notes = append(res.Notes, "--localize: the reference ran with its f16 ops computed in float32, so the agreement above is against that high-precision reference")
	}
	res.States = stateDrift(rs, cs, o.CandStateLog2)
	for _, name := range sortedScaleNames(o.CandStateLog2) {
		res.Notes = append(res.Notes, fmt.Sprintf("candidate state %s is stored × 2^%d (scale-state); compared in the reference's units", name, -o.CandStateLog2[name]))
	}
	for _, d := range res.States {
		if !d.Identical {
			res.Identical = false
		}
	}
	return res, nil
}

// logitsNotes says how the compared output is read when it is not a float
// tensor with elements.
func logitsNotes(s *side) []string {
	o := s.outs[s.logits]
	tt, ok := graph.AsTensor(o.Type)
	if !ok {
		return nil
	}
	name := o.Name
	if name == "" {
		name = fmt.Sprintf("#%d", s.logits)
	}
	var notes []string
	if s.logitsIsState {
		notes = append(notes, fmt.Sprintf("@%s has no output besides its states: the compared output is %q, a state's new value (top-1 is its argmax)", s.g.Name(), name))
	}
	switch {
	case tt.IsStatic() && tt.NumElements() == 0:
		notes = append(notes, fmt.Sprintf("the compared output %q (%s) holds no elements: there is no top-1, so no step is counted and each step feeds the prompt's last token again; states are still compared", name, o.Type))
	case !isFloatType(tt.Elem):
		notes = append(notes, fmt.Sprintf("the compared output %q is %s: top-1 is the argmax of its values as numbers (booleans as 0 and 1), and cosine, max |Δ| and PSNR compare those numbers", name, o.Type))
	}
	return notes
}

// stepNoise returns the deterministic N(0,1) filler for the inputs of one
// decode step, seeded by seed, the input's name and the step.
func stepNoise(seed uint64, step int) func(string, int) []float64 {
	return func(name string, n int) []float64 {
		h := fnv.New64a()
		h.Write([]byte(name))
		r := rand.New(rand.NewPCG(seed^h.Sum64(), uint64(step)))
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
}

// compareLogits fills st's MaxAbs and Cosine from one step's logits, adds
// to the running squared error and peak (in element order), and reports
// whether the two are bit-identical.
func compareLogits(rf, cf []float64, st *step, sqErrP, peakP *float64) bool {
	identical := true
	sqErr, peak, maxAbs := *sqErrP, *peakP, st.MaxAbs
	var dot, nr, nc float64
	for i := range rf {
		a, b := rf[i], cf[i]
		if math.Float64bits(a) != math.Float64bits(b) {
			identical = false
		}
		dot += a * b
		nr += a * a
		nc += b * b
		d := math.Abs(a - b)
		maxAbs = math.Max(maxAbs, d)
		sqErr += d * d
		peak = math.Max(peak, math.Abs(a))
	}
	*sqErrP, *peakP, st.MaxAbs = sqErr, peak, maxAbs
	switch {
	case nr == 0 && nc == 0:
		st.Cosine = 1
	case nr == 0 || nc == 0:
		st.Cosine = 0
	default:
		st.Cosine = dot / math.Sqrt(nr*nc)
	}
	return identical
}

// psnr is the peak signal-to-noise ratio in dB of count logits with the
// given squared-error sum and reference peak (+Inf when identical).
func psnr(sqErr, peak float64, count int) float64 {
	mse := sqErr / math.Max(float64(count), 1)
	switch {
	case mse == 0:
		return math.Inf(1)
	case peak == 0:
		return math.Inf(-1)
	default:
		return 20*math.Log10(peak) - 10*math.Log10(mse)
	}
}

// matchInputs checks that the candidate has the reference's inputs (by
// name, element count) so both can be fed the same data, and notes changes.
func matchInputs(rs, cs *side, res *Result) error {
	cByName := map[string]int{}
	for i, p := range cs.ins {
		cByName[p.Name] = i
	}
	for k, what := range cs.consts {
		res.Notes = append(res.Notes, fmt.Sprintf("candidate input %q is fed %s from the reference (externalized constant)", cs.ins[k].Name, what))
	}
	for i, p := range rs.ins {
		k, ok := cByName[p.Name]
		if !ok {
			return fmt.Errorf("candidate @%s has no input %q", cs.g.Name(), p.Name)
		}
		if rs.args[i].Len() != cs.args[k].Len() {
			return fmt.Errorf("input %q: reference has %d elements (%v), candidate %d (%v)", p.Name, rs.args[i].Len(), rs.args[i].Shape, cs.args[k].Len(), cs.args[k].Shape)
		}
		if !slices.Equal(rs.args[i].Shape, cs.args[k].Shape) || rs.args[i].Elem != cs.args[k].Elem {
			res.Notes = append(res.Notes, fmt.Sprintf("input %q is %s in the reference and %s in the candidate; both get the same values", p.Name, rs.args[i], cs.args[k]))
		}
		if rs.role(i) != cs.role(k) {
			return fmt.Errorf("input %q is a %s in the reference but a %s in the candidate", p.Name, rs.role(i), cs.role(k))
		}
	}
	if len(cs.ins)-len(cs.consts) != len(rs.ins) {
		return fmt.Errorf("reference @%s has %d inputs, candidate %d (besides %d externalized constant(s))", rs.g.Name(), len(rs.ins), len(cs.ins)-len(cs.consts), len(cs.consts))
	}
	return nil
}

func sortedScaleNames(m map[string]int) []string {
	var out []string
	for k, v := range m {
		if v != 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func stateDrift(rs, cs *side, log2 map[string]int) []StateDrift {
	out := stateDriftSums(rs, cs, log2)
	for i := range out {
		out[i].RelRMS = relRMS(out[i].num, out[i].den)
	}
	return out
}

// relRMS is √(num/den): +inf when only the difference is nonzero.
func relRMS(num, den float64) float64 {
	switch {
	case den > 0:
		return math.Sqrt(num / den)
	case num > 0:
		return math.Inf(1)
	}
	return 0
}

// stateDriftSums compares the states of the two sides' current inputs:
// max |Δ|, bit identity and the sums of squares behind the relative RMS.
func stateDriftSums(rs, cs *side, log2 map[string]int) []StateDrift {
	cByName := map[string]int{}
	for i, p := range cs.ins {
		cByName[p.Name] = i
	}
	var out []StateDrift
	for i := range rs.ins {
		if !rs.hasState(i) {
			continue
		}
		name := rs.ins[i].Name
		k, ok := cByName[name]
		if !ok || !cs.hasState(k) {
			continue
		}
		a, b := rs.args[i], cs.args[k]
		d := StateDrift{Name: name, Identical: true}
		scale := log2[name]
		at := func(t *interp.Tensor) func(int) float64 {
			if t.Elem.IsFloat() {
				f := t.Floats() // widened once, not per element
				return func(e int) float64 { return float64(f[e]) }
			}
			return t.Float64At
		}
		ra, cb, mul := at(a), at(b), math.Ldexp(1, scale)
		for e, n := 0, a.Len(); e < n; e++ {
			x, y := ra(e), cb(e)*mul // × 2^k is exact
			if math.Float64bits(x) != math.Float64bits(y) {
				d.Identical = false
			}
			diff := x - y
			if ad := math.Abs(diff); ad > d.MaxAbs || ad != ad {
				d.MaxAbs = math.Max(d.MaxAbs, ad)
			}
			d.num += diff * diff
			d.den += x * x
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// shareBlobs gives both interpreters one store of weight blobs (unless
// the caller gave them one), so that a blob byte-identical in REF and CAND
// (most of them after a rewrite) is mapped and paged in once for both
// (interp.SharedBlobs). The caller closes it after both interpreters.
func shareBlobs(ro, co *interp.Options) *interp.SharedBlobs {
	switch {
	case ro.Blobs != nil && co.Blobs == nil:
		co.Blobs = ro.Blobs
	case co.Blobs != nil && ro.Blobs == nil:
		ro.Blobs = co.Blobs
	case ro.Blobs == nil:
		s := interp.NewSharedBlobs()
		ro.Blobs, co.Blobs = s, s
		return s
	}
	return nil
}

// feedConstants sets each externalized constant input of the candidate to
// the values of the constant the reference holds, converted to the
// input's element type (rounded to nearest even, as strip-fp32-casts
// converts a constant) when they differ.
// newSides sets up the reference and the candidate of one comparison,
// both greedy and teacher-forced: the candidate compares the same output
// (its output of the reference's logits name when it has one: passes may
// reorder outputs), and its inputs that carry a reference constant are
// fed. The caller closes both sides' inputs.
func newSides(ref, cand *graph.Module, fn string, ro, co interp.Options, cis []record.ConstantInput) (rs, cs *side, err error) {
	rs, err = newSide(ref, fn, ro)
	if err != nil {
		return nil, nil, fmt.Errorf("reference: %w", err)
	}
	cs, err = newSide(cand, fn, co)
	if err != nil {
		rs.in.Close()
		return nil, nil, fmt.Errorf("candidate: %w", err)
	}
	for k, out := range cs.outs {
		if out.Name != "" && out.Name == rs.outs[rs.logits].Name && (rs.logitsIsState || !cs.isStateOutput(k)) {
			cs.logits = k
		}
	}
	if err := feedConstants(rs, cs, ref, cis); err != nil {
		rs.in.Close()
		cs.in.Close()
		return nil, nil, err
	}
	return rs, cs, nil
}

func feedConstants(rs, cs *side, ref *graph.Module, cis []record.ConstantInput) error {
	cs.consts = map[int]string{}
	for _, ci := range cis {
		if ci.Graph != "" && ci.Graph != cs.g.Name() {
			continue
		}
		k := -1
		for i, p := range cs.ins {
			if p.Name == ci.Input {
				k = i
			}
		}
		if k < 0 {
			return fmt.Errorf("candidate: the record says input %q carries a constant, but @%s has no such input", ci.Input, cs.g.Name())
		}
		op, what, err := findConstant(ref, ci, cs.args[k].Len())
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		t, err := rs.in.Constant(op)
		if err != nil {
			return fmt.Errorf("reference: %s: %w", op.Describe(), err)
		}
		want := cs.args[k]
		if t.Len() != want.Len() {
			return fmt.Errorf("candidate input %q is %s but the reference's %s is %s", ci.Input, want, what, t)
		}
		if t.Elem != want.Elem {
			if !t.Elem.IsFloat() || !want.Elem.IsFloat() {
				return fmt.Errorf("candidate input %q is %s but the reference's %s is %s; only float element types are converted", ci.Input, want, what, t)
			}
			t = interp.FromF32(want.Elem, want.Shape, t.Floats())
		}
		if !slices.Equal(t.Shape, want.Shape) {
			if t, err = interp.Reshape(t, want.Shape); err != nil {
				return err
			}
		}
		cs.args[k] = t
		cs.consts[k] = what
	}
	return nil
}

// findConstant finds the reference's constant named by ci: by resource
// key, else by op id (when several constants share the op id, the one
// with n elements, which must be unique).
func findConstant(m *graph.Module, ci record.ConstantInput, n int) (*graph.Operation, string, error) {
	var byRes, byID []*graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if op.Name != "coreai.constant" || op.NumResults() != 1 {
			return true
		}
		if a, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok && ci.Resource != "" && a.Key == ci.Resource {
			byRes = append(byRes, op)
		}
		if ci.OpID != "" && op.OpID() == ci.OpID {
			if tt, ok := graph.AsTensor(op.Result(0).Type()); ok && tt.IsStatic() && tt.NumElements() == int64(n) {
				byID = append(byID, op)
			}
		}
		return true
	})
	switch {
	case len(byRes) > 0:
		return byRes[0], "dense_resource " + ci.Resource, nil
	case len(byID) == 1:
		return byID[0], "constant " + byID[0].Describe(), nil
	case len(byID) > 1:
		return nil, "", fmt.Errorf("%d constants have op id %q and %d elements; cannot tell which input %q carries", len(byID), ci.OpID, n, ci.Input)
	}
	return nil, "", fmt.Errorf("no constant holds dense_resource %q or has op id %q, which the candidate's input %q carries; verify it against the model it was rewritten from", ci.Resource, ci.OpID, ci.Input)
}

func isFloatType(t graph.Type) bool { _, ok := t.(*graph.FloatType); return ok }
