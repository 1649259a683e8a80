package graph

// bytecodeOnly is implemented by values a codec keeps in an encoding anefix
// cannot print or interpret (a registered op's native properties blob whose
// layout is unknown, an attribute of a newer MLIR kept encoded). Such values
// survive a bytecode round trip untouched but have no text form.
type bytecodeOnly interface {
	BytecodeOnly() string
}

// FindBytecodeOnly returns the first op (pre-order) holding a bytecode-only
// value in its properties, attributes, result or block-argument types or
// locations, with the value's description; nil when there is none.
func FindBytecodeOnly(m *Module) (*Operation, string) {
	var found *Operation
	var why string
	m.Walk(func(op *Operation) bool {
		if found != nil {
			return false
		}
		if w := opaqueIn(op); w != "" {
			found, why = op, w
			return false
		}
		return true
	})
	return found, why
}

// HasOpaqueProps reports whether op's properties are bytecode-only, so its
// inherent attributes (a graph's name and signature) cannot be read.
func HasOpaqueProps(op *Operation) bool {
	_, ok := op.Props.(bytecodeOnly)
	return ok
}

func opaqueIn(op *Operation) string {
	if w := opaqueAttr(op.Props); w != "" {
		return w
	}
	if op.Attrs != nil {
		if w := opaqueAttr(op.Attrs); w != "" {
			return w
		}
	}
	if w := opaqueLoc(op.Loc); w != "" {
		return w
	}
	for _, r := range op.Results() {
		if w := opaqueType(r.typ); w != "" {
			return w
		}
	}
	for _, reg := range op.Regions {
		for _, b := range reg.Blocks {
			for _, a := range b.args {
				if w := opaqueType(a.typ); w != "" {
					return w
				}
				if w := opaqueLoc(a.Loc); w != "" {
					return w
				}
			}
		}
	}
	return ""
}

func opaqueAttr(a Attr) string {
	if a == nil {
		return ""
	}
	if b, ok := a.(bytecodeOnly); ok {
		return b.BytecodeOnly()
	}
	switch x := a.(type) {
	case *ArrayAttr:
		if t, _, _, ok := x.Packed(); ok {
			return opaqueType(t)
		}
		for _, e := range x.Elems {
			if w := opaqueAttr(e); w != "" {
				return w
			}
		}
	case *DictAttr:
		if x == nil {
			return ""
		}
		for _, e := range x.Entries {
			if w := opaqueAttr(e.Value); w != "" {
				return w
			}
		}
	case *TypeAttr:
		return opaqueType(x.Type)
	case *LocAttr:
		return opaqueLoc(x.Loc)
	case *IntegerAttr:
		return opaqueType(x.Type)
	case *FloatAttr:
		return opaqueType(x.Type)
	case *DenseElementsAttr:
		return opaqueType(x.Type)
	case *DenseResourceAttr:
		return opaqueType(x.Type)
	}
	return ""
}

func opaqueType(t Type) string {
	if t == nil {
		return ""
	}
	if b, ok := t.(bytecodeOnly); ok {
		return b.BytecodeOnly()
	}
	switch x := t.(type) {
	case *TensorType:
		if w := opaqueType(x.Elem); w != "" {
			return w
		}
		return opaqueAttr(x.Encoding)
	case *FunctionType:
		for _, s := range [][]Type{x.Inputs, x.Results} {
			for _, e := range s {
				if w := opaqueType(e); w != "" {
					return w
				}
			}
		}
	}
	return ""
}

func opaqueLoc(l Loc) string {
	if l == nil {
		return ""
	}
	if b, ok := l.(bytecodeOnly); ok {
		return b.BytecodeOnly()
	}
	switch x := l.(type) {
	case *NameLoc:
		return opaqueLoc(x.Child)
	case *FusedLoc:
		for _, c := range x.Locs {
			if w := opaqueLoc(c); w != "" {
				return w
			}
		}
		return opaqueAttr(x.Metadata)
	case *CallSiteLoc:
		if w := opaqueLoc(x.Callee); w != "" {
			return w
		}
		return opaqueLoc(x.Caller)
	case *DialectLoc:
		if w := opaqueAttr(x.Attr); w != "" {
			return "location " + w
		}
	}
	return ""
}
