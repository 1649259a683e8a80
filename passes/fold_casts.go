package passes

import (
	"github.com/anefix/anefix/graph"
)

var foldCastsAbout = About{
	Summary: "remove identity casts and cast pairs that cancel exactly",
	Doc: `Removes a coreai.cast whose result type equals its operand type, and
folds cast(cast(x : A → B) : B → A) to x when A → B is exact: every A value
is a B value, so converting back returns x bit for bit. Exact widenings:
f16 → f32, f16 → f64, bf16 → f32, bf16 → f64, f32 → f64, siN → siM and
uiN → uiM with M ≥ N, uiN → siM with M > N.

A narrowing round trip such as f32 → f16 → f32 is NOT folded: it rounds
the value to f16, and removing it would change what the graph computes.
Neither is a chain to a third type.

The first cast of a folded pair is removed too once nothing reads it.

Numerics: none; only exact round trips are removed.

When not to use it: it is always safe; switch it off only to see the casts
an exporter (or strip-fp32-casts with islands=...) left in place.`,
}

// exactWidening reports whether every value of element type a is exactly a
// value of element type b.
func exactWidening(a, b graph.Type) bool {
	if fa, ok := a.(*graph.FloatType); ok {
		fb, ok := b.(*graph.FloatType)
		if !ok {
			return false
		}
		switch fa.Name + ">" + fb.Name {
		case "f16>f32", "f16>f64", "bf16>f32", "bf16>f64", "f32>f64":
			return true
		}
		return false
	}
	ia, ok1 := a.(*graph.IntegerType)
	ib, ok2 := b.(*graph.IntegerType)
	if !ok1 || !ok2 || ia.Width < 2 || ia.Signedness == graph.Signless || ib.Signedness == graph.Signless {
		return false
	}
	switch {
	case ia.Signedness == ib.Signedness:
		return ib.Width >= ia.Width
	case ia.Signedness == graph.Unsigned && ib.Signedness == graph.Signed:
		return ib.Width > ia.Width
	}
	return false
}

func fcIsCast(op *graph.Operation) bool {
	return op.Name == "coreai.cast" && op.NumOperands() == 1 && op.NumResults() == 1 && op.Operand(0) != nil
}

func foldCasts(m *graph.Module, _ *noOptions) (*Change, error) {
	ch := &Change{}
	var casts []*graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if fcIsCast(op) {
			casts = append(casts, op)
		}
		return true
	})
	for _, op := range casts {
		if op.IsErased() {
			continue
		}
		x, y := op.Operand(0), op.Result(0)
		switch {
		case graph.TypeEqual(x.Type(), y.Type()):
			// Identity cast.
		case x.DefiningOp() != nil && fcIsCast(x.DefiningOp()):
			// y = cast(cast(x0 : A → B) : B → A)?
			inner := x.DefiningOp()
			x0 := inner.Operand(0)
			if !graph.TypeEqual(x0.Type(), y.Type()) || !exactWidening(graph.ElementType(x0.Type()), graph.ElementType(x.Type())) {
				continue
			}
			x = x0
		default:
			continue
		}
		y.ReplaceAllUsesWith(x)
		inner := op.Operand(0).DefiningOp()
		if err := op.Erase(); err != nil {
			return nil, err
		}
		ch.OpsRemoved++
		// A pure cast nobody reads any more goes too.
		if inner != nil && fcIsCast(inner) && !inner.Result(0).HasUses() {
			if inner.Erase() == nil {
				ch.OpsRemoved++
			}
		}
	}
	return ch, nil
}
