package bytecode

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// propField is one entry of an op's native properties layout.
type propField struct {
	name     string
	optional bool
}

// nativeLayouts are the native properties layouts anefix knows, checked
// against mlir-opt 19's output (ODS writes the properties in name order,
// optional ones as a flagged index). Registered ops not listed here keep
// their blob opaque.
var nativeLayouts = map[string][]propField{
	"builtin.module": {{"sym_name", true}, {"sym_visibility", true}},
	"func.func": {
		{"arg_attrs", true}, {"function_type", false}, {"res_attrs", true},
		{"sym_name", false}, {"sym_visibility", true},
	},
}

// registeredOps are op names anefix marks as registered when it adds them
// to a file.
var registeredOps = map[string]bool{"builtin.module": true, "func.func": true, "func.return": true, "func.call": true}

// upstreamDialects are dialects registered in upstream MLIR tools such as
// mlir-opt: their ops read properties in their own layout, so anefix
// writes the properties of new ops of these dialects as attributes.
var upstreamDialects = map[string]bool{
	"builtin": true, "func": true, "arith": true, "math": true, "tensor": true, "scf": true, "cf": true,
	"memref": true, "linalg": true, "tosa": true, "llvm": true, "vector": true, "affine": true, "shape": true,
	"index": true, "ml_program": true, "sparse_tensor": true, "bufferization": true, "gpu": true, "complex": true,
	"quant": true, "ub": true, "emitc": true, "async": true, "pdl": true, "transform": true,
}

func (ir *irReader) decodeProps(name string, registered bool, p rawProp) (graph.Attr, bool, error) {
	d := newDecoder(p.data, p.off, ir.f.name)
	if !registered {
		a, err := ir.st.attrRef(d)
		if err != nil {
			return nil, false, err
		}
		if !d.empty() {
			return nil, false, d.errorf("trailing bytes in the properties of unregistered op %s", name)
		}
		return a, false, nil
	}
	layout, ok := nativeLayouts[name]
	if !ok {
		return &NativeProps{
			OpaqueAttr: &graph.OpaqueAttr{Text: fmt.Sprintf("#anefix.native_properties<%q, %d bytes>", name, len(p.data))},
			Op:         name, Blob: p.data, src: ir.f,
		}, true, nil
	}
	var entries []graph.NamedAttr
	for _, fld := range layout {
		at := d.offset()
		idx, err := d.varint()
		if err != nil {
			return nil, false, err
		}
		if fld.optional {
			if idx&1 == 0 {
				if idx != 0 {
					return nil, false, ir.f.errAt(at, "%s properties: absent optional %s has a non-zero index", name, fld.name)
				}
				continue
			}
			idx >>= 1
		}
		a, err := ir.st.attr(at, idx)
		if err != nil {
			return nil, false, err
		}
		entries = append(entries, graph.NamedAttr{Name: fld.name, Value: a})
	}
	if !d.empty() {
		return nil, false, d.errorf("%s properties are longer than the layout anefix knows (mlir-opt 19)", name)
	}
	if len(entries) == 0 {
		return nil, true, nil
	}
	return &graph.DictAttr{Entries: entries}, true, nil
}
