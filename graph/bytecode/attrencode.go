package bytecode

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
)

// attrIndex returns the table index of a, encoding it when it is new.
// Attributes read from the source keep their index (attributes are
// immutable, so identity means unchanged); new ones are deduplicated
// against existing entries by their encoding.
func (w *writer) attrIndex(a graph.Attr) (int, error) {
	if a == nil {
		return 0, fmt.Errorf("nil attribute")
	}
	w.seedAttrMemo()
	if i, ok := w.attrMemo[a]; ok {
		return i, nil
	}
	if la, ok := a.(*graph.LocAttr); ok {
		// A location as an attribute is the location's table entry.
		return w.locIndex(la.Loc)
	}
	if ea, ok := a.(*encodedAttr); ok {
		return 0, fmt.Errorf("%w: attribute %s is kept in the encoding of another bytecode file", errNeedsGeneric, ea.Text)
	}
	if w.depth > maxNesting {
		return 0, fmt.Errorf("attribute nests deeper than %d", maxNesting)
	}
	w.depth++
	dialect, custom, data, err := w.encodeAttr(a)
	w.depth--
	if err != nil {
		return 0, err
	}
	i, err := w.addEntry(&w.attrs, &w.attrKey, dialect, custom, data)
	if err != nil {
		return 0, err
	}
	if memoWorthy(a) {
		w.attrMemo[a] = i
	}
	return i, nil
}

// memoWorthy says whether attrIndex remembers a by identity. Small
// attributes re-encode cheaply to the same entry (found by their encoding
// in addEntry); remembering them cost a map entry each, and a module read
// from text has a dictionary per op and scalars by the million, each
// visited once. Large arrays, dictionaries and dense data are remembered:
// an attribute shared by many ops is encoded once.
func memoWorthy(a graph.Attr) bool {
	switch x := a.(type) {
	case *graph.IntegerAttr, *graph.FloatAttr, *graph.BoolAttr, *graph.StringAttr, *graph.UnitAttr,
		*graph.TypeAttr, *graph.SymbolRefAttr, *graph.DenseResourceAttr:
		return false
	case *graph.ArrayAttr:
		return x.Len() > 8
	case *graph.DictAttr:
		return len(x.Entries) > 8
	}
	return true
}

// maxScratch is the largest encoder buffer encodeAttr keeps for reuse.
const maxScratch = 4096

func (w *writer) addEntry(table *[]tableEntry, keys *entrySet, dialect string, custom bool, data []byte) (int, error) {
	w.seedKeys()
	di := w.dialect(dialect)
	if i, ok := keys.find(&w.store, *table, di, custom, data); ok {
		return i, nil
	}
	if len(*table) >= maxTableEntries {
		return 0, fmt.Errorf("more than %d attribute or type table entries", maxTableEntries)
	}
	if len(data) > math.MaxUint32 {
		return 0, fmt.Errorf("an attribute or type encoding of %d bytes is larger than the %d bytes the writer handles", len(data), uint64(math.MaxUint32))
	}
	en := tableEntry{n: uint32(len(data)), dialect: int32(di), custom: custom}
	if len(data) > maxScratch {
		en.where, en.off = inOwn, uint32(len(w.store.own))
		w.store.own = append(w.store.own, data)
	} else {
		off := len(w.store.arena)
		if off+len(data) > maxEntryStore {
			return 0, fmt.Errorf("attribute and type encodings exceed %d bytes", maxEntryStore)
		}
		if need := off + len(data); need > cap(w.store.arena) {
			// Doubled, not append's quarter growth for large slices, which
			// allocated about five times the arena's final size.
			grown := make([]byte, off, max(2*cap(w.store.arena), need, 4096))
			copy(grown, w.store.arena)
			w.store.arena = grown
		}
		// Copied: one allocation shared by all small entries instead of
		// an encoder's buffer each (encodeAttr reuses its buffer).
		w.store.arena = append(w.store.arena, data...)
		en.where, en.off, en.offHi = inArena, uint32(off), uint8(off>>32)
	}
	if len(*table) == cap(*table) {
		// Doubled: append's quarter growth for large slices allocated
		// about five times the table's final size.
		grown := make([]tableEntry, len(*table), max(2*cap(*table), 256))
		copy(grown, *table)
		*table = grown
	}
	*table = append(*table, en)
	keys.insert(&w.store, *table, len(*table)-1)
	return len(*table) - 1, nil
}

func (w *writer) typeIndex(t graph.Type) (int, error) {
	if t == nil {
		return 0, fmt.Errorf("nil type")
	}
	if t == w.lastType {
		return w.lastTypeIdx, nil
	}
	if i, ok := w.typeMemo[t]; ok {
		w.lastType, w.lastTypeIdx = t, i
		return i, nil
	}
	if et, ok := t.(*encodedType); ok {
		return 0, fmt.Errorf("%w: type %s is kept in the encoding of another bytecode file", errNeedsGeneric, et.Text)
	}
	if w.depth > maxNesting {
		return 0, fmt.Errorf("type nests deeper than %d", maxNesting)
	}
	w.depth++
	dialect, custom, data, err := w.encodeType(t)
	w.depth--
	if err != nil {
		return 0, err
	}
	i, err := w.addEntry(&w.types, &w.typeKey, dialect, custom, data)
	if err != nil {
		return 0, err
	}
	w.typeMemo[t] = i
	return i, nil
}

func (w *writer) locIndex(l graph.Loc) (int, error) {
	if l == nil {
		l = graph.Unknown
	}
	w.seedLocMemo()
	if i, ok := w.locMemo[l]; ok {
		return i, nil
	}
	switch x := l.(type) {
	case *encodedLoc:
		return w.attrIndex(x.Attr)
	case *graph.DialectLoc:
		// A dialect location is its attribute: the same table entry.
		if x.Attr == nil {
			return 0, fmt.Errorf("dialect location without an attribute")
		}
		return w.attrIndex(x.Attr)
	}
	// A dialect attribute used as a location (`loc(#debuginfo.location<…>)`
	// read from text) is written as that attribute: MLIR stores a location
	// as an index into the attribute table.
	if dl, ok := l.(*graph.DialectLoc); ok && dl.Attr != nil {
		return w.attrIndex(dl.Attr)
	}
	if w.depth > maxNesting {
		return 0, fmt.Errorf("location nests deeper than %d", maxNesting)
	}
	w.depth++
	data, err := w.encodeLoc(l)
	w.depth--
	if err != nil {
		return 0, err
	}
	i, err := w.addEntry(&w.attrs, &w.attrKey, "builtin", true, data)
	if err != nil {
		return 0, err
	}
	switch l.(type) {
	case *graph.FileLoc, graph.UnknownLoc:
		// Not remembered: a text module has a location per op, each
		// visited once, and re-encoding one finds the same entry.
	default:
		w.locMemo[l] = i
	}
	return i, nil
}

// strAttrIndex is the table index of the untyped StringAttr s (dictionary
// keys, symbol names, location file names), remembered by its text.
func (w *writer) strAttrIndex(s string) (int, error) {
	if i, ok := w.strAttrs[s]; ok {
		return i, nil
	}
	i, err := w.attrIndex(&graph.StringAttr{Value: s})
	if err != nil {
		return 0, err
	}
	w.strAttrs[s] = i
	return i, nil
}

func (w *writer) encodeLoc(l graph.Loc) ([]byte, error) {
	// This depth's scratch buffer, as in encodeAttr (addEntry copies).
	for len(w.scratch) <= w.depth {
		w.scratch = append(w.scratch, nil)
	}
	e := encoder{buf: w.scratch[w.depth][:0]}
	defer func() {
		if cap(e.buf) <= maxScratch {
			w.scratch[w.depth] = e.buf[:0]
		}
	}()
	ref := func(x graph.Loc) error {
		i, err := w.locIndex(x)
		e.varint(uint64(i))
		return err
	}
	switch x := l.(type) {
	case graph.UnknownLoc:
		e.varint(atUnknownLoc)
	case *graph.FileLoc:
		e.varint(atFileLineColLoc)
		i, err := w.strAttrIndex(x.File)
		if err != nil {
			return nil, err
		}
		e.varint(uint64(i))
		e.varint(uint64(x.Line))
		e.varint(uint64(x.Col))
	case *graph.NameLoc:
		e.varint(atNameLoc)
		i, err := w.strAttrIndex(x.Name)
		if err != nil {
			return nil, err
		}
		e.varint(uint64(i))
		child := x.Child
		if child == nil {
			child = graph.Unknown
		}
		if err := ref(child); err != nil {
			return nil, err
		}
	case *graph.CallSiteLoc:
		e.varint(atCallSiteLoc)
		if err := ref(x.Callee); err != nil {
			return nil, err
		}
		if err := ref(x.Caller); err != nil {
			return nil, err
		}
	case *graph.FusedLoc:
		if x.Metadata != nil {
			e.varint(atFusedLocMeta)
		} else {
			e.varint(atFusedLoc)
		}
		e.varint(uint64(len(x.Locs)))
		for _, c := range x.Locs {
			if err := ref(c); err != nil {
				return nil, err
			}
		}
		if x.Metadata != nil {
			i, err := w.attrIndex(x.Metadata)
			if err != nil {
				return nil, err
			}
			e.varint(uint64(i))
		}
	default:
		return nil, fmt.Errorf("location kind %T has no bytecode encoding", l)
	}
	return e.buf, nil
}

// textDialect finds the dialect of a textual attribute or type such as
// "#coreai.composite_declaration<…>" or "!coreai.token".
func textDialect(text string) string {
	s := strings.TrimLeft(text, "#!")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return s[:i]
		}
	}
	return s
}

func textual(text string) []byte { return append([]byte(text), 0) }

func (w *writer) encodeAttr(a graph.Attr) (string, bool, []byte, error) {
	// The encoder starts from this depth's scratch buffer: addEntry copies
	// the encoding into the store, so the buffer is free again once
	// attrIndex returns, and nested attributes (one depth deeper) use their
	// own. Without it each element of a large ArrayAttr allocated one.
	for len(w.scratch) <= w.depth {
		w.scratch = append(w.scratch, nil)
	}
	e := encoder{buf: w.scratch[w.depth][:0]}
	defer func() {
		if cap(e.buf) <= maxScratch {
			w.scratch[w.depth] = e.buf[:0]
		}
	}()
	var err error
	ref := func(x graph.Attr) {
		if err != nil {
			return
		}
		var i int
		i, err = w.attrIndex(x)
		e.varint(uint64(i))
	}
	tref := func(t graph.Type) {
		if err != nil {
			return
		}
		var i int
		i, err = w.typeIndex(t)
		e.varint(uint64(i))
	}
	switch x := a.(type) {
	case *graph.ArrayAttr:
		e.varint(atArray)
		err = w.encodeArray(&e, x)
	case *graph.DictAttr:
		e.varint(atDict)
		e.varint(uint64(len(x.Entries)))
		for _, en := range x.Entries {
			if err == nil {
				var k int
				k, err = w.strAttrIndex(en.Name)
				e.varint(uint64(k))
			}
			ref(en.Value)
		}
	case *graph.StringAttr:
		if x.Type != nil {
			e.varint(atStringTyped)
			e.varint(uint64(w.addString(x.Value)))
			tref(x.Type)
		} else {
			e.varint(atString)
			e.varint(uint64(w.addString(x.Value)))
		}
	case *graph.SymbolRefAttr:
		root := func() {
			if err == nil {
				var k int
				k, err = w.strAttrIndex(x.Root)
				e.varint(uint64(k))
			}
		}
		if len(x.Nested) == 0 {
			e.varint(atFlatSymbolRef)
			root()
		} else {
			e.varint(atSymbolRef)
			root()
			e.varint(uint64(len(x.Nested)))
			for _, n := range x.Nested {
				ref(&graph.SymbolRefAttr{Root: n})
			}
		}
	case *graph.TypeAttr:
		e.varint(atType)
		tref(x.Type)
	case *graph.UnitAttr:
		e.varint(atUnit)
	case *graph.BoolAttr:
		e.varint(atInteger)
		tref(graph.I1)
		if x.Value {
			e.byte(1)
		} else {
			e.byte(0)
		}
	case *graph.IntegerAttr:
		width := intWidth(x.Type)
		if width < 0 {
			return "", false, nil, fmt.Errorf("integer attribute of type %s", x.Type)
		}
		e.varint(atInteger)
		tref(x.Type)
		writeAPInt(&e, width, uint64(x.Value), x.Big)
	case *graph.FloatAttr:
		w := graph.BitWidth(x.Type)
		if w <= 0 || w > 64 {
			return "builtin", false, textual(x.String()), nil
		}
		e.varint(atFloat)
		tref(x.Type)
		writeAPInt(&e, w, x.Bits, nil)
	case *graph.LocAttr:
		data, lerr := w.encodeLoc(x.Loc)
		return "builtin", true, data, lerr
	case *graph.DenseResourceAttr:
		e.varint(atDenseResource)
		tref(x.Type)
		e.varint(uint64(w.resource("builtin", x.Key, nil)))
	case *graph.DenseArrayAttr:
		e.varint(atDenseArray)
		tref(x.Elem)
		raw, n, rerr := denseArrayRaw(x)
		if rerr != nil {
			return "", false, nil, rerr
		}
		e.varint(uint64(n))
		e.varint(uint64(len(raw)))
		e.raw(raw)
	case *graph.DenseElementsAttr:
		e.varint(atDenseIntOrFP)
		tref(x.Type)
		raw := denseRaw(x)
		e.varint(uint64(len(raw)))
		e.raw(raw)
	case *graph.OpaqueAttr:
		return textDialect(x.Text), false, textual(x.Text), nil
	case *graph.RawAttr:
		return "builtin", false, textual(x.Text), nil
	case *NativeProps:
		return "", false, nil, fmt.Errorf("native properties cannot be used as an attribute")
	default:
		return "", false, nil, fmt.Errorf("attribute kind %T has no bytecode encoding", a)
	}
	return "builtin", true, e.buf, err
}

// encodeArray writes an array attribute's elements (after its kind) to e,
// each as the index of its entry.
func (w *writer) encodeArray(e *encoder, x *graph.ArrayAttr) error {
	if t, float, vals, ok := x.Packed(); ok {
		// One scratch attribute encoded per element, and an element
		// equal to the one before reuses its entry: a packed array's
		// elements are often few distinct values (no room is reserved
		// for an entry per element).
		e.varint(uint64(len(vals)))
		e.buf = slices.Grow(e.buf, len(vals))
		var scratch graph.Attr = &graph.IntegerAttr{Type: t}
		if float {
			scratch = &graph.FloatAttr{Type: t}
		}
		last, lastIdx := uint64(0), -1
		for _, v := range vals {
			if lastIdx >= 0 && v == last {
				e.varint(uint64(lastIdx))
				continue
			}
			if float {
				scratch.(*graph.FloatAttr).Bits = v
			} else {
				scratch.(*graph.IntegerAttr).Value = int64(v)
			}
			var err error
			if lastIdx, err = w.attrIndex(scratch); err != nil {
				return err
			}
			e.varint(uint64(lastIdx))
			last = v
		}
		return nil
	}
	e.varint(uint64(len(x.Elems)))
	// Room for an entry per element at once (table, set and this
	// encoding, whose indices are at most the table's length after the
	// elements), rather than each growing many times over a large array.
	n := len(x.Elems)
	w.attrs = slices.Grow(w.attrs, n)
	w.seedKeys()
	w.attrKey.reserve(&w.store, w.attrs, n)
	e.buf = slices.Grow(e.buf, n*varintLen(uint64(len(w.attrs)+n)))
	for _, el := range x.Elems {
		i, err := w.attrIndex(el)
		if err != nil {
			return err
		}
		e.varint(uint64(i))
	}
	return nil
}

// writeAPInt writes an integer of known width the way MLIR does: one byte up
// to 8 bits, a zigzag varint of the zero-extended bits up to 64 bits, else
// the count of 64-bit words followed by each word as a zigzag varint.
func writeAPInt(e *encoder, width int, v uint64, b *big.Int) {
	switch {
	case width <= 8:
		e.byte(byte(v & (1<<uint(width) - 1)))
	case width <= 64:
		if width < 64 {
			v &= 1<<uint(width) - 1
		}
		e.signedVarint(int64(v))
	default:
		x := new(big.Int)
		if b != nil {
			x.Set(b)
		} else {
			x.SetInt64(int64(v))
		}
		// Two's complement in `width` bits.
		mod := new(big.Int).Lsh(big.NewInt(1), uint(width))
		if x.Sign() < 0 {
			x.Add(x, mod)
		}
		if x.BitLen() > width {
			x.Mod(x, mod)
		}
		ws := x.Bits() // little-endian words, without leading zero words
		n := len(ws)
		if n == 0 {
			ws, n = []big.Word{0}, 1
		}
		e.varint(uint64(n))
		for _, wd := range ws[:n] {
			e.signedVarint(int64(uint64(wd)))
		}
	}
}

func denseArrayRaw(a *graph.DenseArrayAttr) ([]byte, int, error) {
	w := graph.ElemBytes(a.Elem)
	if w == 0 || w > 8 || len(a.Raw)%w != 0 {
		return nil, 0, fmt.Errorf("dense array of %s with %d bytes", a.Elem, len(a.Raw))
	}
	return a.Raw, len(a.Raw) / w, nil
}

// denseRaw converts the graph form back to MLIR's raw buffer (i1 packed
// eight to a byte, a splat i1 as 0x00 or 0xFF).
func denseRaw(a *graph.DenseElementsAttr) []byte {
	if intWidth(a.Type.Elem) != 1 {
		return a.Raw
	}
	if a.Splat {
		if len(a.Raw) > 0 && a.Raw[0]&1 != 0 {
			return []byte{0xff}
		}
		return []byte{0}
	}
	out := make([]byte, (len(a.Raw)+7)/8)
	for k, b := range a.Raw {
		if b&1 != 0 {
			out[k/8] |= 1 << (k % 8)
		}
	}
	return out
}

func (w *writer) encodeType(t graph.Type) (string, bool, []byte, error) {
	var e encoder
	var err error
	tref := func(x graph.Type) {
		if err != nil {
			return
		}
		var i int
		i, err = w.typeIndex(x)
		e.varint(uint64(i))
	}
	shape := func(s []int64) {
		e.varint(uint64(len(s)))
		for _, d := range s {
			if d < 0 {
				// MLIR's dynamic size is INT64_MIN.
				e.signedVarint(-1 << 63)
				continue
			}
			e.signedVarint(d)
		}
	}
	switch x := t.(type) {
	case *graph.IntegerType:
		e.varint(tyInteger)
		e.varint(uint64(x.Width)<<2 | uint64(x.Signedness))
	case *graph.IndexType:
		e.varint(tyIndex)
	case *graph.FunctionType:
		e.varint(tyFunction)
		e.varint(uint64(len(x.Inputs)))
		for _, in := range x.Inputs {
			tref(in)
		}
		e.varint(uint64(len(x.Results)))
		for _, r := range x.Results {
			tref(r)
		}
	case *graph.FloatType:
		code, ok := floatTypeCodes[x.Name]
		if !ok {
			return "builtin", false, textual(x.Name), nil
		}
		e.varint(code)
	case *graph.NoneType:
		e.varint(tyNone)
	case *graph.TensorType:
		switch {
		case x.Unranked:
			e.varint(tyUnrankedTensor)
			tref(x.Elem)
		case x.Encoding != nil:
			e.varint(tyRankedTensorEnc)
			i, aerr := w.attrIndex(x.Encoding)
			if aerr != nil {
				return "", false, nil, aerr
			}
			e.varint(uint64(i))
			shape(x.Shape)
			tref(x.Elem)
		default:
			e.varint(tyRankedTensor)
			shape(x.Shape)
			tref(x.Elem)
		}
	case *graph.OpaqueType:
		return textDialect(x.Text), false, textual(x.Text), nil
	case *graph.RawType:
		return "builtin", false, textual(x.Text), nil
	default:
		return "", false, nil, fmt.Errorf("type kind %T has no bytecode encoding", t)
	}
	return "builtin", true, e.buf, err
}
