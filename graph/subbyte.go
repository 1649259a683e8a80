package graph

// Sub-byte integer storage.
//
// Core AI stores a dense_resource blob of a sub-byte integer element type
// (ui1, ui2, ui3, ui4, ui6, si4, …) packed: element i holds bits
// [i·w, (i+1)·w) of the blob read as one little-endian bit stream (bit 0 of
// byte 0 first), ceil(n·w/8) bytes in all, the last byte zero-padded.
// Facts: apple/coreai-torch coreai_torch/_compression/_intx.py
// (_pack_uint1/2/4/6 lay the values out this way: 4-bit low nibble first,
// 6-bit four values in three bytes), coreai_torch/_custom_to_core.py
// (_qmin_constant writes a dense_resource of ceil(bits·n/8) packed bytes
// "matching the C++ lowering"), apple/coreai-optimization
// src/coreai_opt/coreai_utils/_utils/graph_utils.py (sub-byte constants are
// packed before create_elements_attr) and coreai-torch's
// tests/compression/test_compression.py (sub-byte palette indices print as
// dense_resource, 8-bit ones as dense<…>). Guess: 3-bit values (pack_uintx
// has no 3-bit case, though palettization offers n_bits=3) follow the same
// bit stream.
//
// An inline dense<…> attribute instead stores each element in a whole byte
// (MLIR's dense storage, DenseElementsAttr.Raw), and so did anefix's own
// earlier files: a reader takes a blob of n bytes as one element per byte
// and a blob of PackedSize(n, w) bytes as packed (for n = 1 the two agree).

// SubByteWidth is t's bit width when t is an integer type narrower than a
// byte other than i1 (MLIR's bool), else 0.
func SubByteWidth(t Type) int {
	it, ok := t.(*IntegerType)
	if !ok || it.Width >= 8 || (it.Width == 1 && it.Signedness == Signless) {
		return 0
	}
	return it.Width
}

// PackedSize is the byte length of n packed elements of w bits.
func PackedSize(n int64, w int) int64 { return (n*int64(w) + 7) / 8 }

// PackUnit is the smallest run of whole elements that fills whole bytes:
// elems elements of w bits in bytes bytes (w=4: 2 in 1; w=6: 4 in 3; w=3:
// 8 in 3). A packed range that starts at a multiple of bytes starts at
// element (offset/bytes)·elems.
func PackUnit(w int) (elems, bytes int) {
	g := gcd(w, 8)
	return 8 / g, w / g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// PackBits packs vals (element 0 at bit 0) into dst as w-bit fields, LSB
// first; dst must hold PackedSize(len(vals), w) bytes. Each value is masked
// to w bits (a negative si4 is stored as its two's-complement low bits).
func PackBits(dst []byte, vals []uint8, w int) {
	switch w {
	case 8:
		copy(dst, vals)
		return
	case 4: // the common case: two per byte, low nibble first
		n := len(vals) / 2
		for i := 0; i < n; i++ {
			dst[i] = vals[2*i]&15 | vals[2*i+1]<<4
		}
		if len(vals)%2 == 1 {
			dst[n] = vals[2*n] & 15
		}
		return
	}
	var acc uint64
	nb := 0
	j := 0
	mask := uint64(1)<<w - 1
	for _, v := range vals {
		acc |= (uint64(v) & mask) << nb
		nb += w
		for nb >= 8 {
			dst[j] = byte(acc)
			j++
			acc >>= 8
			nb -= 8
		}
	}
	if nb > 0 {
		dst[j] = byte(acc)
	}
}

// UnpackBits reads n w-bit fields from src (packed as PackBits writes
// them) into dst[:n] as unsigned values.
func UnpackBits(dst []uint8, src []byte, n int, w int) {
	var acc uint64
	nb := 0
	j := 0
	mask := uint64(1)<<w - 1
	for i := 0; i < n; i++ {
		for nb < w {
			acc |= uint64(src[j]) << nb
			j++
			nb += 8
		}
		dst[i] = uint8(acc & mask)
		acc >>= w
		nb -= w
	}
}
