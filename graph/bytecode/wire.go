package bytecode

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/anefix/anefix/graph"
)

// magic is the 4-byte signature every MLIR bytecode file starts with ("MLïR").
var magic = [4]byte{'M', 'L', 0xEF, 'R'}

// Section IDs of the bytecode format (mlir/Bytecode/Encoding.h).
const (
	secString          = 0
	secDialect         = 1
	secAttrType        = 2
	secAttrTypeOffset  = 3
	secIR              = 4
	secResource        = 5
	secResourceOffset  = 6
	secDialectVersions = 7
	secProperties      = 8
	numSections        = 9
)

// Bytecode versions and the feature each one introduced.
const (
	vDialectVersioning  = 1
	vLazyLoading        = 2 // isolated regions in their own IR section
	vUseListOrdering    = 3
	vElideUnknownArgLoc = 4
	vNativeProperties   = 5
	vODSSegmentSizes    = 6 // operand segment sizes as native properties
	minVersion          = 0
	// MaxVersion is the newest bytecode version read and written (and
	// --bytecode-version's largest value).
	MaxVersion           = 6
	alignmentByte        = 0xCB
	maxReasonableEntries = 1 << 31
)

// Op encoding mask bits.
const (
	maskAttrs        = 1 << 0
	maskResults      = 1 << 1
	maskOperands     = 1 << 2
	maskSuccessors   = 1 << 3
	maskRegions      = 1 << 4
	maskUseListOrder = 1 << 5
	maskProperties   = 1 << 6
)

var sectionNames = [...]string{"String", "Dialect", "AttrType", "AttrTypeOffset", "IR", "Resource", "ResourceOffset", "DialectVersions", "Properties"}

func sectionName(id byte) string {
	if int(id) < len(sectionNames) {
		return fmt.Sprintf("%s (%d)", sectionNames[id], id)
	}
	return fmt.Sprintf("unknown (%d)", id)
}

// formatError reports malformed bytecode at a byte offset of the input.
type formatError struct {
	File   string
	Offset int64 // absolute byte offset in the file
	Msg    string
}

func (e *formatError) Error() string {
	name := e.File
	if name == "" {
		name = "<bytecode>"
	}
	return fmt.Sprintf("%s: byte offset %d: %s", name, e.Offset, e.Msg)
}

// decoder reads primitives from a byte slice that sits at file offset base.
// Every read is bounds-checked; errors carry the absolute offset.
type decoder struct {
	buf  []byte
	pos  int
	base int64 // file offset of buf[0]
	file string
}

func newDecoder(buf []byte, base int64, file string) *decoder {
	return &decoder{buf: buf, base: base, file: file}
}

func (d *decoder) errorf(format string, args ...any) error {
	return &formatError{File: d.file, Offset: d.base + int64(d.pos), Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) empty() bool    { return d.pos >= len(d.buf) }
func (d *decoder) remaining() int { return len(d.buf) - d.pos }
func (d *decoder) offset() int64  { return d.base + int64(d.pos) }

func (d *decoder) byte() (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, d.errorf("unexpected end of data reading a byte")
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(d.remaining()) {
		return nil, d.errorf("length %d exceeds the %d bytes that remain", n, d.remaining())
	}
	b := d.buf[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

// varint reads a PrefixVarInt: the count of trailing zero bits of the first
// byte is the number of extra bytes; a zero first byte means 8 extra bytes.
func (d *decoder) varint() (uint64, error) {
	first, err := d.byte()
	if err != nil {
		return 0, err
	}
	if first&1 != 0 {
		return uint64(first >> 1), nil
	}
	if first == 0 {
		b, err := d.bytes(8)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b), nil
	}
	n := bits.TrailingZeros8(first)
	b, err := d.bytes(uint64(n))
	if err != nil {
		return 0, err
	}
	v := uint64(first)
	for i, c := range b {
		v |= uint64(c) << (8 * (i + 1))
	}
	return v >> (n + 1), nil
}

func (d *decoder) signedVarint() (int64, error) {
	v, err := d.varint()
	return unzigzag(v), err
}

func (d *decoder) varintFlag() (uint64, bool, error) {
	v, err := d.varint()
	return v >> 1, v&1 != 0, err
}

// count reads a varint used as an element count and checks that at least
// minBytes*count bytes remain, so absurd counts fail before any allocation.
func (d *decoder) count(what string, minBytes int) (int, error) {
	at := d.offset()
	v, err := d.varint()
	if err != nil {
		return 0, err
	}
	if minBytes > 0 && v > uint64(d.remaining()/minBytes) || v > maxReasonableEntries {
		return 0, &formatError{File: d.file, Offset: at, Msg: fmt.Sprintf("%s count %d is larger than the %d bytes that remain", what, v, d.remaining())}
	}
	return int(v), nil
}

func (d *decoder) cstring() (string, error) {
	for i := d.pos; i < len(d.buf); i++ {
		if d.buf[i] == 0 {
			s := string(d.buf[d.pos:i])
			d.pos = i + 1
			return s, nil
		}
	}
	return "", d.errorf("string is not NUL-terminated before the end of its section")
}

// alignTo skips 0xCB padding until the absolute file offset is aligned.
func (d *decoder) alignTo(align uint64) error {
	if !graph.ValidAlignment(align) {
		return d.errorf("alignment %d is not a power of two up to %d", align, graph.MaxBlobAlignment)
	}
	for uint64(d.offset())&(align-1) != 0 {
		b, err := d.byte()
		if err != nil {
			return err
		}
		if b != alignmentByte {
			d.pos--
			return d.errorf("expected alignment padding byte 0xCB, found 0x%02X", b)
		}
	}
	return nil
}

// section reads a section header and returns its ID and a decoder over its
// contents.
func (d *decoder) section() (byte, *decoder, error) {
	at := d.offset()
	idAlign, err := d.byte()
	if err != nil {
		return 0, nil, err
	}
	length, err := d.varint()
	if err != nil {
		return 0, nil, err
	}
	id := idAlign & 0x7f
	if id >= numSections {
		return 0, nil, &formatError{File: d.file, Offset: at, Msg: fmt.Sprintf("invalid section ID %d", id)}
	}
	if idAlign&0x80 != 0 {
		align, err := d.varint()
		if err != nil {
			return 0, nil, err
		}
		if err := d.alignTo(align); err != nil {
			return 0, nil, err
		}
	}
	start := d.offset()
	body, err := d.bytes(length)
	if err != nil {
		return 0, nil, &formatError{File: d.file, Offset: at, Msg: fmt.Sprintf("section %s claims %d bytes but only %d remain", sectionName(id), length, d.remaining())}
	}
	return id, newDecoder(body, start, d.file), nil
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// encoder appends primitives to a byte slice. Alignment is relative to the
// start of the buffer; the writer places buffers that need alignment at
// offsets aligned to maxAlign.
type encoder struct {
	buf      []byte
	maxAlign uint64
}

func (e *encoder) len() int { return len(e.buf) }
func (e *encoder) byte(b byte) {
	e.room(1)
	e.buf = append(e.buf, b)
}
func (e *encoder) raw(b []byte) {
	e.room(len(b))
	e.buf = append(e.buf, b...)
}

// room makes space for n more bytes, doubling the buffer: append's quarter
// growth for large slices allocated about five times a module's IR.
func (e *encoder) room(n int) {
	if cap(e.buf)-len(e.buf) < n {
		grown := make([]byte, len(e.buf), max(2*cap(e.buf), len(e.buf)+n, 64))
		copy(grown, e.buf)
		e.buf = grown
	}
}
func (e *encoder) signedVarint(v int64) { e.varint(zigzag(v)) }
func (e *encoder) varintFlag(v uint64, flag bool) {
	x := v << 1
	if flag {
		x |= 1
	}
	e.varint(x)
}
func (e *encoder) cstring(s string) { e.buf = append(e.buf, s...); e.buf = append(e.buf, 0) }

// varint appends v as a PrefixVarInt in the fewest bytes.
func (e *encoder) varint(v uint64) {
	e.room(9)
	e.buf = appendVarint(e.buf, v)
}

func appendVarint(buf []byte, v uint64) []byte {
	if v < 1<<7 {
		return append(buf, byte(v<<1|1))
	}
	// n extra bytes hold 7*(n+1) bits of value.
	n := (bits.Len64(v) - 1) / 7
	if n >= 8 {
		buf = append(buf, 0)
		return binary.LittleEndian.AppendUint64(buf, v)
	}
	enc := (v<<1 | 1) << n
	for i := 0; i <= n; i++ {
		buf = append(buf, byte(enc>>(8*i)))
	}
	return buf
}

func varintLen(v uint64) int {
	if v < 1<<7 {
		return 1
	}
	n := (bits.Len64(v) - 1) / 7
	if n >= 8 {
		return 9
	}
	return n + 1
}

// alignTo pads with 0xCB to a multiple of align (relative to buffer start).
func (e *encoder) alignTo(align uint64) {
	if align > e.maxAlign {
		e.maxAlign = align
	}
	for uint64(len(e.buf))&(align-1) != 0 {
		e.buf = append(e.buf, alignmentByte)
	}
}

// appendSection appends a section with the given body at absolute offset
// fileOff of len(out) (the caller's current output size), aligning as
// needed the way MLIR does: the alignment is only recorded when padding is
// required.
func appendSectionHeader(out []byte, fileOff int64, id byte, length uint64, align uint64) []byte {
	codeAt := len(out)
	out = append(out, id)
	out = appendVarint(out, length)
	if align > 1 {
		cur := fileOff + int64(len(out)-codeAt)
		if uint64(cur)&(align-1) != 0 {
			out = appendVarint(out, align)
			cur = fileOff + int64(len(out)-codeAt)
			for uint64(cur)&(align-1) != 0 {
				out = append(out, alignmentByte)
				cur++
			}
			out[codeAt] |= 0x80
		}
	}
	return out
}
