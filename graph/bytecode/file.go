package bytecode

import (
	"fmt"
	"io"
	"math"

	"github.com/anefix/anefix/graph"
)

// rawFile is the bytecode file parsed down to its tables, before any
// attribute, type or op is interpreted. Everything but the resource section
// is held in memory; resources are described by offsets into the input.
type rawFile struct {
	name     string
	r        io.ReaderAt
	size     int64
	version  uint64
	producer string
	sections [numSections]*decoder // nil when absent; resource body stays on disk

	strings  []string
	dialects []rawDialect
	opNames  []rawOpName
	attrs    []rawEntry
	types    []rawEntry
	props    []rawProp

	resOff, resLen int64 // the resource section's body in the file
	extRes         []resGroup
	dialectRes     []resGroup
	resHandles     []resHandle // dialect resource handles in file order
}

type rawDialect struct {
	name    string
	version []byte // dialect version blob; nil when absent
	off     int64
}

type rawOpName struct {
	dialect    int
	name       string // without the dialect prefix
	registered bool   // only meaningful for version >= 5
}

func (f *rawFile) opFullName(i int) string {
	n := f.opNames[i]
	d := f.dialects[n.dialect].name
	if n.name == "" {
		return d
	}
	return d + "." + n.name
}

// rawEntry is one attribute or type table entry: n bytes at file offset
// off of the attribute/type section (24 bytes, with no slice header: a
// module read from text has an entry per op location).
type rawEntry struct {
	off     int64
	n       uint32
	dialect int32
	custom  bool
}

// entryData is the encoding of e (a slice of the attribute/type section).
func (f *rawFile) entryData(e rawEntry) []byte {
	sec := f.sections[secAttrType]
	at := int(e.off - sec.base)
	return sec.buf[at : at+int(e.n) : at+int(e.n)]
}

type rawProp struct {
	data []byte
	off  int64
}

// Resource entry kinds (AsmResourceEntryKind).
const (
	resBlob   = 0
	resBool   = 1
	resString = 2
)

type resGroup struct {
	key     string // external group key; empty for dialect groups
	dialect int    // dialect index for dialect groups
	entries []resEntry
}

type resEntry struct {
	key     string
	kind    byte
	off     int64 // absolute file offset of the encoded entry
	size    int64 // encoded size, including blob header and padding
	align   uint64
	dataOff int64 // blob payload
	dataLen int64
	boolVal bool
	str     string
}

type resHandle struct {
	group, entry int
}

func (f *rawFile) errAt(off int64, format string, args ...any) error {
	return &formatError{File: f.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// readAt reads exactly n bytes at off, reporting short files as format errors.
func (f *rawFile) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, f.errAt(off, "%d bytes claimed but the file has only %d bytes from here", n, max(f.size-off, 0))
	}
	buf := make([]byte, n)
	if _, err := f.r.ReadAt(buf, off); err != nil && !(err == io.EOF && n == int64(len(buf))) {
		return nil, fmt.Errorf("%s: reading %d bytes at offset %d: %w", f.name, n, off, err)
	}
	return buf, nil
}

// parseRawFile reads the header and every section table.
func parseRawFile(r io.ReaderAt, size int64, name string) (*rawFile, error) {
	f := &rawFile{name: name, r: r, size: size}
	// Header: magic, version, producer. The producer is short; read a bounded prefix.
	headLen := min(size, 4096)
	head, err := f.readAt(0, headLen)
	if err != nil {
		return nil, err
	}
	if len(head) < 4 || [4]byte(head[:4]) != magic {
		return nil, f.errAt(0, "not MLIR bytecode (missing the \"ML\\xEFR\" magic number)")
	}
	d := newDecoder(head, 0, name)
	d.pos = 4
	if f.version, err = d.varint(); err != nil {
		return nil, err
	}
	if f.version > MaxVersion {
		return nil, f.errAt(4, "bytecode version %d is newer than the newest supported version %d", f.version, MaxVersion)
	}
	if f.producer, err = d.cstring(); err != nil {
		return nil, f.errAt(int64(d.pos), "producer string is not NUL-terminated within 4096 bytes")
	}
	if err := f.readSections(d.offset()); err != nil {
		return nil, err
	}
	for _, id := range []byte{secString, secDialect, secAttrType, secAttrTypeOffset, secIR} {
		if f.sections[id] == nil {
			return nil, f.errAt(size, "missing required section %s", sectionName(id))
		}
	}
	if f.version >= vNativeProperties && f.sections[secProperties] == nil {
		return nil, f.errAt(size, "missing required section %s for version %d", sectionName(secProperties), f.version)
	}
	if (f.resLen >= 0) != (f.sections[secResourceOffset] != nil) {
		return nil, f.errAt(size, "resource and resource offset sections must appear together")
	}
	if err := f.parseStrings(); err != nil {
		return nil, err
	}
	if err := f.parseProps(); err != nil {
		return nil, err
	}
	if err := f.parseDialects(); err != nil {
		return nil, err
	}
	if err := f.parseResources(); err != nil {
		return nil, err
	}
	if err := f.parseAttrTypeOffsets(); err != nil {
		return nil, err
	}
	return f, nil
}

// readSections walks the top-level section headers. Every section body is
// read into memory except the resource section, which can be gigabytes.
func (f *rawFile) readSections(off int64) error {
	f.resLen = -1
	for off < f.size {
		hdrOff := off
		hdrLen := min(f.size-off, 1+9+9)
		hdr, err := f.readAt(off, hdrLen)
		if err != nil {
			return err
		}
		d := newDecoder(hdr, off, f.name)
		idAlign, _ := d.byte()
		id := idAlign & 0x7f
		length, err := d.varint()
		if err != nil {
			return err
		}
		if id >= numSections {
			return f.errAt(off, "invalid section ID %d", id)
		}
		if idAlign&0x80 != 0 {
			align, err := d.varint()
			if err != nil {
				return err
			}
			if !graph.ValidAlignment(align) {
				return f.errAt(off, "section %s alignment %d is not a power of two up to %d", sectionName(id), align, graph.MaxBlobAlignment)
			}
			pad := int64(0)
			if rem := d.offset() & int64(align-1); rem != 0 {
				pad = int64(align) - rem
			}
			padding, err := f.readAt(d.offset(), pad)
			if err != nil {
				return err
			}
			for i, b := range padding {
				if b != alignmentByte {
					return f.errAt(d.offset()+int64(i), "expected alignment padding byte 0xCB, found 0x%02X", b)
				}
			}
			off = d.offset() + pad
		} else {
			off = d.offset()
		}
		if off > f.size || length > uint64(f.size-off) {
			return f.errAt(hdrOff, "section %s claims %d bytes but the file has only %d bytes left", sectionName(id), length, max(f.size-off, 0))
		}
		if f.sections[id] != nil || (id == secResource && f.resLen >= 0) {
			return f.errAt(off, "duplicate section %s", sectionName(id))
		}
		if id == secResource {
			f.resOff, f.resLen = off, int64(length)
			f.sections[id] = newDecoder(nil, off, f.name)
		} else {
			body, err := f.readAt(off, int64(length))
			if err != nil {
				return err
			}
			f.sections[id] = newDecoder(body, off, f.name)
		}
		off += int64(length)
	}
	return nil
}

func (f *rawFile) parseStrings() error {
	sec := f.sections[secString]
	d := newDecoder(sec.buf, sec.base, f.name)
	n, err := d.count("string", 2)
	if err != nil {
		return err
	}
	f.strings = make([]string, n)
	// One copy of the section for all its strings, not one each.
	data := string(d.buf)
	end := len(d.buf)
	for i := n - 1; i >= 0; i-- {
		l, err := d.varint()
		if err != nil {
			return err
		}
		if l == 0 || l > uint64(end) {
			return d.errorf("string %d has size %d, beyond the string data", i, l)
		}
		start := end - int(l)
		if d.buf[end-1] != 0 {
			return d.errorf("string %d is not NUL-terminated", i)
		}
		f.strings[i] = data[start : end-1]
		end = start
	}
	if d.pos != end {
		return d.errorf("unexpected bytes between the string lengths and their data")
	}
	return nil
}

func (f *rawFile) str(d *decoder) (string, uint64, error) {
	at := d.offset()
	i, err := d.varint()
	if err != nil {
		return "", 0, err
	}
	if i >= uint64(len(f.strings)) {
		return "", 0, f.errAt(at, "string index %d out of range (%d strings)", i, len(f.strings))
	}
	return f.strings[i], i, nil
}

func (f *rawFile) strAt(at int64, i uint64) (string, error) {
	if i >= uint64(len(f.strings)) {
		return "", f.errAt(at, "string index %d out of range (%d strings)", i, len(f.strings))
	}
	return f.strings[i], nil
}

func (f *rawFile) dialectIdx(d *decoder) (int, error) {
	at := d.offset()
	i, err := d.varint()
	if err != nil {
		return 0, err
	}
	if i >= uint64(len(f.dialects)) {
		return 0, f.errAt(at, "dialect index %d out of range (%d dialects)", i, len(f.dialects))
	}
	return int(i), nil
}

func (f *rawFile) parseDialects() error {
	sec := f.sections[secDialect]
	d := newDecoder(sec.buf, sec.base, f.name)
	n, err := d.count("dialect", 1)
	if err != nil {
		return err
	}
	f.dialects = make([]rawDialect, n)
	for i := range f.dialects {
		dl := &f.dialects[i]
		dl.off = d.offset()
		if f.version < vDialectVersioning {
			if dl.name, _, err = f.str(d); err != nil {
				return err
			}
			continue
		}
		idx, hasVersion, err := d.varintFlag()
		if err != nil {
			return err
		}
		if dl.name, err = f.strAt(dl.off, idx); err != nil {
			return err
		}
		if hasVersion {
			id, vd, err := d.section()
			if err != nil {
				return err
			}
			if id != secDialectVersions {
				return f.errAt(dl.off, "dialect %q: expected a dialect version section, found %s", dl.name, sectionName(id))
			}
			dl.version = append([]byte{}, vd.buf...)
		}
	}
	if f.version >= vElideUnknownArgLoc {
		if _, err := d.count("operation name", 1); err != nil {
			return err
		}
	}
	for !d.empty() {
		di, err := f.dialectIdx(d)
		if err != nil {
			return err
		}
		cnt, err := d.count("operation name", 1)
		if err != nil {
			return err
		}
		for j := 0; j < cnt; j++ {
			at := d.offset()
			on := rawOpName{dialect: di}
			var idx uint64
			if f.version < vNativeProperties {
				idx, err = d.varint()
			} else {
				idx, on.registered, err = d.varintFlag()
			}
			if err != nil {
				return err
			}
			if on.name, err = f.strAt(at, idx); err != nil {
				return err
			}
			f.opNames = append(f.opNames, on)
		}
	}
	return nil
}

func (f *rawFile) parseProps() error {
	sec := f.sections[secProperties]
	if sec == nil || len(sec.buf) == 0 {
		return nil
	}
	d := newDecoder(sec.buf, sec.base, f.name)
	n, err := d.count("properties", 1)
	if err != nil {
		return err
	}
	f.props = make([]rawProp, n)
	for i := range f.props {
		l, err := d.varint()
		if err != nil {
			return err
		}
		off := d.offset()
		b, err := d.bytes(l)
		if err != nil {
			return err
		}
		f.props[i] = rawProp{data: b, off: off}
	}
	if !d.empty() {
		return d.errorf("trailing bytes after %d properties entries", n)
	}
	return nil
}

func (f *rawFile) parseAttrTypeOffsets() error {
	sec := f.sections[secAttrTypeOffset]
	data := f.sections[secAttrType]
	d := newDecoder(sec.buf, sec.base, f.name)
	na, err := d.count("attribute", 1)
	if err != nil {
		return err
	}
	nt, err := d.count("type", 1)
	if err != nil {
		return err
	}
	f.attrs = make([]rawEntry, na)
	f.types = make([]rawEntry, nt)
	cur := 0
	fill := func(entries []rawEntry) error {
		i := 0
		for i < len(entries) {
			di, err := f.dialectIdx(d)
			if err != nil {
				return err
			}
			cnt, err := d.count("attribute/type group entry", 1)
			if err != nil {
				return err
			}
			if cnt > len(entries)-i {
				return d.errorf("attribute/type group of %d entries overruns the %d declared", cnt, len(entries))
			}
			for j := 0; j < cnt; j++ {
				size, custom, err := d.varintFlag()
				if err != nil {
					return err
				}
				if size > uint64(len(data.buf)-cur) {
					return d.errorf("attribute/type entry of %d bytes runs past the end of the attribute/type section", size)
				}
				if size > math.MaxUint32 {
					return d.errorf("attribute/type entry of %d bytes is larger than the %d bytes anefix reads", size, uint64(math.MaxUint32))
				}
				entries[i] = rawEntry{dialect: int32(di), custom: custom, n: uint32(size), off: data.base + int64(cur)}
				cur += int(size)
				i++
			}
		}
		return nil
	}
	if err := fill(f.attrs); err != nil {
		return err
	}
	if err := fill(f.types); err != nil {
		return err
	}
	if !d.empty() {
		return d.errorf("trailing bytes in the attribute/type offset section")
	}
	return nil
}

func (f *rawFile) parseResources() error {
	if f.resLen < 0 {
		return nil
	}
	sec := f.sections[secResourceOffset]
	d := newDecoder(sec.buf, sec.base, f.name)
	cur := f.resOff
	end := f.resOff + f.resLen
	parseGroup := func(g *resGroup) error {
		n, err := d.count("resource", 3)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			key, _, err := f.str(d)
			if err != nil {
				return err
			}
			at := d.offset()
			size, err := d.varint()
			if err != nil {
				return err
			}
			kind, err := d.byte()
			if err != nil {
				return err
			}
			if size > uint64(end-cur) {
				return f.errAt(at, "resource %q claims %d bytes but the resource section has only %d left", key, size, end-cur)
			}
			e := resEntry{key: key, kind: kind, off: cur, size: int64(size)}
			if size > 0 {
				if err := f.parseResEntry(&e); err != nil {
					return err
				}
			}
			g.entries = append(g.entries, e)
			cur += int64(size)
		}
		return nil
	}
	ng, err := d.count("external resource group", 2)
	if err != nil {
		return err
	}
	for i := 0; i < ng; i++ {
		key, _, err := f.str(d)
		if err != nil {
			return err
		}
		g := resGroup{key: key, dialect: -1}
		if err := parseGroup(&g); err != nil {
			return err
		}
		f.extRes = append(f.extRes, g)
	}
	for !d.empty() {
		di, err := f.dialectIdx(d)
		if err != nil {
			return err
		}
		g := resGroup{dialect: di}
		if err := parseGroup(&g); err != nil {
			return err
		}
		for j := range g.entries {
			f.resHandles = append(f.resHandles, resHandle{len(f.dialectRes), j})
		}
		f.dialectRes = append(f.dialectRes, g)
	}
	return nil
}

// parseResEntry reads the small header of one resource entry from disk;
// blob payloads are only located, never read.
func (f *rawFile) parseResEntry(e *resEntry) error {
	hdr, err := f.readAt(e.off, min(e.size, 64))
	if err != nil {
		return err
	}
	d := newDecoder(hdr, e.off, f.name)
	switch e.kind {
	case resBlob:
		if e.align, err = d.varint(); err != nil {
			return err
		}
		n, err := d.varint()
		if err != nil {
			return err
		}
		if !graph.ValidAlignment(e.align) {
			return f.errAt(e.off, "resource %q: alignment %d is not a power of two up to %d", e.key, e.align, graph.MaxBlobAlignment)
		}
		start := d.offset()
		pad := (int64(e.align) - start&int64(e.align-1)) & int64(e.align-1)
		padding, err := f.readAt(start, min(pad, e.off+e.size-start))
		if err != nil {
			return err
		}
		for i, b := range padding {
			if b != alignmentByte {
				return f.errAt(start+int64(i), "resource %q: expected alignment padding byte 0xCB, found 0x%02X", e.key, b)
			}
		}
		e.dataOff = start + pad
		// The blob is the rest of the entry after the padding; padding that
		// runs past the entry leaves a negative rest, which no n matches.
		rest := e.off + e.size - e.dataOff
		e.dataLen = rest
		if rest < 0 || n != uint64(rest) {
			return f.errAt(e.off, "resource %q: blob of %d bytes does not match its entry size %d", e.key, n, e.size)
		}
	case resBool:
		b, err := d.byte()
		if err != nil {
			return err
		}
		e.boolVal = b != 0
		if e.size != 1 {
			return f.errAt(e.off, "resource %q: bool entry has %d bytes", e.key, e.size)
		}
	case resString:
		if e.str, _, err = f.str(d); err != nil {
			return err
		}
		if int64(d.pos) != e.size {
			return f.errAt(e.off, "resource %q: trailing bytes in string entry", e.key)
		}
	default:
		return f.errAt(e.off, "resource %q: unknown entry kind %d", e.key, e.kind)
	}
	return nil
}
