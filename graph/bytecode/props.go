package bytecode

import (
	"fmt"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph"
)

// PropField is one entry of an op's native properties layout: an attribute
// reference, written as a plain index or, when Optional, as a flagged one.
type PropField struct {
	Name     string
	Optional bool
}

// nativeLayouts are the native properties layouts anefix knows, checked
// against mlir-opt 19's output (ODS writes the properties in name order,
// optional ones as a flagged index). Registered ops not listed here keep
// their blob opaque.
var nativeLayouts = map[string][]PropField{
	"builtin.module": {{"sym_name", true}, {"sym_visibility", true}},
	"func.func": {
		{"arg_attrs", true}, {"function_type", false}, {"res_attrs", true},
		{"sym_name", false}, {"sym_visibility", true},
	},
	// One required attribute (a one-byte blob naming the callee); mlir-opt
	// reads the re-encoded form back (TestRegisterNativeLayout).
	"func.call": {{"callee", false}},
}

var layoutMu sync.RWMutex

// RegisterNativeLayout declares the native properties layout of a
// registered op whose ODS properties are all attributes, in the order its
// writeProperties emits them (ODS sorts them by name). Once declared, the op's
// properties are read into a dictionary and re-encoded after changes
// instead of being carried opaquely. Use it only for a layout confirmed
// against real files, e.g. with NativeProps.Describe. Nil fields remove the
// declaration.
func RegisterNativeLayout(op string, fields []PropField) {
	layoutMu.Lock()
	defer layoutMu.Unlock()
	if fields == nil {
		delete(nativeLayouts, op)
		return
	}
	nativeLayouts[op] = append([]PropField(nil), fields...)
}

func nativeLayout(op string) []PropField {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	return nativeLayouts[op]
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
	layoutMu.RLock()
	layout, ok := nativeLayouts[name]
	layoutMu.RUnlock()
	if !ok {
		return &NativeProps{
			OpaqueAttr: &graph.OpaqueAttr{Text: fmt.Sprintf("#anefix.native_properties<%q, %d bytes>", name, len(p.data))},
			Op:         name, Blob: p.data, src: ir.f, st: ir.st,
		}, true, nil
	}
	var entries []graph.NamedAttr
	for _, fld := range layout {
		at := d.offset()
		idx, err := d.varint()
		if err != nil {
			return nil, false, err
		}
		if fld.Optional {
			if idx&1 == 0 {
				if idx != 0 {
					return nil, false, ir.f.errAt(at, "%s properties: absent optional %s has a non-zero index", name, fld.Name)
				}
				continue
			}
			idx >>= 1
		}
		a, err := ir.st.attr(at, idx)
		if err != nil {
			return nil, false, err
		}
		entries = append(entries, graph.NamedAttr{Name: fld.Name, Value: a})
	}
	if !d.empty() {
		return nil, false, d.errorf("%s properties are longer than the layout anefix knows (mlir-opt 19)", name)
	}
	if len(entries) == 0 {
		return nil, true, nil
	}
	return &graph.DictAttr{Entries: entries}, true, nil
}

// Describe lists the blob's varints with the attributes they would name if
// the layout were a sequence of attribute references (plain, or flagged
// optional: 0 = absent, odd = present). It is a guess to help confirm an
// op's layout from a real file, never used for writing.
func (p *NativeProps) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s native properties (%d bytes):", p.Op, len(p.Blob))
	d := newDecoder(p.Blob, 0, "")
	for !d.empty() {
		v, err := d.varint()
		if err != nil {
			b.WriteString(" <truncated varint>")
			break
		}
		fmt.Fprintf(&b, "\n  %d", v)
		if p.st == nil {
			continue
		}
		if v < uint64(len(p.st.attrs)) {
			if a, err := p.st.attr(0, v); err == nil {
				fmt.Fprintf(&b, "  as attribute #%d: %s", v, a.String())
			}
		}
		switch {
		case v == 0:
			b.WriteString("  as optional: absent")
		case v&1 == 1 && v>>1 < uint64(len(p.st.attrs)):
			if a, err := p.st.attr(0, v>>1); err == nil {
				fmt.Fprintf(&b, "  as optional #%d: %s", v>>1, a.String())
			}
		}
	}
	return b.String()
}
