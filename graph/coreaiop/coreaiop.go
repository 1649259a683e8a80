// Package coreaiop is anefix's one table of what it knows about each coreai
// op: what each operand is (data, a parameter, indices, compressed storage,
// a state handle), how the result's element type is decided, which regions
// the op has and which values in them share a type, whether the op was seen
// in a graph that compiled for the Neural Engine, and the public source each
// fact was read in. strip-fp32-casts (which f32 values it may retype), ane
// check (parameter and storage slots, known ops, data-movement ops) and
// fold-io-unsqueeze (index operands) read it; nothing else keeps a list of
// op names for these questions.
//
// The ops are those apple/coreai-torch can emit (its lowerings call them in
// coreai_torch/_aten_to_core.py, _custom_to_core.py and _utils.py; its tests
// print them), plus a few older names anefix's earlier lists accepted
// (Torch false). Facts no public source shows are marked Guess.
package coreaiop

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Role is what one operand of an op is.
type Role uint8

const (
	// None: no operand at that position.
	None Role = iota
	// Data is tensor data; a FollowsData result takes its element type, and
	// all Data operands of an op share one element type.
	Data
	// Param is an integer or i1 setting held in a tensor: axes, a shape, a
	// permutation, begin/end/stride, sizes, strides, dilations, groups, flags.
	Param
	// FloatParam is a float setting whose element type does not follow the
	// data (interpolate's scale and offset, which coreai-torch builds as
	// float32 whatever the input's type).
	FloatParam
	// Scalar is a scalar of the data's element type that sets a value (pad's
	// fill value): it changes type with the data, but it is not data the op
	// moves.
	Scalar
	// Index holds integer indices into the data (gather/scatter indices).
	Index
	// Cond is an i1 condition (if's flag, where's mask, condition's flag).
	Cond
	// Storage holds compressed weights in their storage type, or the scales
	// and offsets that turn them into a compute type (lut_to_dense,
	// blockwise_shift_scale, dequantize).
	Storage
	// Handle is a state handle (!coreai.handle<…>); Token orders state
	// accesses (!coreai.token).
	Handle
	Token
)

var roleNames = [...]string{"none", "data", "param", "float-param", "scalar", "index", "cond", "storage", "handle", "token"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "?"
}

// Setting reports whether an operand in role r configures the op rather than
// carrying the data it computes on: the slots ane check's element-type and
// rank rules skip.
func (r Role) Setting() bool {
	return r == Param || r == FloatParam || r == Scalar || r == Index || r == Cond
}

// Result says how an op's result element type is decided.
type Result uint8

const (
	// NoResult: the op returns nothing (a terminator) or only tokens.
	NoResult Result = iota
	// FollowsData: the element type of the Data operands (an i1 or integer
	// data operand gives an i1 or integer result).
	FollowsData
	// Integer: a fixed integer type set by the op (Op.resultElem).
	Integer
	// Bool: i1 (comparisons).
	Bool
	// SetByOp: chosen by the op itself: cast's target, a constant's value,
	// quantize's storage type, the compute type of a dequantizing op (its
	// float Storage operands: the scale), a call's callee.
	SetByOp
	// Complex: complex<T> of the Data operands' T.
	Complex
	// PartOfComplex: T of the complex<T> data operand.
	PartOfComplex
	// FromRegions: the values the op's regions yield (if, while).
	FromRegions
)

var resultNames = [...]string{"none", "follows data", "integer", "bool", "set by op", "complex of data", "part of complex", "from regions"}

func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "?"
}

// Regions names the region structure of an op.
type Regions uint8

const (
	// NoRegions: the op has no region.
	NoRegions Regions = iota
	// IfElse: two regions (then, else) without arguments, each ending in a
	// coreai.yield of the op's results.
	IfElse
	// WhileLoop: a condition region whose arguments are the carried values,
	// ending in coreai.condition(flag, carried…), and a body region taking
	// the carried values and ending in coreai.yield of their next values;
	// the op's results are the carried values at exit.
	WhileLoop
	// Combiner: one region taking (old, new) scalars of the data's element
	// type and yielding the combined scalar (scatter_nd).
	Combiner
)

// Op is one row of the table.
type Op struct {
	// Name is the op's name without "coreai.decomposable.": "coreai.argmax".
	Name string
	// Decomposable: coreai-torch prints it as "coreai.decomposable.<name>"
	// (the broadcasting_* ops); both spellings name this row.
	Decomposable bool
	// Operands are the roles of the first operands; Rest the role of the
	// operands between them and tail (variadic ops: concat's inputs, a
	// call's arguments); tail the roles of the last operands when there is
	// at least one Rest operand before them (quantize's axis comes last in
	// its four- and five-operand forms).
	Operands []Role
	Rest     Role
	tail     []Role
	Result   Result
	// resultElem is the element type an Integer result has ("ui32").
	resultElem string
	Regions    Regions
	// Terminator: the op ends a region (output, yield, condition).
	Terminator bool
	// Call: the op calls a graph (coreai.invoke); its operands and results
	// follow the callee's signature.
	Call bool
	// Moves: the op only moves, cuts or retypes its data (operand 0), so a
	// value keeps its identity through it (ane check follows buffers
	// through these).
	Moves bool
	// fixed, when not empty, says why the op's f32 values cannot become f16
	// although the op is known (strip-fp32-casts leaves an island holding
	// it in f32 and says this).
	fixed string
	// Seen: the op is in a graph that compiled for the Neural Engine
	// (Apple's iOS builders, arm E 19/19, or the seed's graphs;
	// testdata/mlir/coreai/README.md): ane check's known ops.
	Seen bool
	// Torch: apple/coreai-torch emits it (false for names only anefix's
	// earlier lists had).
	Torch bool
	// Source is the public file the facts were read in.
	Source string
	// Guess says which facts no public source shows ("" when none).
	Guess string
	// Example is a signature coreai-torch prints for the op (the op zoo,
	// graph/coreaiop/zoo, builds modules from it); nil when no public
	// source shows one.
	Example *Example
}

// Example is one instance of an op's signature. In every type, F stands for
// the float element type the op computes in (f32 or f16).
type Example struct {
	Operands []Arg
	Results  []string
	// Props are inherent attributes (properties) in generic form, the enums
	// coreai-torch prints before the colon (`mode = <constant>` is `mode =
	// #coreai.mode<constant>`, graph/mlirtext's spelling); Attrs are
	// discardable attributes (`interpolation_mode = …`); "" for none.
	Props, Attrs string
}

// Arg is one example operand: a graph input when Value is "", else a
// coreai.constant holding dense<Value>.
type Arg struct {
	Type, Value string
}

// roleOf returns the role of operand i of an op with n operands.
func (o *Op) roleOf(i, n int) Role {
	if i < 0 || i >= n {
		return None
	}
	if k := n - len(o.tail); len(o.tail) > 0 && i >= k && k > len(o.Operands) {
		return o.tail[i-k]
	}
	if i < len(o.Operands) {
		return o.Operands[i]
	}
	return o.Rest
}

// CanRetype reports whether the op's f32 values may become f16 (the op is
// type-polymorphic in its float data) and, when not, why.
func (o *Op) CanRetype() (bool, string) {
	if o.fixed != "" {
		return false, o.fixed
	}
	return true, ""
}

// Base strips the "decomposable." infix: "coreai.decomposable.broadcasting_add"
// is "coreai.broadcasting_add".
func Base(name string) string {
	return strings.Replace(name, "coreai.decomposable.", "coreai.", 1)
}

// Lookup finds the row of an op name (either spelling); nil when the table
// has none. A coreai name starting with broadcasting_ or reduce_ that has no
// row gets the row of an elementwise binary op or a reduction (a guess kept
// from anefix's earlier lists, which accepted every such name).
func Lookup(name string) *Op {
	b := Base(name)
	if o := byName[b]; o != nil {
		return o
	}
	switch rest, ok := strings.CutPrefix(b, "coreai."); {
	case !ok:
		return nil
	case strings.HasPrefix(rest, "broadcasting_"):
		return &Op{Name: b, Decomposable: true, Rest: Data, Result: FollowsData, Seen: true,
			Guess: "no row for this name: taken as an elementwise binary op like every broadcasting_* op"}
	case strings.HasPrefix(rest, "reduce_"):
		return &Op{Name: b, Operands: []Role{Data, Param}, Result: FollowsData,
			Guess: "no row for this name: taken as a reduction like every reduce_* op"}
	}
	return nil
}

// OperandRole is the role of operand i of op, None when the table does not
// know the op.
func OperandRole(op *graph.Operation, i int) Role {
	o := Lookup(op.Name)
	if o == nil {
		return None
	}
	return o.roleOf(i, op.NumOperands())
}

// All returns the table's rows sorted by name.
func All() []*Op {
	out := make([]*Op, 0, len(byName))
	for _, o := range byName {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Ties returns the groups of op's values that must keep one element type
// because of its regions: a region op's results with what its regions yield,
// a loop's carried values with its regions' arguments, a combiner's
// arguments with the data it combines. A pass that retypes one value of a
// group must retype them all (graph.IslandOptions.Ties).
func Ties(op *graph.Operation) [][]*graph.Value {
	o := Lookup(op.Name)
	if o == nil || o.Regions == NoRegions {
		return nil
	}
	term := func(ri int) *graph.Operation {
		if ri >= len(op.Regions) {
			return nil
		}
		r := op.Regions[ri]
		if len(r.Blocks) == 0 {
			return nil
		}
		return r.Blocks[len(r.Blocks)-1].Last()
	}
	arg := func(ri, i int) *graph.Value {
		if ri >= len(op.Regions) || len(op.Regions[ri].Blocks) == 0 {
			return nil
		}
		b := op.Regions[ri].Entry()
		if i < len(b.Args()) {
			return b.Arg(i)
		}
		return nil
	}
	operand := func(t *graph.Operation, i int) *graph.Value {
		if t == nil || i >= t.NumOperands() {
			return nil
		}
		return t.Operand(i)
	}
	var out [][]*graph.Value
	add := func(vs ...*graph.Value) {
		var g []*graph.Value
		for _, v := range vs {
			if v != nil {
				g = append(g, v)
			}
		}
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	switch o.Regions {
	case IfElse:
		for i, r := range op.Results() {
			vs := []*graph.Value{r}
			for ri := range op.Regions {
				vs = append(vs, operand(term(ri), i))
			}
			add(vs...)
		}
	case WhileLoop:
		// Carried value i: the init operand, the condition region's
		// argument, what condition forwards (after its flag), the body's
		// argument, what the body yields and the result. GUESS: the form
		// of coreai.while beyond its op names is not public
		// (testdata/mlir/coreai/while.mlir); scf.while's rules are used.
		cond, body := term(0), term(1)
		for i := 0; i < op.NumOperands() || i < op.NumResults(); i++ {
			var res *graph.Value
			if i < op.NumResults() {
				res = op.Result(i)
			}
			add(operand(op, i), arg(0, i), operand(cond, i+1), arg(1, i), operand(body, i), res)
		}
	case Combiner:
		// The combiner's (old, new) scalars and what it yields share the
		// data's element type (with the op's result). GUESS (shape only):
		// the arguments are rank-0 tensors of the element type.
		if op.NumOperands() > 0 && op.NumResults() > 0 {
			add(op.Operand(0), op.Result(0), arg(0, 0), arg(0, 1), operand(term(0), 0))
		}
	}
	return out
}

// MoveOps lists the Moves rows' names (ane check's data-movement ops).
func MoveOps() map[string]bool {
	out := map[string]bool{}
	for _, o := range byName {
		if o.Moves {
			out[o.Name] = true
		}
	}
	return out
}

var byName = map[string]*Op{}

func init() {
	for _, o := range table {
		if byName[o.Name] != nil {
			panic("coreaiop: row " + o.Name + " repeated")
		}
		byName[o.Name] = o
	}
}

// Mismatch checks op's types against its row: Data (and Scalar) operands
// and a FollowsData result share one element type, a Bool result is i1, an
// Integer result has resultElem, and the values Ties groups share one
// element type. It returns what disagrees, or "" (also for ops the table
// does not know). A pass that retypes values can run it on what it wrote.
func Mismatch(op *graph.Operation) string {
	o := Lookup(op.Name)
	if o == nil {
		return ""
	}
	elem := func(v *graph.Value) string {
		if v == nil {
			return ""
		}
		t := v.Type()
		if _, ok := t.(*graph.TensorType); !ok {
			return "" // handles, tokens: not data
		}
		return graph.ElementType(t).String()
	}
	var data string
	for i, v := range op.Operands() {
		r := o.roleOf(i, op.NumOperands())
		if r != Data && r != Scalar {
			continue
		}
		e := elem(v)
		if e == "" {
			continue
		}
		if data == "" {
			data = e
		} else if e != data && o.Result != SetByOp && !o.Terminator && !o.Call && o.Regions != WhileLoop {
			return fmt.Sprintf("%s: data operand %d is %s, an earlier one %s", op.Name, i, e, data)
		}
	}
	for i, r := range op.Results() {
		e := elem(r)
		if e == "" {
			continue
		}
		switch o.Result {
		case FollowsData:
			if data != "" && e != data {
				return fmt.Sprintf("%s: result %d is %s, its data %s", op.Name, i, e, data)
			}
		case Bool:
			if e != "i1" {
				return fmt.Sprintf("%s: result %d is %s, not i1", op.Name, i, e)
			}
		case Integer:
			if e != o.resultElem {
				return fmt.Sprintf("%s: result %d is %s, not %s", op.Name, i, e, o.resultElem)
			}
		}
	}
	for _, g := range Ties(op) {
		first := ""
		for _, v := range g {
			e := elem(v)
			if e == "" {
				continue
			}
			if first == "" {
				first = e
			} else if e != first {
				return fmt.Sprintf("%s: values its regions tie have element types %s and %s", op.Name, first, e)
			}
		}
	}
	return ""
}
