// Package ops builds the small pieces of IR several passes create
// (constants, reshapes, the location of a new op) and answers the type
// questions they share, so that each pass's file reads alone instead of
// borrowing another pass's helpers.
package ops

import (
	"encoding/binary"

	"github.com/anefix/anefix/graph"
)

// StaticTensor returns t as a ranked static tensor type, or nil.
func StaticTensor(t graph.Type) *graph.TensorType {
	tt, ok := t.(*graph.TensorType)
	if !ok || !tt.IsStatic() {
		return nil
	}
	return tt
}

// RankOnly reports whether going from type a to type b changes the rank
// and only inserts or removes unit dimensions: same element type and
// encoding, same non-unit dimensions in the same order. Such a change moves
// no element (row-major order is unchanged), so folding it into a port type
// changes no value. A same-rank reshape that only moves unit dims
// ([256,1,32] → [1,256,32], as Apple's ANE-clean exports have at inputs)
// is not a rank change and is left alone.
func RankOnly(a, b graph.Type) bool {
	ta, tb := StaticTensor(a), StaticTensor(b)
	if ta == nil || tb == nil || !graph.TypeEqual(ta.Elem, tb.Elem) || len(ta.Shape) == len(tb.Shape) {
		return false
	}
	if (ta.Encoding == nil) != (tb.Encoding == nil) || (ta.Encoding != nil && ta.Encoding.String() != tb.Encoding.String()) {
		return false
	}
	sa, sb := squeezed(ta.Shape), squeezed(tb.Shape)
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

func squeezed(s []int64) []int64 {
	var out []int64
	for _, d := range s {
		if d != 1 {
			out = append(out, d)
		}
	}
	return out
}

// constStyle finds how the module's coreai.constant ops hold their value
// (attribute name, and whether in properties), so new constants look like
// the exporter's. The default is a discardable "value" attribute, which is
// what coreai-torch's generic form carries for the unregistered op.
//
// It stops at the first constant that says (the ops before it in walk
// order are all it visits); a pass that builds many constants asks once and
// keeps the answer (Style), since a module without such a constant is
// walked whole.
func constStyle(m *graph.Module) (name string, inProps bool) {
	s := StyleOf(m)
	return s.Name, s.InProps
}

// Style is how a module's constants hold their value (constStyle).
type Style struct {
	Name    string // the value attribute's name
	InProps bool   // in the op's properties, not its attributes
}

// StyleOf is constStyle's answer as a Style.
func StyleOf(m *graph.Module) Style {
	if s, ok := firstConstStyle(m.Op); ok {
		return s
	}
	return Style{Name: "value"}
}

// firstConstStyle is the style of the first coreai.constant nested in op,
// in walk order, that holds exactly one entry in its properties or, failing
// that, its attributes.
func firstConstStyle(op *graph.Operation) (Style, bool) {
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for o := b.First(); o != nil; o = o.Next() {
				if o.Name == "coreai.constant" {
					if d, ok := o.Props.(*graph.DictAttr); ok && d.Len() == 1 {
						return Style{Name: d.Entries[0].Name, InProps: true}, true
					} else if o.Attrs.Len() == 1 {
						return Style{Name: o.Attrs.Entries[0].Name}, true
					}
					continue // a constant's regions are not searched
				}
				if s, ok := firstConstStyle(o); ok {
					return s, true
				}
			}
		}
	}
	return Style{}, false
}

// Const builds a detached coreai.constant holding a, styled as the
// module's existing constants (constStyle).
func Const(m *graph.Module, a *graph.DenseElementsAttr, loc graph.Loc) *graph.Operation {
	return StyleOf(m).Const(a, loc)
}

// constValue is Const for any value attribute of type t (a dense_resource
// among them).
func constValue(m *graph.Module, a graph.Attr, t *graph.TensorType, loc graph.Loc) *graph.Operation {
	return StyleOf(m).ConstValue(a, t, loc)
}

// Const builds a detached coreai.constant holding a in style s.
func (s Style) Const(a *graph.DenseElementsAttr, loc graph.Loc) *graph.Operation {
	return s.ConstValue(a, a.Type, loc)
}

// constValue is Style.Const for any value attribute of type t.
func (s Style) ConstValue(a graph.Attr, t *graph.TensorType, loc graph.Loc) *graph.Operation {
	op := graph.NewOp("coreai.constant", nil, []graph.Type{t}, nil, loc)
	if s.InProps {
		op.Props = graph.Dict(graph.NamedAttr{Name: s.Name, Value: a})
	} else {
		op.Attrs = graph.Dict(graph.NamedAttr{Name: s.Name, Value: a})
	}
	return op
}

// IntDense builds a dense integer attribute of 32-bit elements (si32 or
// ui32, the types coreai uses for axes, shapes and slice bounds).
func IntDense(elem *graph.IntegerType, shape []int64, vals []int64) *graph.DenseElementsAttr {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	}
	return &graph.DenseElementsAttr{Type: graph.Tensor(elem, shape...), Raw: raw}
}

// Reshape builds (detached) the shape constant and the coreai.reshape of x
// to type to: [const, reshape].
func Reshape(m *graph.Module, x *graph.Value, to *graph.TensorType, loc graph.Loc) []*graph.Operation {
	c := Const(m, IntDense(graph.UI32, []int64{int64(len(to.Shape))}, to.Shape), loc)
	r := graph.NewOp("coreai.reshape", []*graph.Value{x, c.Result(0)}, []graph.Type{to}, nil, loc)
	return []*graph.Operation{c, r}
}

// PassLoc is the location of an op a pass creates: a name location naming
// the pass around the location of the op it stands in for, so reports and
// compiler messages still lead back to the source line.
func PassLoc(pass string, orig graph.Loc) graph.Loc {
	if orig == nil {
		orig = graph.Unknown
	}
	return &graph.NameLoc{Name: "anefix." + pass, Child: orig}
}

// ConstInProps builds a detached coreai.constant holding a in a "value"
// property, whatever the module's other constants do: the form the
// reduction and state-scaling rewrites emit (fp16-safe-reductions,
// scale-state).
func ConstInProps(a *graph.DenseElementsAttr, loc graph.Loc) *graph.Operation {
	op := graph.NewOp("coreai.constant", nil, []graph.Type{a.Type}, nil, loc)
	op.Props = graph.Dict(graph.NamedAttr{Name: "value", Value: a})
	return op
}
