package mlirtext

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph"
)

// The printer never writes text the parser refuses for nesting (issue 28:
// bytecode with 800 nested regions or 1,500 nested arrays printed fine and
// was then refused, "nesting deeper than 1000 levels"). The limit is the
// parser's (maxDepth, graph.MaxNesting), and so is the judgement: a cheap
// upper bound of the nesting the parser would meet (nestBound) clears
// every real model; only a module above it is printed once more, without
// its resources, and handed to the parser itself, whose answer is final.
// The bytecode reader and writer nest regions and attributes up to twice
// the limit (their stack guard), so deep bytecode still converts to
// bytecode; only its text form is refused, with the op at fault.

// errTooDeep marks a module whose text the parser would refuse for nesting.
var errTooDeep = errors.New("too deep for MLIR text")

// checkNesting returns an error naming the deepest op when m's text in form
// would nest deeper than the parser reads.
func checkNesting(m *graph.Module, form Form) error {
	nb := newNestBound()
	deepest, at := nb.module(m)
	if deepest <= maxDepth {
		return nil
	}
	var b bytes.Buffer
	if err := write(&b, m, form, false); err != nil {
		return err
	}
	_, _, err := Parse("printed.mlir", b.String())
	if err == nil {
		return nil
	}
	what := "the module"
	if at != nil {
		what = at.DescribeInGraph()
	}
	if !strings.Contains(err.Error(), "nesting deeper") {
		// Not nesting: still text the reader refuses, so not written.
		return fmt.Errorf("the MLIR text printed for this module does not read back (%v); write bytecode (.mlirb) instead", err)
	}
	return fmt.Errorf("%w: %s is nested in %d regions and its attributes, types and locations nest %d levels, more than the %d levels anefix's MLIR text reader accepts; write bytecode (.mlirb) instead",
		errTooDeep, what, nb.regionsAt, nb.valuesAt, maxDepth)
}

// nestBound bounds the parser's nesting (op, region, and each level of an
// attribute, type or location) from above: per region level an op and its
// region, and twice the depth of the op's deepest value (an attribute and
// its type, a dictionary and its entry, a tensor and its element type each
// count), plus slack.
//
// Values are trees that may share subtrees. A value whose measure took
// more than memoCost steps is remembered, so shared values are measured
// once and a re-measure costs at most memoCost; the small values met once
// (an op's own dictionary and location) take no memory.
type nestBound struct {
	memo map[any]int
	// regionsAt and valuesAt describe the op that gave the largest bound.
	regionsAt, valuesAt int
}

const (
	nestSlack = 8
	memoCost  = 16
)

func newNestBound() *nestBound { return &nestBound{memo: map[any]int{}} }

// module returns the bound for m's text and the op that gives it.
func (nb *nestBound) module(m *graph.Module) (int, *graph.Operation) {
	best, at := 0, (*graph.Operation)(nil)
	consider := func(op *graph.Operation, regions, values int) {
		if b := 2*regions + 1 + 2*values + nestSlack; b > best {
			best, at, nb.regionsAt, nb.valuesAt = b, op, regions, values
		}
	}
	var walk func(op *graph.Operation, regions int)
	walk = func(op *graph.Operation, regions int) {
		consider(op, regions, nb.op(op))
		for _, r := range op.Regions {
			for _, blk := range r.Blocks {
				for _, a := range blk.Args() {
					consider(op, regions+1, max(nb.typ(a.Type()), nb.loc(a.Loc)))
				}
				for o := blk.First(); o != nil; o = o.Next() {
					walk(o, regions+1)
				}
			}
		}
	}
	walk(m.Op, 0)
	return best, at
}

// op is the depth of op's deepest value: attributes, properties, the types
// of its signature (one function type) and its location.
func (nb *nestBound) op(op *graph.Operation) int {
	d := nb.loc(op.Loc)
	if op.Attrs != nil {
		d = max(d, nb.attr(op.Attrs))
	}
	d = max(d, nb.attr(op.Props))
	for _, v := range op.Operands() {
		if v != nil {
			d = max(d, 1+nb.typ(v.Type()))
		}
	}
	for _, v := range op.Results() {
		d = max(d, 1+nb.typ(v.Type()))
	}
	return d
}

func (nb *nestBound) attr(a graph.Attr) int { d, _ := nb.measure(a); return d }
func (nb *nestBound) typ(t graph.Type) int  { d, _ := nb.measure(t); return d }
func (nb *nestBound) loc(l graph.Loc) int   { d, _ := nb.measure(l); return d }

// measure returns the depth of an attribute, type or location v and the
// steps it took.
func (nb *nestBound) measure(v any) (depth, cost int) {
	switch v.(type) {
	case nil, *graph.BoolAttr, *graph.UnitAttr, *graph.SymbolRefAttr,
		*graph.IntegerType, *graph.FloatType, *graph.IndexType, *graph.NoneType,
		*graph.FileLoc, graph.UnknownLoc:
		if v == nil {
			return 0, 1
		}
		return 1, 1
	}
	if d, ok := nb.memo[v]; ok {
		return d, 1
	}
	depth, cost = 1, 1
	child := func(x any, extra int) {
		if x == nil {
			return
		}
		d, c := nb.measure(x)
		depth, cost = max(depth, 1+extra+d), cost+c
	}
	switch v := v.(type) {
	// Attributes.
	case *graph.ArrayAttr:
		if _, _, vals, ok := v.Packed(); ok {
			// Scalars of one type (graph.ArrayBuilder): each measures as
			// the first does.
			d, c := nb.measure(v.At(0))
			depth, cost = max(depth, 1+d), cost+c*len(vals)
			break
		}
		for _, e := range v.Elems {
			child(e, 0)
		}
	case *graph.DictAttr:
		for _, e := range v.Entries {
			child(e.Value, 0)
		}
	case *graph.IntegerAttr:
		child(v.Type, 0)
	case *graph.FloatAttr:
		child(v.Type, 0)
	case *graph.StringAttr:
		if v.Type != nil {
			child(v.Type, 0)
		}
	case *graph.TypeAttr:
		child(v.Type, 0)
	case *graph.DenseElementsAttr:
		child(graph.Type(v.Type), 1+len(v.Type.Shape)) // the literal's levels
	case *graph.DenseResourceAttr:
		child(graph.Type(v.Type), 0)
	case *graph.DenseArrayAttr:
		child(v.Elem, 0)
	case *graph.LocAttr:
		child(v.Loc, 0)
	case *graph.OpaqueAttr:
		depth += 2 * bracketDepth(v.Text)
		cost += len(v.Text) / 16
	case *graph.RawAttr:
		depth += 2 * bracketDepth(v.Text)
		cost += len(v.Text) / 16
	// Types.
	case *graph.TensorType:
		child(v.Elem, 0)
		if v.Encoding != nil {
			child(v.Encoding, 0)
		}
	case *graph.FunctionType:
		for _, x := range v.Inputs {
			child(x, 1) // inside its parentheses
		}
		for _, x := range v.Results {
			child(x, 1)
		}
	case *graph.OpaqueType:
		depth += 2 * bracketDepth(v.Text)
		cost += len(v.Text) / 16
	case *graph.RawType:
		depth += 2 * bracketDepth(v.Text)
		cost += len(v.Text) / 16
	// Locations.
	case *graph.NameLoc:
		if v.Child != nil {
			child(v.Child, 0)
		}
	case *graph.FusedLoc:
		for _, c := range v.Locs {
			child(c, 1)
		}
		if v.Metadata != nil {
			child(v.Metadata, 1)
		}
	case *graph.CallSiteLoc:
		child(v.Callee, 0)
		child(v.Caller, 0)
	case *graph.DialectLoc:
		child(v.Attr, 0)
	}
	if cost > memoCost {
		nb.memo[v] = depth
		cost = 1
	}
	return depth, cost
}

// bracketDepth is the deepest nesting of ( [ { < in s outside string
// literals: what a verbatim spelling can make the parser descend.
func bracketDepth(s string) int {
	depth, deepest, inStr := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
			deepest = max(deepest, depth)
		case c == ')' || c == ']' || c == '}' || c == '>':
			depth--
		}
	}
	return deepest
}
