package passes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
	"github.com/anefix/anefix/passes/internal/ops"
)

// ssMaxExp bounds the exponent: fp16's exponent range is 2^-24 … 2^15, so a
// larger shift only moves every value into overflow or underflow.
const ssMaxExp = 15

var scaleStateAbout = About{
	Summary: "store a recurrent state scaled by 2^-k (multiplied by 2^k after each read, 2^-k before each write)",
	Doc: `Rescales recurrent states by a power of two: after every read of the
state the graph multiplies by 2^k, before every write by 2^-k, so what is
stored is the state's value times 2^-k while every op between the read and
the write computes with the same values as before. The stored magnitude
stays a factor 2^k away from the saturation points that verify --ranges
reports (fp16's 65504; the Neural Engine's matmul output near 32752 in
third-party measurements, sbryngelson/ANEForge, see
/work/shared/docs/coreai-facts.md §0).

All state forms: a tensor input marked MutableBuffers.buffer_mutation with
its output (the multiply follows the argument, the other precedes
coreai.output), a !coreai.handle input (after each coreai.read_handle,
before each coreai.write_handle's value) and a plain input/output pair (so the
pass also works with promote-states off). Which states: the state
analysis' pairs under the pipeline-wide states settings (anefix passes),
as promote-states sees them: those named in exponents=, and with default=k
every other one but the key/value caches (which states.include-kv=true
adds).

The default exponent is 1 (stored = value / 2): the Neural Engine's matmul
output saturates near 32752, half of fp16's largest finite value, so a
stored state halved stays inside what a matmul can produce for every state
value fp16 can hold. A guess at a useful default, not a measurement on
hardware: set the exponent from the magnitude verify --ranges reports.

Numerics: exact, since multiplying by a power of two only changes the
exponent, except where a stored value falls below 2^-14·2^k (it becomes
subnormal or zero: precision is lost) or, with k < 0, above 65504·2^k (it
overflows). Measured by anefix verify on tiny arm A (graph/interp/compare's
TestScaleStateVerify, against the default pipeline without the pass,
teacher-forced, 4 streams × 24 positions): mean KL divergence 1.6e-8 nats
and same top-1 100 % for default=1, 8.7e-7 nats and 95/96 for default=4
(one near tie flips; every top-1 with a clear margin is kept), bit-identical
for -2. After one step the states, compared in the reference's units, are
within the subnormal rounding the exactness caveat names; over more steps
synth's long-memory gates read a rounded entry again and the ulp reaches
the other states. Against the input export (8 streams × 256 positions;
cmd/anefix TestNumericsTable), tiny arm A gives ieee mean KLD 1.3e-5 nats
without and 1.4e-5 with scale-state, same top-1 99.0 %; --numerics ane
7.6e-5 and 6.9e-5 nats, 98.0 and 97.9 %. Synth's states stay far from
saturation, so this shows the pass is neutral, not that it helps.

What a host sees changes: the stored state is the old one times 2^-k. The
rewrite's report and the bundle's anefix.json record every scaled state
("stateScales": graph, state, log2, form); anefix verify reads that record
from the candidate bundle and compares (and would feed) states in the
reference's units. Running the pass twice scales twice.`,
}

// scaleStateOptions are scale-state's options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type scaleStateOptions struct {
	Exponents []stateExponent
	Default   int
}

func (o *scaleStateOptions) declare(d *Decls) {
	Declare(d, &o.Exponents, Option[[]stateExponent]{Name: "exponents", Doc: "per-state exponents name=k (comma-separated; the state's input name): stored = value × 2^-k",
		Check: ssCheckExponents, Codec: ListCodec(ssParseExponent, stateExponent.String, ssSampleExponent)})
	Declare(d, &o.Default, Option[int]{Name: "default", Default: 1, Doc: "exponent for every other state but the key/value caches (the states settings pick them, as for promote-states); 0 leaves them alone", Values: intValues(-ssMaxExp, ssMaxExp)})
}

// stateExponent is one entry of exponents: state Name stored scaled by
// 2^-K.
type stateExponent struct {
	Name string
	K    int
}

// String is the entry as exponents takes it.
func (e stateExponent) String() string { return e.Name + "=" + strconv.Itoa(e.K) }

func ssParseExponent(s string) (stateExponent, error) {
	name, val, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	k, err := strconv.Atoi(strings.TrimSpace(val))
	if !ok || name == "" || err != nil {
		return stateExponent{}, fmt.Errorf("%q is not name=exponent (example: rec_state=4)", s)
	}
	return stateExponent{name, k}, nil
}

func ssCheckExponents(list []stateExponent) error {
	for _, e := range list {
		if e.K < -ssMaxExp || e.K > ssMaxExp {
			return fmt.Errorf("%s: exponent %d is outside -%d…%d", e.Name, e.K, ssMaxExp, ssMaxExp)
		}
	}
	return nil
}

func ssSampleExponent(r *rand.Rand) stateExponent {
	return stateExponent{[]string{"rec_state", "conv_state", "s.0"}[r.IntN(3)], r.IntN(2*ssMaxExp+1) - ssMaxExp}
}

func scaleState(ctx *Context, m *graph.Module, opts *scaleStateOptions) (*Change, error) {
	exps := map[string]int{} // the last entry of a name wins, as --set does
	for _, e := range opts.Exponents {
		exps[e.Name] = e.K
	}
	ch := &Change{}
	used := map[string]bool{}
	for _, g := range graph.EntryGraphs(m, graph.EntryNotPrivate) {
		for _, p := range ctx.States(g).Pairs {
			k, named := exps[p.Name]
			if !named {
				if p.Name == "" || !p.Selected(ctx.IncludeKV()) {
					continue
				}
				k = opts.Default
			}
			used[p.Name] = true
			if k == 0 {
				continue
			}
			arg := g.Body().Arg(p.In)
			form := p.Form.String()
			switch {
			case p.Form == graph.StateHandle:
				any, err := ssHandle(g, arg, k, ch)
				if err != nil {
					return nil, err
				}
				if !any {
					continue
				}
			case p.Out < 0:
				return nil, fmt.Errorf("graph @%s: state input %s has no output holding its new value; what to do: check the export's state outputs", g.Name(), p.Name)
			default:
				if p.Plain() {
					form = "pair"
				}
				if err := ssTensor(g, arg, p.Out, k, ch); err != nil {
					return nil, err
				}
			}
			ch.StateScales = append(ch.StateScales, record.StateScale{Graph: g.Name(), State: p.Name, Log2: k, Form: form})
			ch.Notes = append(ch.Notes, fmt.Sprintf("@%s state %s (%s form) stored × 2^%d", g.Name(), p.Name, form, -k))
		}
	}
	for _, e := range opts.Exponents { // in the order given: a stable message
		if name := e.Name; !used[name] {
			return nil, fmt.Errorf("option exponents: no entry graph has a state named %q (states: %s)", name, ssStateNames(ctx, m))
		}
	}
	return ch, nil
}

// ssStateNames lists the states of m's entry graphs, for messages.
func ssStateNames(ctx *Context, m *graph.Module) string {
	var names []string
	for _, g := range graph.EntryGraphs(m, graph.EntryNotPrivate) {
		for _, p := range ctx.States(g).Pairs {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ssMul builds c = 2^e (the element type of x's tensor type) and x·c,
// inserted with ins, and returns the product.
func ssMul(x *graph.Value, e int, loc graph.Loc, ins func(*graph.Operation), ch *Change) (*graph.Operation, error) {
	tt, ok := graph.AsTensor(x.Type())
	if !ok {
		return nil, fmt.Errorf("a state of type %s is not a tensor", x.Type())
	}
	ft, ok := tt.Elem.(*graph.FloatType)
	if !ok || graph.ElemBytes(ft) == 0 {
		return nil, fmt.Errorf("a state of element type %s is not a float the pass can scale", tt.Elem)
	}
	n := graph.ElemBytes(ft)
	bits := graph.FloatBits(math.Ldexp(1, e), ft.Name)
	raw := make([]byte, n)
	for i := 0; i < n; i++ {
		raw[i] = byte(bits >> (8 * i))
	}
	c := ops.ConstInProps(&graph.DenseElementsAttr{Type: graph.Tensor(ft), Raw: raw, Splat: true}, loc)
	mul := graph.NewOp("coreai.decomposable.broadcasting_mul", []*graph.Value{x, c.Result(0)}, []graph.Type{tt}, nil, loc)
	ins(c)
	ins(mul)
	ch.OpsAdded += 2
	return mul, nil
}

// ssTensor scales a tensor state: the argument after entry, output j
// before coreai.output.
func ssTensor(g *graph.Graph, arg *graph.Value, j, k int, ch *Change) error {
	body := g.Body()
	var last *graph.Operation
	ins := func(op *graph.Operation) {
		if last == nil {
			body.Prepend(op)
		} else {
			op.InsertAfter(last)
		}
		last = op
	}
	rd, err := ssMul(arg, k, g.Op.Loc, ins, ch)
	if err != nil {
		return fmt.Errorf("graph @%s: %v", g.Name(), err)
	}
	arg.ReplaceAllUsesWith(rd.Result(0))
	rd.SetOperand(0, arg)
	term := g.Terminator()
	if term == nil || j >= term.NumOperands() {
		return fmt.Errorf("graph @%s has no output %d", g.Name(), j)
	}
	v := term.Operand(j)
	wr, err := ssMul(v, -k, term.Loc, func(op *graph.Operation) { op.InsertBefore(term) }, ch)
	if err != nil {
		return fmt.Errorf("graph @%s: %v", g.Name(), err)
	}
	term.SetOperand(j, wr.Result(0))
	return nil
}

// ssHandle scales a handle state at each read_handle and write_handle.
func ssHandle(g *graph.Graph, h *graph.Value, k int, ch *Change) (bool, error) {
	var reads, writes []*graph.Operation
	for _, u := range h.Uses() {
		switch {
		case u.Op.Name == "coreai.read_handle" && u.Index == 0 && u.Op.NumResults() >= 1:
			reads = append(reads, u.Op)
		case u.Op.Name == "coreai.write_handle" && u.Index == 0 && u.Op.NumOperands() >= 2:
			writes = append(writes, u.Op)
		}
	}
	for _, rd := range reads {
		v := rd.Result(0)
		last := rd
		mul, err := ssMul(v, k, rd.Loc, func(op *graph.Operation) { op.InsertAfter(last); last = op }, ch)
		if err != nil {
			return false, fmt.Errorf("%s: %v", rd.DescribeInGraph(), err)
		}
		v.ReplaceAllUsesWith(mul.Result(0))
		mul.SetOperand(0, v)
	}
	for _, wr := range writes {
		mul, err := ssMul(wr.Operand(1), -k, wr.Loc, func(op *graph.Operation) { op.InsertBefore(wr) }, ch)
		if err != nil {
			return false, fmt.Errorf("%s: %v", wr.DescribeInGraph(), err)
		}
		wr.SetOperand(1, mul.Result(0))
	}
	if len(reads)+len(writes) == 0 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("@%s: a handle state has no read_handle or write_handle; nothing scaled", g.Name()))
		return false, nil
	}
	return true, nil
}
