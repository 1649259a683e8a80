package plist

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// A binary property list (bplist00): an 8-byte header, the objects, an
// offset table (one big-endian offset per object, offsetSize bytes each),
// and a 32-byte trailer: 6 unused bytes, offsetSize, refSize, then the
// object count, the top object's index and the offset table's offset as
// 64-bit big-endian integers. Containers hold refSize-byte object indices.
// Everything is checked against the file's length before it is used, so a
// count or offset the file cannot hold is an error, not an allocation.

type bplist struct {
	data       []byte
	offsetSize int
	refSize    int
	numObjects uint64
	tableOff   uint64 // where the offset table starts; objects lie before it
	onPath     []bool // objects being decoded, by index: a cycle's test
	b          *budget
}

func (p *bplist) errf(off uint64, format string, args ...any) error {
	return &Error{Format: Binary, Pos: fmt.Sprintf("byte %d", off), Msg: fmt.Sprintf(format, args...)}
}

func (p *bplist) limitErr(off uint64, msg string) error {
	return &Error{Format: Binary, Pos: fmt.Sprintf("byte %d", off), Msg: msg, Limit: p.b.hit}
}

func decodeBinary(data []byte, b *budget) (any, error) {
	if len(data) < 8+32 {
		return nil, &Error{Format: Binary, Msg: fmt.Sprintf("%d bytes are too few for a header and a trailer (40)", len(data))}
	}
	if v := string(data[6:8]); v != "00" {
		return nil, &Error{Format: Binary, Pos: "byte 6", Msg: fmt.Sprintf("version %q; only bplist00 is read", v)}
	}
	n := uint64(len(data))
	tr := data[n-32:]
	p := &bplist{data: data, offsetSize: int(tr[6]), refSize: int(tr[7]), b: b,
		numObjects: binary.BigEndian.Uint64(tr[8:]), tableOff: binary.BigEndian.Uint64(tr[24:])}
	top := binary.BigEndian.Uint64(tr[16:])
	trailerAt := n - 32
	switch {
	case p.offsetSize < 1 || p.offsetSize > 8:
		return nil, p.errf(trailerAt+6, "offset size %d; want 1 to 8 bytes", p.offsetSize)
	case p.refSize < 1 || p.refSize > 8:
		return nil, p.errf(trailerAt+7, "object reference size %d; want 1 to 8 bytes", p.refSize)
	case p.numObjects == 0:
		return nil, p.errf(trailerAt+8, "no objects")
	case p.tableOff < 8 || p.tableOff > trailerAt:
		return nil, p.errf(trailerAt+24, "offset table at byte %d, outside the %d bytes between the header and the trailer", p.tableOff, trailerAt)
	case p.numObjects > (trailerAt-p.tableOff)/uint64(p.offsetSize):
		// Checked by division: numObjects*offsetSize could overflow.
		return nil, p.errf(trailerAt+8, "%d objects, but the offset table (byte %d to %d) holds at most %d offsets of %d bytes; the table is truncated or the count is wrong",
			p.numObjects, p.tableOff, trailerAt, (trailerAt-p.tableOff)/uint64(p.offsetSize), p.offsetSize)
	case top >= p.numObjects:
		return nil, p.errf(trailerAt+16, "top object %d of %d objects", top, p.numObjects)
	}
	// numObjects ≤ the file's length, so this is in proportion to the input.
	p.onPath = make([]bool, p.numObjects)
	return p.object(top, trailerAt+16)
}

// uint reads an n-byte big-endian unsigned integer at off (n ≤ 8; the
// caller has checked the bytes are there).
func (p *bplist) uint(off uint64, n int) uint64 {
	var v uint64
	for _, c := range p.data[off : off+uint64(n)] {
		v = v<<8 | uint64(c)
	}
	return v
}

// need checks that n bytes from off lie before the offset table.
func (p *bplist) need(off, n uint64, what string) error {
	if off > p.tableOff || n > p.tableOff-off {
		return p.errf(off, "%s of %d bytes runs past the object area, which ends at byte %d", what, n, p.tableOff)
	}
	return nil
}

// object decodes object idx; from is where the reference to it was read.
func (p *bplist) object(idx, from uint64) (any, error) {
	if idx >= p.numObjects {
		return nil, p.errf(from, "reference to object %d of %d", idx, p.numObjects)
	}
	off := p.uint(p.tableOff+idx*uint64(p.offsetSize), p.offsetSize)
	if off < 8 || off >= p.tableOff {
		return nil, p.errf(p.tableOff+idx*uint64(p.offsetSize), "object %d at byte %d, outside the object area (byte 8 to %d)", idx, off, p.tableOff)
	}
	marker := p.data[off]
	kind, low := marker>>4, int(marker&0x0f)
	switch kind {
	case 0x0:
		switch marker {
		case 0x00:
			return p.scalar(off, nil, 0)
		case 0x08:
			return p.scalar(off, false, 0)
		case 0x09:
			return p.scalar(off, true, 0)
		}
		return nil, p.errf(off, "object marker 0x%02x is not one of null, false, true", marker)
	case 0x1:
		return p.integer(off, low)
	case 0x2:
		size := uint64(1) << low
		if size != 4 && size != 8 {
			return nil, p.errf(off, "a real of %d bytes; want 4 or 8", size)
		}
		if err := p.need(off+1, size, "real"); err != nil {
			return nil, err
		}
		bits := p.uint(off+1, int(size))
		f := math.Float64frombits(bits)
		if size == 4 {
			f = float64(math.Float32frombits(uint32(bits)))
		}
		return p.scalar(off, f, costScalar)
	case 0x3:
		if marker != 0x33 {
			return nil, p.errf(off, "date marker 0x%02x; want 0x33", marker)
		}
		if err := p.need(off+1, 8, "date"); err != nil {
			return nil, err
		}
		t, err := dateFromSeconds(math.Float64frombits(p.uint(off+1, 8)))
		if err != nil {
			return nil, p.errf(off, "%v", err)
		}
		return p.scalar(off, t, costTime)
	case 0x4, 0x5, 0x6:
		count, start, err := p.count(off, low)
		if err != nil {
			return nil, err
		}
		unit := uint64(1)
		if kind == 0x6 {
			unit = 2
		}
		if count > (p.tableOff-min(start, p.tableOff))/unit {
			return nil, p.errf(off, "a %s of %d %s runs past the object area, which ends at byte %d", map[byte]string{4: "data", 5: "string", 6: "UTF-16 string"}[kind], count, map[bool]string{true: "bytes", false: "characters"}[unit == 1], p.tableOff)
		}
		raw := p.data[start : start+count*unit]
		switch kind {
		case 0x4:
			if msg := p.b.value(costSlice + int64(len(raw))); msg != "" {
				return nil, p.limitErr(off, msg)
			}
			return append([]byte(nil), raw...), nil
		case 0x5:
			// ASCII by the format; a byte above 0x7f is kept as Latin-1 so
			// that no input is refused for it.
			s := latin1(raw)
			if msg := p.b.value(costString + int64(len(s))); msg != "" {
				return nil, p.limitErr(off, msg)
			}
			return s, nil
		default:
			u := make([]uint16, count)
			for i := range u {
				u[i] = binary.BigEndian.Uint16(raw[2*i:])
			}
			s := string(utf16.Decode(u))
			if msg := p.b.value(costString + int64(len(s))); msg != "" {
				return nil, p.limitErr(off, msg)
			}
			return s, nil
		}
	case 0x8:
		n := uint64(low) + 1
		if n > 8 {
			return nil, p.errf(off, "a UID of %d bytes; at most 8 are read", n)
		}
		if err := p.need(off+1, n, "UID"); err != nil {
			return nil, err
		}
		return p.scalar(off, uid(p.uint(off+1, int(n))), costScalar)
	case 0xA, 0xC, 0xD:
		return p.container(idx, off, kind, low)
	}
	return nil, p.errf(off, "object marker 0x%02x is not a bplist00 type", marker)
}

func (p *bplist) scalar(off uint64, v any, cost int64) (any, error) {
	if msg := p.b.value(cost); msg != "" {
		return nil, p.limitErr(off, msg)
	}
	return v, nil
}

// integer reads a 1, 2, 4, 8 or 16-byte integer object. 1, 2 and 4 bytes
// are unsigned, 8 bytes signed; 16 bytes hold an unsigned value above
// MaxInt64 (high half zero) or a sign-extended negative one.
func (p *bplist) integer(off uint64, low int) (any, error) {
	if low > 4 {
		return nil, p.errf(off, "an integer of %d bytes; want 1, 2, 4, 8 or 16", 1<<low)
	}
	size := uint64(1) << low
	if err := p.need(off+1, size, "integer"); err != nil {
		return nil, err
	}
	var v any
	switch size {
	case 1, 2, 4:
		v = int64(p.uint(off+1, int(size)))
	case 8:
		v = int64(p.uint(off+1, 8))
	case 16:
		hi, lo := p.uint(off+1, 8), p.uint(off+9, 8)
		switch {
		case hi == 0 && lo <= math.MaxInt64:
			v = int64(lo)
		case hi == 0:
			v = lo
		case hi == math.MaxUint64 && lo > math.MaxInt64:
			v = int64(lo)
		default:
			return nil, p.errf(off, "a 128-bit integer beyond 64 bits (high half 0x%016x)", hi)
		}
	}
	return p.scalar(off, v, costScalar)
}

// count reads an object's element count: the marker's low nibble, or for
// 0xF an integer object that follows. It returns where the elements start.
func (p *bplist) count(off uint64, low int) (uint64, uint64, error) {
	if low != 0xF {
		return uint64(low), off + 1, nil
	}
	if err := p.need(off+1, 1, "count"); err != nil {
		return 0, 0, err
	}
	m := p.data[off+1]
	if m>>4 != 0x1 || m&0xf > 3 {
		return 0, 0, p.errf(off+1, "the count after marker 0x%02x is not a 1, 2, 4 or 8-byte integer (marker 0x%02x)", p.data[off], m)
	}
	size := uint64(1) << (m & 0xf)
	if err := p.need(off+2, size, "count"); err != nil {
		return 0, 0, err
	}
	return p.uint(off+2, int(size)), off + 2 + size, nil
}

// container decodes an array (0xA), set (0xC) or dictionary (0xD: count
// key references, then count value references).
func (p *bplist) container(idx, off uint64, kind byte, low int) (any, error) {
	count, start, err := p.count(off, low)
	if err != nil {
		return nil, err
	}
	refs := count
	if kind == 0xD {
		if count > math.MaxUint64/2 {
			return nil, p.errf(off, "a dictionary of %d entries, more references than any file holds", count)
		}
		refs = 2 * count
	}
	// Checked before anything is allocated: the references must be in the
	// file, which bounds count by the file's length.
	if refs > (p.tableOff-min(start, p.tableOff))/uint64(p.refSize) {
		return nil, p.errf(off, "a container of %d references (%d bytes each) runs past the object area, which ends at byte %d", refs, p.refSize, p.tableOff)
	}
	if p.onPath[idx] {
		return nil, p.errf(off, "object %d contains itself (a cycle)", idx)
	}
	if msg := p.b.enter(); msg != "" {
		return nil, p.limitErr(off, msg)
	}
	defer p.b.leave()
	p.onPath[idx] = true
	defer func() { p.onPath[idx] = false }()
	ref := func(i uint64) (any, error) {
		at := start + i*uint64(p.refSize)
		return p.object(p.uint(at, p.refSize), at)
	}
	switch kind {
	case 0xA, 0xC:
		if msg := p.b.value(costSlice); msg != "" {
			return nil, p.limitErr(off, msg)
		}
		out := make([]any, 0, min(count, uint64(p.b.lim.MaxValues)))
		for i := range count {
			v, err := ref(i)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if kind == 0xC {
			return set(out), nil
		}
		return out, nil
	}
	if msg := p.b.value(costMapBase + costMapEntry*int64(count)); msg != "" {
		return nil, p.limitErr(off, msg)
	}
	out := make(map[string]any, min(count, uint64(p.b.lim.MaxValues)))
	for i := range count {
		kv, err := ref(i)
		if err != nil {
			return nil, err
		}
		k, ok := kv.(string)
		if !ok {
			return nil, p.errf(start+i*uint64(p.refSize), "dictionary key %d is a %s, not a string", i, KindOf(kv))
		}
		if _, dup := out[k]; dup {
			return nil, p.errf(start+i*uint64(p.refSize), "dictionary key %q appears twice", k)
		}
		v, err := ref(count + i)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// latin1 returns b as a string, each byte above 0x7f as its Latin-1 rune.
func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	out := make([]byte, 0, len(b)+len(b)/2)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return string(out)
}

// dateFromSeconds converts seconds since 2001-01-01 UTC, refusing NaN,
// infinities and magnitudes past ±9e15 s (about 285 million years), which
// no property list means and which would overflow the conversion.
func dateFromSeconds(s float64) (time.Time, error) {
	if math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > 9e15 {
		return time.Time{}, fmt.Errorf("date %v seconds from 2001-01-01 is not a date", s)
	}
	sec, frac := math.Modf(s)
	return time.Unix(appleEpoch.Unix()+int64(sec), int64(frac*1e9)).UTC(), nil
}
