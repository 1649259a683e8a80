package bytecode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
)

// WriteOptions controls Write.
type WriteOptions struct {
	// Source is the file the module was read from (the second result of
	// Read). With it the writer keeps the input's tables and encodings;
	// without it every table is built fresh.
	Source *Source
	// Version is the bytecode version to write, 1 to 6. Zero means the
	// input's version, or 6 without a Source.
	Version int
	// Producer overrides the producer string (default: the input's, or
	// "anefix" without a Source).
	Producer string
}

// errNeedsGeneric marks errors where anefix cannot prove that an op's
// opaque encoding is still right after a change. The way out is generic
// MLIR text written by a tool that knows the op (the exporter's own MLIR
// printing in generic form), which anefix then reads and writes fully.
var errNeedsGeneric = errors.New("op encoding cannot be re-derived; convert the model to generic MLIR text with a tool that knows the op (e.g. the exporter printing the module in generic op form) and run anefix on that text")

// rangeCopier is offered by outputs that can copy a range of a file without
// passing it through user space (graph/bundle's main file writer).
type rangeCopier interface {
	CopyRange(f *os.File, off, n int64) error
}

// tableEntry is one attribute or type table entry. Its bytes are not a
// slice of their own but a range of the writer's entryStore, so an entry is
// 16 bytes: an ArrayAttr of millions of integers has an entry per integer.
type tableEntry struct {
	off     uint32 // low 32 bits of the offset in the store's part, or the index in own
	offHi   uint8  // high bits: offsets reach 1 TiB
	where   uint8  // inSource, inArena or inOwn
	custom  bool
	n       uint32 // length in bytes
	dialect int32
}

const (
	inSource = iota // the source's attribute/type section
	inArena         // the arena shared by small new encodings
	inOwn           // an encoding larger than maxScratch, kept as it is
)

// entryStore holds the bytes of the table entries: the source's
// attribute/type section, which seeded entries point into, one arena for
// the encodings of small new entries, and large new encodings as they are
// (copying a large array attribute's encoding into the arena would double it).
type entryStore struct {
	src   []byte
	arena []byte
	own   [][]byte
}

func (s *entryStore) bytes(en tableEntry) []byte {
	off := int(en.off) | int(en.offHi)<<32
	switch en.where {
	case inArena:
		return s.arena[off : off+int(en.n)]
	case inOwn:
		return s.own[off]
	}
	return s.src[off : off+int(en.n)]
}

// maxEntryStore bounds offsets and lengths to what a tableEntry holds.
const maxEntryStore = 1 << 40

type outResource struct {
	dialect string
	key     string
	res     *graph.Resource // nil: empty declaration
}

type writer struct {
	version uint64
	major   int // MLIR major version the output's producer names (0: none)
	src     *Source
	f       *rawFile // nil without a source

	strings   []string
	strIdx    map[string]int
	dialects  []rawDialect
	dialIdx   map[string]int
	opNames   []rawOpName
	opNameIdx map[string]int
	store     entryStore
	attrs     []tableEntry
	attrKey   entrySet
	types     []tableEntry
	typeKey   entrySet
	props     [][]byte
	propKey   map[string]int

	// keysPending, locMemoPending, attrMemoPending: attrKey/typeKey,
	// locMemo, attrMemo still lack the input's entries (seedKeys,
	// seedLocMemo, seedAttrMemo).
	keysPending, locMemoPending, attrMemoPending bool
	attrMemo                                     map[graph.Attr]int
	strAttrs                                     map[string]int // strAttrIndex
	locMemo                                      map[graph.Loc]int
	typeMemo                                     map[graph.Type]int
	// lastType and lastTypeIdx: the type typeIndex found last (neighbouring
	// ops and results share one).
	lastType    graph.Type
	lastTypeIdx int
	depth       int
	scratch     [][]byte // encodeAttr's buffer for each depth

	resources []outResource // dialect resources in handle order
	resIdx    map[[2]string]int
	external  []*graph.Resource
}

// Write encodes m as MLIR bytecode. The output is deterministic. Blob
// resources are streamed from their sources (for a module from Read, the
// input file) without being held in memory.
func Write(w io.Writer, m *graph.Module, opts WriteOptions) error {
	if m == nil || m.Op == nil {
		return fmt.Errorf("bytecode: nil module")
	}
	if opts.Source != nil && opts.Source.described {
		opts.Source = nil
	}
	wr := &writer{
		src: opts.Source, strIdx: map[string]int{}, dialIdx: map[string]int{}, opNameIdx: map[string]int{},
		attrKey: newEntrySet(0), typeKey: newEntrySet(0), propKey: map[string]int{},
		attrMemo: map[graph.Attr]int{}, strAttrs: map[string]int{}, locMemo: map[graph.Loc]int{}, typeMemo: map[graph.Type]int{}, resIdx: map[[2]string]int{},
	}
	wr.version = MaxVersion
	producer := "anefix"
	if wr.src != nil {
		wr.f = wr.src.f
		wr.version = wr.f.version
		producer = wr.f.producer
	}
	if opts.Version != 0 {
		if opts.Version < 1 || opts.Version > MaxVersion {
			return fmt.Errorf("bytecode: version %d is not supported; choose 1 to %d", opts.Version, MaxVersion)
		}
		wr.version = uint64(opts.Version)
	}
	if opts.Producer != "" {
		producer = opts.Producer
	}
	if strings.IndexByte(producer, 0) >= 0 {
		return fmt.Errorf("bytecode: producer string contains a NUL byte")
	}
	wr.major = producerMLIRMajor(producer)
	if err := wr.seed(); err != nil {
		return err
	}
	if err := wr.planResources(m); err != nil {
		return err
	}
	ir, err := wr.encodeIR(m)
	if err != nil {
		return err
	}
	return wr.emit(w, producer, ir)
}

// seed copies the input's tables so every index inside unchanged encodings
// keeps its meaning; new entries are only ever appended.
func (w *writer) seed() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	if len(f.attrs) >= maxTableEntries || len(f.types) >= maxTableEntries {
		return fmt.Errorf("bytecode: %d attributes and %d types are more than the writer's %d table entries", len(f.attrs), len(f.types), maxTableEntries)
	}
	// Sized up front: these tables can hold hundreds of thousands of entries.
	w.strIdx = make(map[string]int, len(f.strings))
	w.propKey = make(map[string]int, len(f.props))

	w.strings = make([]string, 0, len(f.strings))
	w.attrs = make([]tableEntry, 0, len(f.attrs))
	w.types = make([]tableEntry, 0, len(f.types))
	// Verbatim, duplicates included: indices inside kept encodings count
	// every entry.
	for i, s := range f.strings {
		w.strings = append(w.strings, s)
		if _, ok := w.strIdx[s]; !ok {
			w.strIdx[s] = i
		}
	}
	for _, d := range f.dialects {
		w.dialects = append(w.dialects, d)
		if _, ok := w.dialIdx[d.name]; !ok {
			w.dialIdx[d.name] = len(w.dialects) - 1
		}
	}
	for i, n := range f.opNames {
		w.opNames = append(w.opNames, n)
		full := f.opFullName(i)
		if _, ok := w.opNameIdx[full]; !ok {
			w.opNameIdx[full] = i
		}
	}
	// Seeded entries are ranges of the source's attribute/type section.
	sec := f.sections[secAttrType]
	w.store.src = sec.buf
	seedTable := func(raw []rawEntry, table *[]tableEntry) {
		for _, e := range raw {
			off := e.off - sec.base
			*table = append(*table, tableEntry{off: uint32(off), offHi: uint8(off >> 32), n: e.n, dialect: e.dialect, custom: e.custom})
		}
	}
	seedTable(f.attrs, &w.attrs)
	seedTable(f.types, &w.types)
	for i, p := range f.props {
		w.props = append(w.props, p.data)
		if _, ok := w.propKey[string(p.data)]; !ok {
			w.propKey[string(p.data)] = i
		}
	}
	// The sets finding entries by content and the identity memos of
	// decoded attributes and locations are built when first needed
	// (seedKeys, seedLocMemo, seedAttrMemo): a module written back unchanged
	// needs few of them,
	// since its ops' records name their entries (irWriter.op), and building
	// them cost a hash of every entry and a map entry for each.
	w.keysPending, w.locMemoPending, w.attrMemoPending = true, true, true
	nTypes := 0
	for _, t := range w.src.types {
		if t != nil {
			nTypes++
		}
	}
	w.typeMemo = make(map[graph.Type]int, nTypes)
	for i, t := range w.src.types {
		if t != nil {
			w.typeMemo[t] = i // the last, as before: shared scalar types (graph.F16) decode from any entry
		}
	}
	return nil
}

// seedKeys indexes the input's attribute and type entries by content, the
// first of equal ones, before the first new entry is looked up or added.
func (w *writer) seedKeys() {
	if !w.keysPending {
		return
	}
	w.keysPending = false
	f := w.f
	seedSet := func(raw []rawEntry, table []tableEntry, keys *entrySet) {
		*keys = newEntrySet(len(raw))
		for i, e := range raw {
			if _, ok := keys.find(&w.store, table, int(e.dialect), e.custom, f.entryData(e)); !ok {
				keys.insert(&w.store, table, i)
			}
		}
	}
	seedSet(f.attrs, w.attrs, &w.attrKey)
	seedSet(f.types, w.types, &w.typeKey)
}

// seedLocMemo and seedAttrMemo remember every decoded location and
// attribute by identity (the first entry, where the input holds one twice),
// so what a pass did not replace is written as it was read; each when first
// needed (an unchanged module asks for locations only for ops without a
// record, and may never ask for an attribute). A location's entry is
// remembered as the location, not as the LocAttr the decoder also made of
// it (attrIndex sends a LocAttr to locIndex).
func (w *writer) seedLocMemo() {
	if !w.locMemoPending {
		return
	}
	w.locMemoPending = false
	n := 0
	for _, l := range w.src.locs {
		if l != nil {
			n++
		}
	}
	w.locMemo = make(map[graph.Loc]int, n)
	for i, l := range w.src.locs {
		if l != nil {
			if _, dup := w.locMemo[l]; !dup {
				w.locMemo[l] = i
			}
		}
	}
}

func (w *writer) seedAttrMemo() {
	if !w.attrMemoPending {
		return
	}
	w.attrMemoPending = false
	n := 0
	for i, a := range w.src.attrs {
		if a != nil && w.src.locs[i] == nil {
			n++
		}
	}
	w.attrMemo = make(map[graph.Attr]int, n)
	for i, a := range w.src.attrs {
		if a != nil && w.src.locs[i] == nil {
			if _, dup := w.attrMemo[a]; !dup {
				w.attrMemo[a] = i
			}
		}
	}
}

func (w *writer) addString(s string) int {
	if i, ok := w.strIdx[s]; ok {
		return i
	}
	w.strings = append(w.strings, s)
	w.strIdx[s] = len(w.strings) - 1
	return len(w.strings) - 1
}

func (w *writer) dialect(name string) int {
	if i, ok := w.dialIdx[name]; ok {
		return i
	}
	w.dialects = append(w.dialects, rawDialect{name: name})
	w.dialIdx[name] = len(w.dialects) - 1
	return len(w.dialects) - 1
}

func (w *writer) opName(full string) int {
	if i, ok := w.opNameIdx[full]; ok {
		return i
	}
	dial, name := full, ""
	if k := strings.IndexByte(full, '.'); k >= 0 {
		dial, name = full[:k], full[k+1:]
	}
	w.opNames = append(w.opNames, rawOpName{dialect: w.dialect(dial), name: name, registered: w.guessRegistered(full, dial)})
	w.opNameIdx[full] = len(w.opNames) - 1
	return len(w.opNames) - 1
}

// guessRegistered decides the registered flag of an op name new to the
// file: ops anefix knows, ops of dialects registered in upstream MLIR tools,
// and ops of a dialect the input already flags as registered (Apple's
// coreai files register coreai).
func (w *writer) guessRegistered(full, dialect string) bool {
	if registeredOps[full] || upstreamDialects[dialect] {
		return true
	}
	for _, n := range w.opNames {
		if n.registered && w.dialects[n.dialect].name == dialect {
			return true
		}
	}
	return false
}

// planResources fixes the dialect resource handle order: the input's
// handles first (entries a pass removed become empty declarations, so
// handles inside kept attribute encodings stay right), then new ones.
func (w *writer) planResources(m *graph.Module) error {
	byKey := map[[2]string]*graph.Resource{}
	for _, r := range m.Resources {
		k := [2]string{r.Dialect, r.Key}
		if _, dup := byKey[k]; dup {
			return fmt.Errorf("bytecode: duplicate resource %s/%s", r.Dialect, r.Key)
		}
		// 0 means unknown (written as 1); beyond the limit the reader
		// would refuse what is written.
		if r.Kind == graph.BlobResource && r.Alignment != 0 && !graph.ValidAlignment(r.Alignment) {
			return fmt.Errorf("bytecode: resource %s/%s: alignment %d is not a power of two up to %d", r.Dialect, r.Key, r.Alignment, graph.MaxBlobAlignment)
		}
		byKey[k] = r
	}
	if w.f != nil {
		for _, g := range w.f.dialectRes {
			dn := w.f.dialects[g.dialect].name
			for _, e := range g.entries {
				k := [2]string{dn, e.key}
				w.resIdx[k] = len(w.resources)
				w.resources = append(w.resources, outResource{dialect: dn, key: e.key, res: byKey[k]})
			}
		}
	}
	for _, r := range m.Resources {
		w.resource(r.Dialect, r.Key, r)
	}
	w.external = m.ExternalResources
	return nil
}

func (w *writer) resource(dialect, key string, r *graph.Resource) int {
	k := [2]string{dialect, key}
	if i, ok := w.resIdx[k]; ok {
		return i
	}
	w.resIdx[k] = len(w.resources)
	w.resources = append(w.resources, outResource{dialect: dialect, key: key, res: r})
	return len(w.resources) - 1
}

// ---- IR ----

type irWriter struct {
	*writer
	isolatedNames map[string]bool
	// blocks numbers the values of each block written so far (blockIDs);
	// last is the one found last (an op's operands are mostly in its block).
	blocks    map[*graph.Block]*blockIDs
	last      *graph.Block
	lastID    *blockIDs
	scope     int
	nextScope int
	// nextOp and nextRec: the positions of the next op in Source.opLocs
	// and Source.ops the walk reaches, which visits ops in the order the
	// reader read them.
	nextOp, nextRec int
}

// blockIDs numbers a block's values in their isolated scope: arguments
// from args, the results of the op at position k from results[k]. It is
// four bytes an op instead of a map entry a value (encodeIR refuses a
// module with more than 2^32 values).
type blockIDs struct {
	scope, args uint32
	results     []uint32
}

// valueID returns v's number in the current scope; ok is false for a value
// not visible here (defined outside an isolated region, or not in the
// module).
func (w *irWriter) valueID(v *graph.Value) (uint32, bool) {
	b := v.ParentBlock()
	ids := w.lastID
	if b != w.last || ids == nil {
		if ids = w.blocks[b]; ids == nil {
			return 0, false
		}
		w.last, w.lastID = b, ids
	}
	if int(ids.scope) != w.scope {
		return 0, false
	}
	if op := v.DefiningOp(); op != nil {
		k := op.Position()
		if k < 0 || k >= len(ids.results) {
			return 0, false
		}
		return ids.results[k] + uint32(v.ResultIndex()), true
	}
	_, i, _ := v.BlockArg()
	return ids.args + uint32(i), true
}

func (w *writer) encodeIR(m *graph.Module) ([]byte, error) {
	// Values are numbered in 32 bits (blockIDs).
	nv := 0
	m.Op.Walk(func(o *graph.Operation) bool {
		nv += o.NumResults()
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				nv += len(b.Args())
			}
		}
		return true
	})
	if uint64(nv) > math.MaxUint32 {
		return nil, fmt.Errorf("bytecode: %d values are more than the %d the writer numbers", nv, uint64(math.MaxUint32))
	}
	iw := &irWriter{writer: w, blocks: map[*graph.Block]*blockIDs{}}
	e := &encoder{}
	if w.src != nil && w.src.bareTop != nil && w.src.bareTop == m.Op && m.Implicit {
		// The input's top-level ops, written bare as they were read (the
		// top level defines no values, so each op numbers its regions'
		// values from 0, as for a single top-level op).
		b := m.Body()
		e.varintFlag(uint64(b.Len()), false)
		for o := b.First(); o != nil; o = o.Next() {
			if err := iw.op(e, o, nil, 0); err != nil {
				return nil, err
			}
		}
		return e.buf, nil
	}
	e.varintFlag(1, false)
	if err := iw.op(e, m.Op, nil, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// opError prefixes an error with the op; a %w in format keeps the cause
// (errNeedsGeneric) visible to errors.Is.
func opError(op *graph.Operation, format string, args ...any) error {
	return fmt.Errorf("bytecode: op %s: "+format, append([]any{op.Describe()}, args...)...)
}

func (w *irWriter) op(e *encoder, op *graph.Operation, blocks map[*graph.Block]int, childBase int) error {
	var rec *opRecord
	locRead, attrsRead := int32(-1), int32(-1) // the entries of the op read in this position
	if w.src != nil {
		if op.Props != nil || len(op.Regions) > 0 {
			// Only these two use a record (propsIndex, isolatedOp).
			rec = w.src.record(op, &w.nextRec)
		}
		if k := w.nextOp; k < len(w.src.opLocs) {
			locRead, attrsRead = w.src.opLocs[k], w.src.opAttrs[k]
		}
		w.nextOp++
	}
	nameIdx := w.opName(op.Name)
	e.varint(uint64(nameIdx))
	maskAt := e.len()
	e.byte(0)
	mask := byte(0)
	var loc int
	var err error
	if w.src.holds(locRead, op.Loc) {
		loc = int(locRead) // the location as read
	} else if loc, err = w.locIndex(op.Loc); err != nil {
		return opError(op, "location: %w", err)
	}
	e.varint(uint64(loc))

	attrs := op.Attrs
	var propIdx = -1
	merge := w.version < vNativeProperties && op.Props != nil
	if w.version >= vNativeProperties {
		if propIdx, merge, err = w.propsIndex(op, rec, w.opNames[nameIdx].registered); err != nil {
			return err
		}
	}
	if merge {
		pd, ok := op.Props.(*graph.DictAttr)
		if !ok {
			return fmt.Errorf("%w: op %s: properties %s cannot be written as attributes (bytecode version %d has no properties before version 5, or the op is registered with a layout anefix does not know)",
				errNeedsGeneric, op.Describe(), op.Props.String(), w.version)
		}
		for _, en := range pd.Entries {
			attrs = attrs.With(en.Name, en.Value)
		}
	}
	if attrs.Len() > 0 {
		mask |= maskAttrs
		i := int(attrsRead)
		if attrs != op.Attrs || !w.src.holdsAttr(i, attrs) {
			if i, err = w.attrIndex(attrs); err != nil {
				return opError(op, "attributes: %w", err)
			}
		}
		e.varint(uint64(i))
	}
	if propIdx >= 0 {
		mask |= maskProperties
		e.varint(uint64(propIdx))
	}
	if n := op.NumResults(); n > 0 {
		mask |= maskResults
		e.varint(uint64(n))
		for _, r := range op.Results() {
			i, err := w.typeIndex(r.Type())
			if err != nil {
				return opError(op, "result type: %w", err)
			}
			e.varint(uint64(i))
		}
	}
	if n := op.NumOperands(); n > 0 {
		mask |= maskOperands
		e.varint(uint64(n))
		for k, v := range op.Operands() {
			if v == nil {
				return opError(op, "operand %d is nil", k)
			}
			id, ok := w.valueID(v)
			if !ok {
				return opError(op, "operand %d uses a value that is not visible here (defined outside an isolated region or not in the module)", k)
			}
			e.varint(uint64(id))
		}
	}
	if n := len(op.Successors()); n > 0 {
		mask |= maskSuccessors
		e.varint(uint64(n))
		for _, s := range op.Successors() {
			bi, ok := blocks[s]
			if !ok {
				return opError(op, "successor block is not in the op's region")
			}
			e.varint(uint64(bi))
		}
	}
	if w.version >= vUseListOrdering && w.useLists(e, op.Results()) {
		mask |= maskUseListOrder
	}
	if n := len(op.Regions); n > 0 {
		mask |= maskRegions
		isolated := w.isolatedOp(op, rec)
		e.varintFlag(uint64(n), isolated)
		if isolated {
			saved := w.scope
			w.nextScope++
			w.scope = w.nextScope
			sub := &encoder{}
			for _, r := range op.Regions {
				if err := w.region(sub, r, 0); err != nil {
					return err
				}
			}
			w.scope = saved
			if w.version >= vLazyLoading {
				e.buf = appendSectionHeader(e.buf, 0, secIR, uint64(sub.len()), 1)
			}
			e.raw(sub.buf)
		} else {
			for _, r := range op.Regions {
				if err := w.region(e, r, childBase); err != nil {
					return err
				}
			}
		}
	}
	e.buf[maskAt] = mask
	return nil
}

// holds says whether the input's attribute entry i decoded to location l.
func (src *Source) holds(i int32, l graph.Loc) bool {
	return src != nil && i >= 0 && int(i) < len(src.locs) && l != nil && src.locs[i] == l
}

// holdsAttr says whether the input's attribute entry i decoded to d.
func (src *Source) holdsAttr(i int, d *graph.DictAttr) bool {
	return src != nil && i >= 0 && i < len(src.attrs) && d != nil && src.attrs[i] == graph.Attr(d)
}

// isolatedOp says whether op's regions are IsolatedFromAbove: as read; for
// a new op, as the input's ops of the same name were; else by name (the
// registered ops anefix knows). Encoding an isolated op's regions inline is
// still valid, just not lazily loadable.
func (w *irWriter) isolatedOp(op *graph.Operation, rec *opRecord) bool {
	if rec != nil {
		return rec.isolated
	}
	if w.isolatedNames == nil {
		w.isolatedNames = map[string]bool{"builtin.module": true, "func.func": true}
		if w.src != nil {
			for _, e := range w.src.ops {
				if e.rec.isolated {
					w.isolatedNames[e.op.Name] = true
				}
			}
		}
	}
	return w.isolatedNames[op.Name]
}

func (w *irWriter) region(e *encoder, r *graph.Region, base int) error {
	e.varint(uint64(len(r.Blocks)))
	if len(r.Blocks) == 0 {
		return nil
	}
	next := base
	for _, b := range r.Blocks {
		ids := &blockIDs{scope: uint32(w.scope), args: uint32(next), results: make([]uint32, 0, b.Len())}
		next += len(b.Args())
		for o := b.First(); o != nil; o = o.Next() {
			ids.results = append(ids.results, uint32(next))
			next += o.NumResults()
		}
		w.blocks[b] = ids
	}
	e.varint(uint64(next - base))
	blockIdx := make(map[*graph.Block]int, len(r.Blocks))
	for i, b := range r.Blocks {
		blockIdx[b] = i
	}
	for _, b := range r.Blocks {
		args := b.Args()
		e.varintFlag(uint64(b.Len()), len(args) > 0)
		if len(args) > 0 {
			e.varint(uint64(len(args)))
			for _, a := range args {
				ti, err := w.typeIndex(a.Type())
				if err != nil {
					return fmt.Errorf("bytecode: block argument type: %w", err)
				}
				loc := a.Loc
				if loc == nil {
					loc = graph.Unknown
				}
				_, unknown := loc.(graph.UnknownLoc)
				if w.version >= vElideUnknownArgLoc {
					e.varintFlag(uint64(ti), !unknown)
					if unknown {
						continue
					}
				} else {
					e.varint(uint64(ti))
				}
				li, err := w.locIndex(loc)
				if err != nil {
					return fmt.Errorf("bytecode: block argument location: %w", err)
				}
				e.varint(uint64(li))
			}
			if w.version >= vUseListOrdering {
				at := e.len()
				e.byte(0)
				if w.useLists(e, args) {
					e.buf[at] = 1
					if f, ok := w.src.argUseFlags[b]; ok {
						e.buf[at] = f
					}
				}
			}
		}
		for o := b.First(); o != nil; o = o.Next() {
			if err := w.op(e, o, blockIdx, next); err != nil {
				return err
			}
		}
	}
	return nil
}

// useLists re-emits the use-list orders read from the input for values whose
// uses are unchanged; orders of changed values are dropped (they only
// affect the in-memory order of uses, never the meaning).
func (w *irWriter) useLists(e *encoder, vals []*graph.Value) bool {
	if w.src == nil || len(w.src.uses) == 0 {
		return false
	}
	var keep []int
	for i, v := range vals {
		rec := w.src.uses[v]
		if rec != nil && slices.Equal(rec.uses, v.Uses()) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return false
	}
	if len(vals) > 1 {
		e.varint(uint64(len(keep)))
	}
	for _, i := range keep {
		rec := w.src.uses[vals[i]]
		if len(vals) > 1 {
			e.varint(uint64(i))
		}
		e.varintFlag(uint64(len(rec.indices)), rec.indexPair)
		for _, x := range rec.indices {
			e.varint(x)
		}
	}
	return true
}

// propsIndex returns the properties table index for op, or -1 for none.
// merge asks the caller to put the properties into the attribute
// dictionary instead: for a registered op whose native layout anefix does
// not know, MLIR moves inherent attributes found there into the properties
// (as it does for files older than version 5).
func (w *irWriter) propsIndex(op *graph.Operation, rec *opRecord, registered bool) (idx int, merge bool, err error) {
	if rec != nil && rec.hasProps && op.Props == rec.props && w.f != nil {
		if np, ok := op.Props.(*NativeProps); ok {
			if err := w.checkNative(op, rec, np); err != nil {
				return 0, false, err
			}
		}
		return int(rec.propIdx), false, nil
	}
	if op.Props == nil {
		return -1, false, nil
	}
	var blob []byte
	switch p := op.Props.(type) {
	case *NativeProps:
		if rec == nil || p.src != w.f {
			return 0, false, fmt.Errorf("%w: op %s carries native properties from another file", errNeedsGeneric, op.Describe())
		}
		if err := w.checkNative(op, rec, p); err != nil {
			return 0, false, err
		}
		blob = p.Blob
	default:
		if registered {
			layout := w.layoutFor(op, rec)
			if layout == nil {
				return -1, true, nil
			}
			b, err := w.encodeNative(op, layout.Fields)
			if err != nil {
				return 0, false, err
			}
			blob = b
		} else {
			i, err := w.attrIndex(op.Props)
			if err != nil {
				return 0, false, opError(op, "properties: %w", err)
			}
			blob = appendVarint(nil, uint64(i))
		}
	}
	if i, ok := w.propKey[string(blob)]; ok {
		return i, false, nil
	}
	w.props = append(w.props, blob)
	w.propKey[string(blob)] = len(w.props) - 1
	return len(w.props) - 1, false, nil
}

// layoutFor picks the native layout to encode op's properties with: the
// one they were read with; else the one confirmed for the MLIR version the
// output's producer names; else the one the input used for ops of the same
// name; else a layout registered without version knowledge. Nil means none
// is known to fit the reader, and the properties go into the attribute
// dictionary, which every MLIR version moves into the properties of a
// registered op when reading (checked with mlir-opt 19 and 22).
func (w *irWriter) layoutFor(op *graph.Operation, rec *opRecord) *nativeLayout {
	if rec != nil && rec.layout != nil {
		return rec.layout
	}
	if l := layoutForMLIR(op.Name, w.major); l != nil {
		return l
	}
	if w.src != nil {
		if l := w.src.layouts[op.Name]; l != nil {
			return l
		}
	}
	if ls := layoutsOf(op.Name); len(ls) == 1 && len(ls[0].MLIR) == 0 {
		return ls[0]
	}
	return nil
}

// checkNative refuses to carry an opaque native blob when the op changed in
// a way the blob may encode (operand segments, results, regions), or when
// the output version differs in how native properties are laid out.
func (w *irWriter) checkNative(op *graph.Operation, rec *opRecord, p *NativeProps) error {
	if rec == nil || int(rec.nOperands) != op.NumOperands() || int(rec.nResults) != op.NumResults() ||
		int(rec.nRegions) != len(op.Regions) || int(rec.nSuccs) != len(op.Successors()) {
		return fmt.Errorf("%w: op %s was changed, and its native (op-specific) properties have a layout anefix cannot prove", errNeedsGeneric, op.Describe())
	}
	if (w.version >= vODSSegmentSizes) != (w.f.version >= vODSSegmentSizes) {
		return fmt.Errorf("%w: op %s has native properties whose layout may differ between bytecode versions %d and %d; keep version %d",
			errNeedsGeneric, op.Describe(), w.f.version, w.version, w.f.version)
	}
	return nil
}

func (w *irWriter) encodeNative(op *graph.Operation, layout []propField) ([]byte, error) {
	d, ok := op.Props.(*graph.DictAttr)
	if !ok {
		return nil, opError(op, "properties %s are not a dictionary", op.Props.String())
	}
	known := map[string]bool{}
	var e encoder
	for _, fld := range layout {
		known[fld.Name] = true
		a := d.Get(fld.Name)
		if a == nil {
			if !fld.Optional {
				return nil, opError(op, "required property %s is missing", fld.Name)
			}
			e.varint(0)
			continue
		}
		i, err := w.attrIndex(a)
		if err != nil {
			return nil, opError(op, "property %s: %w", fld.Name, err)
		}
		if fld.Optional {
			e.varintFlag(uint64(i), true)
		} else {
			e.varint(uint64(i))
		}
	}
	for _, en := range d.Entries {
		if !known[en.Name] {
			return nil, opError(op, "property %s is not part of %s's properties; move it to the attribute dictionary", en.Name, op.Name)
		}
	}
	return e.buf, nil
}

// ---- output ----

func (w *writer) emit(out io.Writer, producer string, ir []byte) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	rc, _ := out.(rangeCopier)
	var off int64
	write := func(b []byte) error {
		n, err := bw.Write(b)
		off += int64(n)
		return err
	}
	section := func(id byte, body []byte, align uint64) error {
		if err := write(appendSectionHeader(nil, off, id, uint64(len(body)), align)); err != nil {
			return err
		}
		return write(body)
	}
	// Resource keys and external group keys are strings too: add them
	// before the string section is built.
	resOff, resBody, resAlign, blobs := w.resourceSections()
	head := append(magic[:0:0], magic[:]...)
	head = appendVarint(head, w.version)
	head = append(head, producer...)
	head = append(head, 0)
	if err := write(head); err != nil {
		return err
	}
	if err := section(secDialect, w.dialectSection(), 1); err != nil {
		return err
	}
	offs := w.attrTypeOffsets()
	if err := section(secAttrTypeOffset, offs, 1); err != nil {
		return err
	}
	// The entries are written where they are, not gathered into one buffer
	// first: a large array attribute's encoding is as large as the input.
	dataLen := 0
	for _, t := range [][]tableEntry{w.attrs, w.types} {
		for _, en := range t {
			dataLen += int(en.n)
		}
	}
	if err := write(appendSectionHeader(nil, off, secAttrType, uint64(dataLen), 1)); err != nil {
		return err
	}
	for _, t := range [][]tableEntry{w.attrs, w.types} {
		for _, en := range t {
			if err := write(w.store.bytes(en)); err != nil {
				return err
			}
		}
	}
	if err := section(secIR, ir, 1); err != nil {
		return err
	}
	if err := section(secResourceOffset, resOff, 1); err != nil {
		return err
	}
	// The resource section: small encoded parts from memory, blob payloads
	// streamed from their sources.
	total := uint64(0)
	for _, p := range resBody {
		total += uint64(len(p.head)) + uint64(p.n)
	}
	if err := write(appendSectionHeader(nil, off, secResource, total, resAlign)); err != nil {
		return err
	}
	for i, p := range resBody {
		if err := write(p.head); err != nil {
			return err
		}
		if p.n > 0 {
			n, err := copyBlob(bw, out, rc, blobs[i], p.n)
			off += n
			if err != nil {
				return fmt.Errorf("bytecode: copying resource data: %w", err)
			}
			if n != p.n {
				return fmt.Errorf("bytecode: resource data ended after %d of %d bytes", n, p.n)
			}
		}
	}
	if err := section(secString, w.stringSection(), 1); err != nil {
		return err
	}
	if w.version >= vNativeProperties {
		var e encoder
		e.varint(uint64(len(w.props)))
		for _, p := range w.props {
			e.varint(uint64(len(p)))
			e.raw(p)
		}
		if err := section(secProperties, e.buf, 1); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (w *writer) dialectSection() []byte {
	var e encoder
	e.varint(uint64(len(w.dialects)))
	for _, d := range w.dialects {
		ni := w.addString(d.name)
		if w.version < vDialectVersioning {
			e.varint(uint64(ni))
			continue
		}
		e.varintFlag(uint64(ni), d.version != nil)
		if d.version != nil {
			e.buf = appendSectionHeader(e.buf, 0, secDialectVersions, uint64(len(d.version)), 1)
			e.raw(d.version)
		}
	}
	if w.version >= vElideUnknownArgLoc {
		e.varint(uint64(len(w.opNames)))
	}
	for i := 0; i < len(w.opNames); {
		j := i
		for j < len(w.opNames) && w.opNames[j].dialect == w.opNames[i].dialect {
			j++
		}
		e.varint(uint64(w.opNames[i].dialect))
		e.varint(uint64(j - i))
		for _, n := range w.opNames[i:j] {
			si := w.addString(n.name)
			if w.version >= vNativeProperties {
				e.varintFlag(uint64(si), n.registered)
			} else {
				e.varint(uint64(si))
			}
		}
		i = j
	}
	return e.buf
}

// attrTypeOffsets is the attribute/type offset section; the data section is
// the entries' encodings in table order (see emit).
func (w *writer) attrTypeOffsets() []byte {
	var o encoder
	o.varint(uint64(len(w.attrs)))
	o.varint(uint64(len(w.types)))
	group := func(entries []tableEntry) {
		for i := 0; i < len(entries); {
			j := i
			for j < len(entries) && entries[j].dialect == entries[i].dialect {
				j++
			}
			o.varint(uint64(entries[i].dialect))
			o.varint(uint64(j - i))
			for _, en := range entries[i:j] {
				o.varintFlag(uint64(en.n), en.custom)
			}
			i = j
		}
	}
	group(w.attrs)
	group(w.types)
	return o.buf
}

func (w *writer) stringSection() []byte {
	var e encoder
	e.varint(uint64(len(w.strings)))
	for i := len(w.strings) - 1; i >= 0; i-- {
		e.varint(uint64(len(w.strings[i]) + 1))
	}
	for _, s := range w.strings {
		e.cstring(s)
	}
	return e.buf
}

type resPart struct {
	head []byte // encoded entry up to the blob payload
	n    int64  // payload bytes to stream after head
}

// resourceSections lays out the resource offset section and the resource
// section. Blob payloads are aligned relative to the section start, which
// the section header aligns to the largest blob alignment.
func (w *writer) resourceSections() (offs []byte, parts []resPart, align uint64, blobs []graph.BlobSource) {
	var o encoder
	align = 1
	pos := int64(0)
	entry := func(key string, r *graph.Resource) {
		ki := w.addString(key)
		o.varint(uint64(ki))
		var h []byte
		var n int64
		var src graph.BlobSource
		kind := byte(resBlob)
		if r != nil {
			kind = byte(r.Kind)
			switch r.Kind {
			case graph.BlobResource:
				if r.Blob != nil {
					a := max(r.Alignment, 1)
					align = max(align, a)
					h = appendVarint(h, a)
					h = appendVarint(h, uint64(r.Blob.Size()))
					for (pos+int64(len(h)))&int64(a-1) != 0 {
						h = append(h, alignmentByte)
					}
					n, src = r.Blob.Size(), r.Blob
				}
			case graph.BoolResource:
				if r.Bool {
					h = []byte{1}
				} else {
					h = []byte{0}
				}
			case graph.StringResource:
				h = appendVarint(h, uint64(w.addString(r.String)))
			}
		}
		o.varint(uint64(int64(len(h)) + n))
		o.byte(kind)
		parts = append(parts, resPart{head: h, n: n})
		blobs = append(blobs, src)
		pos += int64(len(h)) + n
	}
	// External resource groups, in order of first appearance.
	var groups []string
	for _, r := range w.external {
		if !slices.Contains(groups, r.Dialect) {
			groups = append(groups, r.Dialect)
		}
	}
	o.varint(uint64(len(groups)))
	for _, g := range groups {
		o.varint(uint64(w.addString(g)))
		var in []*graph.Resource
		for _, r := range w.external {
			if r.Dialect == g {
				in = append(in, r)
			}
		}
		o.varint(uint64(len(in)))
		for _, r := range in {
			entry(r.Key, r)
		}
	}
	for i := 0; i < len(w.resources); {
		j := i
		for j < len(w.resources) && w.resources[j].dialect == w.resources[i].dialect {
			j++
		}
		o.varint(uint64(w.dialect(w.resources[i].dialect)))
		o.varint(uint64(j - i))
		for _, r := range w.resources[i:j] {
			entry(r.key, r.res)
		}
		i = j
	}
	return o.buf, parts, align, blobs
}

// bigBlob is the size from which blobs bypass the write buffer.
const bigBlob = 256 << 10

type writerOnly struct{ io.Writer }
type readerOnly struct{ io.Reader }

// copyBlob copies n bytes of blob to the output. A blob that is a range of a
// file goes file to file in the kernel when the output allows it: through
// the output's CopyRange, or, for an *os.File output, copy_file_range via
// os.File.ReadFrom on a second descriptor of the input (opened through
// /proc/self/fd, so it works for unlinked spool files and never moves the
// caller's file offset). Otherwise large blobs are copied in 1 MiB chunks
// past the write buffer, small ones through it.
func copyBlob(bw *bufio.Writer, out io.Writer, rc rangeCopier, blob graph.BlobSource, n int64) (int64, error) {
	sb, isSection := blob.(*graph.SectionBlob)
	var src *os.File
	if isSection && sb.N == n {
		src, _ = sb.R.(*os.File)
	}
	if src != nil && rc != nil {
		if err := bw.Flush(); err != nil {
			return 0, err
		}
		if err := rc.CopyRange(src, sb.Offset, n); err != nil {
			return 0, err
		}
		return n, nil
	}
	if of, ok := out.(*os.File); ok && src != nil && n >= bigBlob {
		if dup, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", src.Fd())); err == nil {
			defer dup.Close()
			if _, err := dup.Seek(sb.Offset, io.SeekStart); err == nil {
				if err := bw.Flush(); err != nil {
					return 0, err
				}
				return of.ReadFrom(&io.LimitedReader{R: dup, N: n})
			}
		}
	}
	sr := io.NewSectionReader(blob, 0, n)
	if n >= bigBlob {
		if err := bw.Flush(); err != nil {
			return 0, err
		}
		return io.CopyBuffer(writerOnly{out}, readerOnly{sr}, make([]byte, 1<<20))
	}
	return io.Copy(bw, sr)
}
