package passes

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
)

var externalizeConstantAbout = About{
	Summary: "turn a large in-graph constant (default: the tied embedding/head table) into a graph input",
	Doc: `An experiment for the blocker the compiler never names (seed arm D): the
seed's single main holds its 248320×1024 tied embedding/head table as an
in-graph constant, where Apple's extend functions take the embedding table as
an input. This pass makes that experiment one flag: each selected
coreai.constant of an entry graph (public, not invoked) is removed and its
uses read a new graph input instead, appended after the existing inputs,
with the same type. The blob it held is then unreferenced (dce, later in
the pipeline, drops it from the file).

constant= chooses what to externalize: tied-head (the default) takes every
constant that feeds, through shape-only ops, both an embedding gather_nd's
table and a matmul/conv, the same test check's suspect.tied-head-constant
uses (IsTiedHeadTable, one home); any other value matches a constant whose
dense_resource key is that value or whose op id (the FX name) is that value.
Constants smaller than min-bytes are never taken (an op id such as
"embedding" also names the small axis constants of the same FX node).
name= sets the new input's coreai.name (default: the resource key, or
"const_<op id>" for an inline constant); with several matches the second
gets "_1" appended, and so on.

Constants inside invoked graphs (callees) are not externalized: threading a
new argument through every call site is not implemented, and the seed's
model is a single main. Such a match is an error naming the callee, and so
is a selector that matches nothing: the experiment never silently does
nothing.

Numerics: none when the caller feeds the input the constant's values. The
record (anefix.json) lists which input carries which constant (resource
key, op id, type), and anefix verify feeds the candidate's input the
values of that constant taken from the reference (the model the rewrite
read), so verify REF CAND compares like with like. A real caller must bind
the table at run time; whether Apple's runtime and compiler accept that is
what the experiment tests.`,
	Addresses: "seed arm D: untested candidate for the second blocker (the tied head as an in-graph constant of a single main)",
}

// externalizeConstantOptions are externalize-constant's options (declared
// in externalizeConstantAbout).
type externalizeConstantOptions struct {
	Constant string
	MinBytes int
	Name     string
}

func (o *externalizeConstantOptions) declare(d *Decls) {
	Declare(d, &o.Constant, Option[string]{Name: "constant", Default: "tied-head", Doc: "tied-head, or a dense_resource key, or an op id (FX name) of the constant to externalize", Check: ecCheckConstant})
	Declare(d, &o.MinBytes, Option[int]{Name: "min-bytes", Default: 4096, Doc: "never externalize a constant smaller than this many bytes", Check: ecCheckMin})
	Declare(d, &o.Name, Option[string]{Name: "name", Doc: "coreai.name of the new input (default: the resource key, or const_<op id>)"})
}

func ecCheckConstant(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("want tied-head, a resource key or an op id, got an empty value")
	}
	return nil
}

func ecCheckMin(n int) error {
	if n < 0 {
		return fmt.Errorf("want a byte count >= 0, got %d", n)
	}
	return nil
}

// tiedHeadShapeOnly are the ops a tied table may pass through on its way
// to the gather and the matmul (layout and dequantization only).
var tiedHeadShapeOnly = map[string]bool{
	"coreai.reshape": true, "coreai.transpose": true, "coreai.expand_dims": true,
	"coreai.shrink_dims": true, "coreai.cast": true, "coreai.lut_to_dense": true, "coreai.dequantize": true,
}

func tiedHeadBase(name string) string {
	return strings.Replace(name, "coreai.decomposable.", "coreai.", 1)
}

func tiedHeadMatmulLike(name string) bool {
	b := tiedHeadBase(name)
	return b == "coreai.broadcasting_batch_matmul" || b == "coreai.conv2d" || strings.HasSuffix(b, "matmul")
}

// IsTiedHeadTable reports whether op is a coreai.constant that feeds,
// through shape-only ops, both an embedding gather_nd's table (operand 0)
// and a matmul/conv: a tied embedding/LM head held in the graph. It is
// the one definition: passes/ane's suspect.tied-head-constant and
// externalize-constant's default both ask it.
func IsTiedHeadTable(op *graph.Operation) bool {
	if op.Name != "coreai.constant" || op.NumResults() != 1 {
		return false
	}
	gather, mm := false, false
	seen := map[*graph.Value]bool{}
	var walk func(v *graph.Value, depth int)
	walk = func(v *graph.Value, depth int) {
		if seen[v] || depth > 16 {
			return
		}
		seen[v] = true
		for _, u := range v.Uses() {
			switch b := tiedHeadBase(u.Op.Name); {
			case b == "coreai.gather_nd" && u.Index == 0:
				gather = true
			case tiedHeadMatmulLike(u.Op.Name):
				mm = true
			case tiedHeadShapeOnly[b]:
				for _, r := range u.Op.Results() {
					walk(r, depth+1)
				}
			}
		}
	}
	walk(op.Result(0), 0)
	return gather && mm
}

// ecSize is the constant's storage size in bytes (its declared type).
func ecSize(op *graph.Operation) int64 {
	tt, ok := graph.AsTensor(op.Result(0).Type())
	if !ok || !tt.IsStatic() {
		return 0
	}
	return ecBytes(tt)
}

// ecBytes is a static tensor's byte size, saturated: a size past int64 is
// larger than any threshold.
func ecBytes(tt *graph.TensorType) int64 {
	n, err := tt.ByteSize()
	if err != nil {
		return math.MaxInt64
	}
	return n
}

func ecResource(op *graph.Operation) string {
	if a, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok {
		return a.Key
	}
	return ""
}

// ecMatches reports whether constant op is selected by sel.
func ecMatches(op *graph.Operation, sel string) bool {
	if op.Name != "coreai.constant" || op.NumResults() != 1 {
		return false
	}
	if sel == "tied-head" {
		return IsTiedHeadTable(op)
	}
	return ecResource(op) == sel || op.OpID() == sel
}

func runExternalizeConstant(m *graph.Module, opts *externalizeConstantOptions) (*Change, error) {
	sel, minBytes, name := strings.TrimSpace(opts.Constant), int64(opts.MinBytes), opts.Name
	entries := graph.EntryGraphs(m, graph.EntryNotPrivate)
	isEntry := map[string]bool{} // by name: Graphs() makes new views each call
	for _, g := range entries {
		isEntry[g.Name()] = true
	}
	// Callees first: a match there is an error, found before anything changes.
	var small []string
	for _, g := range m.Graphs() {
		if isEntry[g.Name()] || g.Body() == nil {
			continue
		}
		var bad *graph.Operation
		g.Op.Walk(func(op *graph.Operation) bool {
			if bad == nil && ecMatches(op, sel) && ecSize(op) >= minBytes {
				bad = op
			}
			return bad == nil
		})
		if bad != nil {
			return nil, fmt.Errorf("constant %s (%s) sits in @%s, which is not an entry graph: externalize-constant adds inputs to entry graphs only (threading an argument through the calls is not implemented); what to do: name an entry graph's constant with --set externalize-constant.constant=<resource key or op id>",
				bad.DescribeInGraph(), bad.Result(0).Type(), g.Name())
		}
	}
	ch := &Change{}
	used := map[string]bool{}
	for _, g := range entries {
		for _, p := range g.Inputs() {
			used[p.Name] = true
		}
		var found []*graph.Operation
		g.Op.Walk(func(op *graph.Operation) bool {
			if !ecMatches(op, sel) {
				return true
			}
			if ecSize(op) < minBytes {
				small = append(small, fmt.Sprintf("%s (%d bytes)", op.DescribeInGraph(), ecSize(op)))
				return true
			}
			found = append(found, op)
			return true
		})
		// Refuse before changing anything: a failed pass leaves no half-rewritten graph.
		for _, op := range found {
			if op.Block() != g.Body() {
				return nil, fmt.Errorf("constant %s sits in a nested region of @%s; only constants of the graph's body can become inputs", op.DescribeInGraph(), g.Name())
			}
			if tt, ok := graph.AsTensor(op.Result(0).Type()); !ok || !tt.IsStatic() {
				return nil, fmt.Errorf("constant %s has type %s; only a static tensor can become a graph input", op.DescribeInGraph(), op.Result(0).Type())
			}
		}
		for _, op := range found {
			tt, _ := graph.AsTensor(op.Result(0).Type())
			in := ecInputName(op, name, used)
			used[in] = true
			ref := ref(g, op)
			res := ecResource(op)
			typ := op.Result(0).Type()
			arg := g.AddInput(typ, graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str(in)}), op.Loc)
			op.Result(0).ReplaceAllUsesWith(arg)
			if err := op.Erase(); err != nil {
				return nil, fmt.Errorf("removing constant %s: %v", op.DescribeInGraph(), err)
			}
			ch.OpsRemoved++
			ch.ConstantInputs = append(ch.ConstantInputs, record.ConstantInput{Graph: g.Name(), Input: in, Index: len(g.Inputs()) - 1,
				OpID: ref.OpID, OpName: ref.OpName, Source: ref.Source, Resource: res, Type: typ.String(), Shape: append([]int64(nil), tt.Shape...), DType: tt.Elem.String(), Bytes: ecBytes(tt)})
			what := "constant " + ref.OpID
			if res != "" {
				what = "dense_resource " + res
			}
			ch.IOChanges = append(ch.IOChanges, record.IOChange{Graph: g.Name(), Port: in, Before: "", After: typ.String(),
				Why: fmt.Sprintf("new input carrying %s (was an in-graph constant); feed it the constant's values", what)})
		}
	}
	if len(ch.ConstantInputs) == 0 {
		sort.Strings(small)
		msg := fmt.Sprintf("no constant of an entry graph matches constant=%s", sel)
		if sel == "tied-head" {
			msg = "no tied embedding/head table in an entry graph (a constant feeding both an embedding gather_nd and a matmul/conv)"
		}
		if len(small) > 0 {
			msg += fmt.Sprintf("; smaller than min-bytes=%d: %s", minBytes, strings.Join(small, ", "))
		}
		return nil, fmt.Errorf("%s; what to do: list the constants with anefix inspect and name one with --set externalize-constant.constant=<resource key or op id>, or lower externalize-constant.min-bytes", msg)
	}
	return ch, nil
}

// ecInputName picks the new input's name: the option, else the resource
// key, else const_<op id>; made unique among the graph's inputs.
func ecInputName(op *graph.Operation, opt string, used map[string]bool) string {
	base := opt
	if base == "" {
		base = ecResource(op)
	}
	if base == "" {
		id := op.OpID()
		if id == "" {
			id = "constant"
		}
		base = "const_" + id
	}
	n := base
	for i := 1; used[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	return n
}
