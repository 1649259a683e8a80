package bytecode

import (
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/anefix/anefix/graph"
)

// Source describes the bytecode file a module was read from. Passing it to
// Write keeps the input's tables (strings, dialects, attributes, types,
// properties) in their order, so that unchanged parts keep their encoding,
// opaque indices stay valid and an unchanged module is written back
// byte-identical.
type Source struct {
	Name     string
	Size     int64
	Version  int    // bytecode version of the input
	Producer string // producer string of the input, e.g. "MLIR19.1.7"

	f *rawFile
	// The decoded table entries by index (nil where never decoded). The
	// writer indexes them by identity when it writes with this Source;
	// reading alone (inspect) builds no map.
	attrs []graph.Attr
	locs  []graph.Loc
	types []graph.Type
	// ops records the ops read with properties or regions (the encoding
	// choices the writer reuses), in the order read; other ops have nothing
	// to record. The writer, which visits ops in the same order, finds them
	// in turn, and through opIndex (made when first needed) once a pass
	// changed the order.
	ops     []opEntry
	opIndex map[*graph.Operation]int32
	// opLocs and opAttrs are the attribute-table entries of every op's
	// location and attributes as read (-1: none), in the order read: while
	// the op in that position still holds those values (the check makes a
	// misaligned entry harmless), the writer reuses them without looking
	// them up. Eight bytes an op.
	opLocs, opAttrs []int32
	// layouts is the native layout the input's ops of each name were
	// decoded with (one per name: a file comes from one MLIR version).
	layouts map[string]*nativeLayout
	// argUseFlags holds the byte announcing block-argument use-list orders
	// where it is not 1: MLIR reads any non-zero value as "present", and
	// Apple's writer (MLIR22.0.0git) emits 0x20 there.
	argUseFlags map[*graph.Block]byte
	// bareTop is the implicit module holding the top-level ops when the
	// file does not have exactly one top-level op of module shape.
	bareTop *graph.Operation
	uses    map[*graph.Value]*useListRecord
	// described marks a Source from Described, which holds no tables.
	described bool
}

// opEntry is an op read with properties or regions and its record.
type opEntry struct {
	op  *graph.Operation
	rec opRecord
}

// opRecord is what the reader saw of one op, to reuse its encoding. A
// module has one per op with properties (most coreai ops), so it is kept
// small.
type opRecord struct {
	props      graph.Attr    // Op.Props as read; a different value means changed
	layout     *nativeLayout // the native layout the props were decoded with; nil when opaque or unregistered
	propIdx    int32
	nOperands  uint32
	nResults   uint32
	nRegions   uint32
	nSuccs     uint32
	isolated   bool
	hasProps   bool
	registered bool
}

type useListRecord struct {
	indexPair bool
	indices   []uint64
	uses      []graph.Use // the uses when read, in the graph's order
}

// Read parses MLIR bytecode (versions 0 to 6) from r, which holds size
// bytes; name is used in error messages. Blob resources are not read: each
// becomes a graph.SectionBlob pointing into r, so r must stay open while the
// module is used or written. Malformed input gives a *formatError with the
// byte offset.
func Read(r io.ReaderAt, size int64, name string) (*graph.Module, *Source, error) {
	f, err := parseRawFile(r, size, name)
	if err != nil {
		return nil, nil, err
	}
	src := &Source{
		Name: name, Size: size, Version: int(f.version), Producer: f.producer, f: f,
		uses:    map[*graph.Value]*useListRecord{},
		layouts: map[string]*nativeLayout{}, argUseFlags: map[*graph.Block]byte{},
	}
	ir := &irReader{f: f, st: newDecodeState(f), src: src}
	m, err := ir.read()
	if err != nil {
		return nil, nil, err
	}
	m.Resources, m.ExternalResources = f.graphResources()
	src.attrs, src.locs, src.types = ir.st.attrs, ir.st.locs, ir.st.types
	return m, src, nil
}

func (f *rawFile) graphResources() (dialect, external []*graph.Resource) {
	conv := func(group string, e resEntry) *graph.Resource {
		r := &graph.Resource{Dialect: group, Key: e.key, Kind: graph.ResourceKind(e.kind), Alignment: e.align}
		switch e.kind {
		case resBlob:
			if e.size > 0 {
				r.Blob = &graph.SectionBlob{R: f.r, Offset: e.dataOff, N: e.dataLen}
			}
		case resBool:
			r.Bool = e.boolVal
		case resString:
			r.String = e.str
		}
		if r.Alignment == 0 {
			r.Alignment = 1
		}
		return r
	}
	for _, g := range f.dialectRes {
		for _, e := range g.entries {
			dialect = append(dialect, conv(f.dialects[g.dialect].name, e))
		}
	}
	for _, g := range f.extRes {
		for _, e := range g.entries {
			external = append(external, conv(g.key, e))
		}
	}
	return dialect, external
}

type valueScope struct {
	values  []*graph.Value
	next    []int
	pending map[int][]operandSlot
}

type operandSlot struct {
	ops []*graph.Value
	i   int
}

// pendingOperands are an op's operands, set once the IR is read.
type pendingOperands struct {
	op   *graph.Operation
	vals []*graph.Value
}

type irReader struct {
	f     *rawFile
	st    *decodeState
	src   *Source
	scope []*valueScope
	// operands are set after the whole IR is read, in pre-order, so value
	// use lists come out in op order whatever the forward references.
	pending  []pendingOperands
	useLists []struct {
		v   *graph.Value
		rec *useListRecord
	}
	depth int
	names []string // full op names by name index, made on first use
	// deferring is set from the first op with an operand defined after it.
	deferring   bool
	scratch     []*graph.Value // operands of ops set as they are read
	typeScratch []graph.Type   // result types of the op being read
}

func (ir *irReader) read() (*graph.Module, error) {
	sec := ir.f.sections[secIR]
	d := newDecoder(sec.buf, sec.base, ir.f.name)
	// The IR section is one block holding the top-level op(s).
	holder := graph.NewOp("builtin.module", nil, nil, nil, graph.Unknown)
	region := holder.AddRegion()
	blk := region.AddBlock(nil, nil)
	ir.scope = append(ir.scope, &valueScope{pending: map[int][]operandSlot{}})
	ir.push(0)
	nOps, hasArgs, err := d.varintFlag()
	if err != nil {
		return nil, err
	}
	if hasArgs {
		return nil, d.errorf("the top-level block cannot have arguments")
	}
	for k := uint64(0); k < nOps; k++ {
		if err := ir.parseOp(d, blk, []*graph.Block{blk}, 0); err != nil {
			return nil, err
		}
	}
	if !d.empty() {
		return nil, d.errorf("trailing bytes after the top-level operations")
	}
	if err := ir.pop(0, d); err != nil {
		return nil, err
	}
	for _, p := range ir.pending {
		if slices.Contains(p.vals, nil) {
			return nil, fmt.Errorf("%s: %s uses a value that is never defined", ir.f.name, p.op.Name)
		}
		p.op.SetOperands(p.vals)
	}
	for _, u := range ir.useLists {
		u.rec.uses = slices.Clone(u.v.Uses())
		ir.src.uses[u.v] = u.rec
	}
	// The top-level op is the module whatever its name (Apple's files have
	// aicode.serialization.asset or mps.module there), as long as it has the
	// one-region, one-block shape graph.Module needs. MLIR's own writer
	// always writes one top-level op; the format allows any number. Other
	// shapes are kept in an implicit builtin.module, as MLIR's parser does,
	// and written back bare (Source.bareTop).
	ops := blk.Ops()
	if len(ops) == 1 && len(ops[0].Regions) == 1 && len(ops[0].Regions[0].Blocks) == 1 {
		mod := ops[0]
		mod.Remove()
		return &graph.Module{Op: mod}, nil
	}
	ir.src.bareTop = holder
	return &graph.Module{Op: holder, Implicit: true}, nil
}

func (ir *irReader) cur() *valueScope { return ir.scope[len(ir.scope)-1] }

func (ir *irReader) push(n int) {
	s := ir.cur()
	s.next = append(s.next, len(s.values))
	s.values = append(s.values, make([]*graph.Value, n)...)
}

func (ir *irReader) pop(n int, d *decoder) error {
	s := ir.cur()
	for slot := len(s.values) - n; slot < len(s.values); slot++ {
		if len(s.pending[slot]) > 0 {
			return d.errorf("value %d is used but never defined", slot)
		}
		delete(s.pending, slot)
	}
	s.values = s.values[:len(s.values)-n]
	s.next = s.next[:len(s.next)-1]
	return nil
}

func (ir *irReader) define(d *decoder, vs []*graph.Value) error {
	s := ir.cur()
	next := &s.next[len(s.next)-1]
	if *next+len(vs) > len(s.values) {
		return d.errorf("value numbers [%d, %d) exceed the %d values declared for the region", *next, *next+len(vs), len(s.values))
	}
	for _, v := range vs {
		if s.values[*next] != nil {
			return d.errorf("value %d is defined twice", *next)
		}
		s.values[*next] = v
		for _, p := range s.pending[*next] {
			p.ops[p.i] = v
		}
		delete(s.pending, *next)
		*next++
	}
	return nil
}

func (ir *irReader) parseBlockHeader(d *decoder, b *graph.Block) (uint64, error) {
	nOps, hasArgs, err := d.varintFlag()
	if err != nil {
		return 0, err
	}
	if !hasArgs {
		return nOps, nil
	}
	nArgs, err := d.count("block argument", 1)
	if err != nil {
		return 0, err
	}
	for k := 0; k < nArgs; k++ {
		var t graph.Type
		var loc graph.Loc = graph.Unknown
		if ir.f.version >= vElideUnknownArgLoc {
			at := d.offset()
			ti, hasLoc, err := d.varintFlag()
			if err != nil {
				return 0, err
			}
			if t, err = ir.st.typ(at, ti); err != nil {
				return 0, err
			}
			if hasLoc {
				if loc, err = ir.st.locRef(d); err != nil {
					return 0, err
				}
			}
		} else {
			if t, err = ir.st.typeRef(d); err != nil {
				return 0, err
			}
			if loc, err = ir.st.locRef(d); err != nil {
				return 0, err
			}
		}
		b.AddArgument(t, loc)
	}
	if err := ir.define(d, b.Args()); err != nil {
		return 0, err
	}
	if ir.f.version < vUseListOrdering {
		return nOps, nil
	}
	has, err := d.byte()
	if err != nil {
		return 0, err
	}
	if has != 0 {
		if has != 1 {
			ir.src.argUseFlags[b] = has
		}
		if err := ir.parseUseLists(d, b.Args()); err != nil {
			return 0, err
		}
	}
	return nOps, nil
}

func (ir *irReader) parseUseLists(d *decoder, vals []*graph.Value) error {
	n := 1
	var err error
	if len(vals) > 1 {
		if n, err = d.count("use-list order", 1); err != nil {
			return err
		}
	}
	for k := 0; k < n; k++ {
		idx := uint64(0)
		at := d.offset()
		if len(vals) > 1 {
			if idx, err = d.varint(); err != nil {
				return err
			}
		}
		if idx >= uint64(len(vals)) {
			return ir.f.errAt(at, "use-list order for value %d of %d", idx, len(vals))
		}
		cnt, pair, err := d.varintFlag()
		if err != nil {
			return err
		}
		if cnt > uint64(d.remaining()) {
			return d.errorf("use-list order of %d entries exceeds the remaining bytes", cnt)
		}
		rec := &useListRecord{indexPair: pair, indices: make([]uint64, cnt)}
		for j := range rec.indices {
			if rec.indices[j], err = d.varint(); err != nil {
				return err
			}
		}
		ir.useLists = append(ir.useLists, struct {
			v   *graph.Value
			rec *useListRecord
		}{vals[idx], rec})
	}
	return nil
}

func (ir *irReader) opName(d *decoder) (int, error) {
	at := d.offset()
	i, err := d.varint()
	if err != nil {
		return 0, err
	}
	if i >= uint64(len(ir.f.opNames)) {
		return 0, ir.f.errAt(at, "operation name index %d out of range (%d names)", i, len(ir.f.opNames))
	}
	return int(i), nil
}

func (ir *irReader) parseOp(d *decoder, blk *graph.Block, regionBlocks []*graph.Block, numValues int) error {
	opAt := d.offset()
	ni, err := ir.opName(d)
	if err != nil {
		return err
	}
	if ir.names == nil {
		ir.names = make([]string, len(ir.f.opNames))
	}
	if ir.names[ni] == "" {
		ir.names[ni] = ir.f.opFullName(ni)
	}
	name := ir.names[ni] // one string per op name, shared by its ops
	wrap := func(err error) error {
		if fe, ok := err.(*formatError); ok {
			fe.Msg += fmt.Sprintf(" (in op %s at byte offset %d)", name, opAt)
			return fe
		}
		return err
	}
	mask, err := d.byte()
	if err != nil {
		return wrap(err)
	}
	if mask&0x80 != 0 {
		return wrap(ir.f.errAt(d.offset()-1, "invalid op encoding mask 0x%02X", mask))
	}
	locAt := d.offset()
	locIdx, err := d.varint()
	if err != nil {
		return wrap(err)
	}
	loc, err := ir.st.loc(locAt, locIdx)
	if err != nil {
		return wrap(err)
	}
	// Kept on the stack; copied into Source.ops only for an op the writer
	// needs it for (below).
	recVal := opRecord{propIdx: -1, registered: ir.f.opNames[ni].registered}
	rec := &recVal
	var attrs *graph.DictAttr
	attrsIdx := int32(-1)
	if mask&maskAttrs != 0 {
		if attrs, attrsIdx, err = ir.opAttrs(d); err != nil {
			return wrap(err)
		}
	}
	// An index past int32 (no real file has one) is recorded as none.
	if locIdx > math.MaxInt32 {
		locIdx = math.MaxUint32
	}
	ir.src.opLocs = append(roomForOne(ir.src.opLocs), int32(locIdx))
	ir.src.opAttrs = append(roomForOne(ir.src.opAttrs), attrsIdx)
	var props graph.Attr
	if mask&maskProperties != 0 {
		if props, err = ir.opProps(d, opAt, name, ni, rec); err != nil {
			return wrap(err)
		}
	}
	var resultTypes []graph.Type
	if mask&maskResults != 0 {
		// Into a reused buffer: NewOp makes the results from it.
		if resultTypes, err = ir.st.typeListInto(d, ir.typeScratch); err != nil {
			return wrap(err)
		}
		ir.typeScratch = resultTypes[:0]
	}
	var operands []*graph.Value
	if mask&maskOperands != 0 {
		if operands, err = ir.opOperands(d); err != nil {
			return wrap(err)
		}
	}
	var succs []*graph.Block
	if mask&maskSuccessors != 0 {
		if succs, err = ir.opSuccessors(d, regionBlocks); err != nil {
			return wrap(err)
		}
	}
	op := ir.appendOp(blk, name, operands, resultTypes, attrs, loc, props, succs)
	if mask&maskUseListOrder != 0 && ir.f.version >= vUseListOrdering {
		if err := ir.parseUseLists(d, op.Results()); err != nil {
			return wrap(err)
		}
	}
	var nRegions uint64
	if mask&maskRegions != 0 {
		if nRegions, err = ir.opRegionCount(d, rec); err != nil {
			return wrap(err)
		}
	}
	if numValues > 0 && op.NumResults() > 0 {
		if err := ir.define(d, op.Results()); err != nil {
			return wrap(err)
		}
	}
	// The counts fit: the reader refuses more than MaxOperands operands and
	// results, and regions and successors are bounded by the bytes left.
	rec.nOperands, rec.nResults, rec.nRegions, rec.nSuccs = uint32(len(operands)), uint32(len(resultTypes)), uint32(nRegions), uint32(len(succs))
	if rec.hasProps || nRegions > 0 {
		// The writer reads a record only for properties and regions.
		ir.src.ops = append(roomForOne(ir.src.ops), opEntry{op, recVal})
	}
	if nRegions == 0 {
		return nil
	}
	rd, err := ir.opRegionDecoder(d, name, rec, nRegions)
	if err != nil {
		return wrap(err)
	}
	ir.depth++
	if ir.depth > maxNesting {
		return wrap(rd.errorf("regions nest deeper than %d", maxNesting))
	}
	if rec.isolated {
		ir.scope = append(ir.scope, &valueScope{pending: map[int][]operandSlot{}})
	}
	for k := uint64(0); k < nRegions; k++ {
		if err := ir.parseRegion(rd, op.AddRegion()); err != nil {
			return err
		}
	}
	if rec.isolated {
		ir.scope = ir.scope[:len(ir.scope)-1]
	}
	ir.depth--
	return nil
}

// appendOp makes the op parseOp read and appends it to blk; its operands
// wait in ir.pending once deferring starts.
func (ir *irReader) appendOp(blk *graph.Block, name string, operands []*graph.Value, resultTypes []graph.Type, attrs *graph.DictAttr, loc graph.Loc, props graph.Attr, succs []*graph.Block) *graph.Operation {
	// Operands are set as ops are read, in pre-order, until one refers to
	// a value defined later; from then on every op's operands wait until
	// the IR is read (read), so use lists come out in op order either way.
	if !ir.deferring && slices.Contains(operands, nil) {
		ir.deferring = true
	}
	var op *graph.Operation
	if ir.deferring {
		op = graph.NewOp(name, nil, resultTypes, attrs, loc)
	} else {
		op = graph.NewOp(name, operands, resultTypes, attrs, loc)
	}
	op.Props = props
	op.SetSuccessors(succs)
	blk.Append(op)
	if ir.deferring && len(operands) > 0 {
		if len(ir.pending) == cap(ir.pending) {
			// Doubled: append's quarter growth for large slices allocated
			// about five times the final size.
			grown := make([]pendingOperands, len(ir.pending), max(2*len(ir.pending), 64))
			copy(grown, ir.pending)
			ir.pending = grown
		}
		ir.pending = append(ir.pending, pendingOperands{op, operands})
	}
	return op
}

// record returns the record of op, a record the reader made; *next is
// where the writer's walk expects the next one.
func (src *Source) record(op *graph.Operation, next *int) *opRecord {
	if k := *next; k < len(src.ops) && src.ops[k].op == op {
		*next = k + 1
		return &src.ops[k].rec
	}
	if src.opIndex == nil {
		src.opIndex = make(map[*graph.Operation]int32, len(src.ops))
		for k, e := range src.ops {
			src.opIndex[e.op] = int32(k)
		}
	}
	k, ok := src.opIndex[op]
	if !ok {
		return nil
	}
	*next = int(k) + 1
	return &src.ops[k].rec
}

// roomForOne makes room for one more element, doubling a full slice:
// append's quarter growth for large slices allocated about five times the
// final size of a slice with an entry per op.
func roomForOne[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	grown := make([]T, len(s), max(2*len(s), 64))
	copy(grown, s)
	return grown
}

// recordOf is record without a walk: op's record, or nil.
func (src *Source) recordOf(op *graph.Operation) *opRecord {
	next := 0
	return src.record(op, &next)
}

// opAttrs reads an op's attribute reference, which must be a dictionary,
// and its table index.
func (ir *irReader) opAttrs(d *decoder) (*graph.DictAttr, int32, error) {
	at := d.offset()
	i, err := d.varint()
	if err != nil {
		return nil, 0, err
	}
	a, err := ir.st.attr(at, i)
	if err != nil {
		return nil, 0, err
	}
	attrs, ok := a.(*graph.DictAttr)
	if !ok {
		return nil, 0, ir.f.errAt(at, "op attributes are not a dictionary: %s", a.String())
	}
	if i > math.MaxInt32 {
		return attrs, -1, nil
	}
	return attrs, int32(i), nil
}

// opProps reads an op's properties index, decodes the entry and records it (and its layout) in rec.
func (ir *irReader) opProps(d *decoder, opAt int64, name string, ni int, rec *opRecord) (graph.Attr, error) {
	if ir.f.version < vNativeProperties {
		return nil, ir.f.errAt(opAt, "op has properties, which version %d cannot hold", ir.f.version)
	}
	at := d.offset()
	pi, err := d.varint()
	if err != nil {
		return nil, err
	}
	if pi >= uint64(len(ir.f.props)) {
		return nil, ir.f.errAt(at, "properties index %d out of range (%d entries)", pi, len(ir.f.props))
	}
	rec.hasProps, rec.propIdx = true, int32(pi)
	props, layout, err := ir.decodeProps(name, ir.f.opNames[ni].registered, ir.f.props[pi])
	rec.layout = layout
	if err != nil {
		return nil, err
	}
	rec.props = props
	if rec.layout != nil {
		if prev := ir.src.layouts[name]; prev != nil && prev != rec.layout {
			return nil, ir.f.errAt(at, "%s properties use %s here but %s elsewhere in the file", name, rec.layout.describe(), prev.describe())
		}
		ir.src.layouts[name] = rec.layout
	}
	return props, nil
}

// opOperands reads an op's operand value indices; operands defined later are left pending in the scope.
func (ir *irReader) opOperands(d *decoder) ([]*graph.Value, error) {
	n, err := d.count("operand", 1)
	if err != nil {
		return nil, err
	}
	// Read into a reused buffer while every operand is defined (NewOp
	// copies them); an own slice once they wait for values defined later.
	operands := ir.scratch[:0]
	if ir.deferring {
		operands = make([]*graph.Value, 0, n)
	}
	s := ir.cur()
	for k := 0; k < n; k++ {
		at := d.offset()
		vi, err := d.varint()
		if err != nil {
			return nil, err
		}
		if vi >= uint64(len(s.values)) {
			return nil, ir.f.errAt(at, "value index %d out of range (%d values in scope)", vi, len(s.values))
		}
		v := s.values[vi]
		if v == nil && !ir.deferring {
			// The first forward reference: from here on operands wait.
			operands = append(make([]*graph.Value, 0, n), operands...)
			ir.deferring = true
		}
		operands = append(operands, v)
		if v == nil {
			s.pending[int(vi)] = append(s.pending[int(vi)], operandSlot{operands[:n], k})
		}
	}
	if !ir.deferring {
		ir.scratch = operands[:0]
	}
	return operands, nil
}

// opSuccessors reads an op's successor block indices into regionBlocks.
func (ir *irReader) opSuccessors(d *decoder, regionBlocks []*graph.Block) ([]*graph.Block, error) {
	n, err := d.count("successor", 1)
	if err != nil {
		return nil, err
	}
	var succs []*graph.Block
	for k := 0; k < n; k++ {
		at := d.offset()
		bi, err := d.varint()
		if err != nil {
			return nil, err
		}
		if bi >= uint64(len(regionBlocks)) {
			return nil, ir.f.errAt(at, "successor block %d out of range (%d blocks)", bi, len(regionBlocks))
		}
		succs = append(succs, regionBlocks[bi])
	}
	return succs, nil
}

// opRegionCount reads an op's region count and isolation flag (stored in rec) and bounds the count.
func (ir *irReader) opRegionCount(d *decoder, rec *opRecord) (uint64, error) {
	nRegions, isolated, err := d.varintFlag()
	if err != nil {
		return 0, err
	}
	if nRegions > uint64(d.remaining()) && !(isolated && ir.f.version >= vLazyLoading) {
		return 0, d.errorf("%d regions claimed but only %d bytes remain", nRegions, d.remaining())
	}
	rec.isolated = isolated
	return nRegions, nil
}

// opRegionDecoder returns the decoder an op's regions are read from (a nested IR section when lazily loadable).
func (ir *irReader) opRegionDecoder(d *decoder, name string, rec *opRecord, nRegions uint64) (*decoder, error) {
	rd := d
	if rec.isolated && ir.f.version >= vLazyLoading {
		id, sd, err := d.section()
		if err != nil {
			return nil, err
		}
		if id != secIR {
			return nil, ir.f.errAt(sd.base, "expected an IR section for the regions of %s, found %s", name, sectionName(id))
		}
		rd = sd
	}
	if nRegions > uint64(rd.remaining()) {
		return nil, rd.errorf("%d regions claimed but only %d bytes remain", nRegions, rd.remaining())
	}
	return rd, nil
}

func (ir *irReader) parseRegion(d *decoder, r *graph.Region) error {
	nBlocks, err := d.count("block", 2)
	if err != nil {
		return err
	}
	if nBlocks == 0 {
		return nil
	}
	nv, err := d.varint()
	if err != nil {
		return err
	}
	// Every value of the region is a block argument or op result encoded in
	// the bytes that follow, so a larger count is corrupt.
	if nv > uint64(d.remaining()) {
		return d.errorf("region claims %d values but only %d bytes remain", nv, d.remaining())
	}
	blocks := make([]*graph.Block, nBlocks)
	for k := range blocks {
		blocks[k] = r.AddBlock(nil, nil)
	}
	ir.push(int(nv))
	for _, b := range blocks {
		nOps, err := ir.parseBlockHeader(d, b)
		if err != nil {
			return err
		}
		if nOps > uint64(d.remaining()) {
			return d.errorf("%d ops claimed but only %d bytes remain", nOps, d.remaining())
		}
		for k := uint64(0); k < nOps; k++ {
			if err := ir.parseOp(d, b, blocks, int(nv)); err != nil {
				return err
			}
		}
	}
	return ir.pop(int(nv), d)
}

// Dialect is one entry of a bytecode file's dialect table.
type Dialect struct {
	Name string
	// Version is the dialect's version entry as written (nil when absent).
	// anefix interprets none of them and writes each back unchanged; MLIR
	// tools refuse a version entry of a dialect they do not have (mlir-opt
	// does for Apple's aicode and mps), so such files have no mlir-opt
	// oracle.
	Version []byte
}

// TableBytes is about how many heap bytes s's tables and records hold
// (what Described drops): the slices' capacities and the sections read
// into memory, not the maps (the use lists' and layouts', none of them one
// per op) nor the values the entries point at, which the module shares.
// The tables stay as they are while a command works on the module, so a
// memory budget in proportion to the work (cmd/anefix/gc.go) leaves them
// out.
func (s *Source) TableBytes() int64 {
	if s == nil || s.described {
		return 0
	}
	n := sliceBytes(s.attrs) + sliceBytes(s.locs) + sliceBytes(s.types) + sliceBytes(s.ops) +
		sliceBytes(s.opLocs) + sliceBytes(s.opAttrs)
	if f := s.f; f != nil {
		for _, d := range f.sections {
			if d != nil {
				n += int64(cap(d.buf))
			}
		}
		n += sliceBytes(f.strings) + sliceBytes(f.opNames) + sliceBytes(f.attrs) + sliceBytes(f.types) + sliceBytes(f.props)
	}
	return n
}

func sliceBytes[T any](s []T) int64 {
	var z T
	return int64(cap(s)) * int64(unsafe.Sizeof(z))
}

// Described is a Source that keeps only what describes the input (name,
// size, version, producer, dialect table) and none of the tables and
// records the writer reuses, which are about 80 bytes an op of a module
// read from bytecode (issue 28's 500k-op chain: 40 MB). Commands that read
// without writing (check, inspect) keep it instead, so that the tables are
// not live while their reports grow. Writing with it is writing with no
// Source.
func (s *Source) Described() *Source {
	if s == nil {
		return nil
	}
	return &Source{Name: s.Name, Size: s.Size, Version: s.Version, Producer: s.Producer,
		f:         &rawFile{name: s.f.name, size: s.f.size, version: s.f.version, producer: s.f.producer, dialects: s.f.dialects},
		described: true}
}

// Dialects lists the input's dialect table in file order.
func (s *Source) Dialects() []Dialect {
	out := make([]Dialect, len(s.f.dialects))
	for i, d := range s.f.dialects {
		out[i] = Dialect{Name: d.name, Version: slices.Clone(d.version)}
	}
	return out
}
