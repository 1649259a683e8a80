package bytecode

import (
	"bytes"
	"hash/maphash"
)

// entrySet finds attribute and type table entries by their content. It is
// an open-addressed hash table of indices into the table (4 bytes a slot,
// at most half full), hashed from the entry itself, so no key is built or
// stored per entry and a lookup compares the bytes in place: an ArrayAttr
// of millions of integers has an entry per integer, and a string key per
// entry in a Go map cost about 45 bytes each.
//
// The hash seed is random per process; it decides only which slots are
// probed, never which entry a lookup returns (the first equal one
// inserted), so output bytes do not depend on it.
type entrySet struct {
	slots []int32 // table index + 1; 0 is an empty slot
	n     int
	seed  maphash.Seed
}

// maxTableEntries bounds a table so its indices fit the set's int32 slots.
const maxTableEntries = 1<<31 - 2

func newEntrySet(size int) entrySet {
	s := entrySet{seed: maphash.MakeSeed()}
	s.slots = make([]int32, slotsFor(size))
	return s
}

// slotsFor is the power of two that keeps n entries at most half full.
func slotsFor(n int) int {
	c := 16
	for c < 2*n {
		c *= 2
	}
	return c
}

func (s *entrySet) hash(dialect int, custom bool, data []byte) uint64 {
	h := maphash.Bytes(s.seed, data)
	k := uint64(dialect) << 1
	if custom {
		k |= 1
	}
	// Mix the dialect and kind in (a multiplicative step, then a shift so
	// the high bits reach the low bits used for the slot).
	h ^= (k + 1) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// find returns the index in table of an entry with this dialect, kind and
// encoding.
func (s *entrySet) find(st *entryStore, table []tableEntry, dialect int, custom bool, data []byte) (int, bool) {
	mask := uint64(len(s.slots) - 1)
	for p := s.hash(dialect, custom, data) & mask; ; p = (p + 1) & mask {
		v := s.slots[p]
		if v == 0 {
			return 0, false
		}
		en := table[v-1]
		if int(en.dialect) == dialect && en.custom == custom && bytes.Equal(st.bytes(en), data) {
			return int(v - 1), true
		}
	}
}

// insert records table[i]; the caller has checked that no equal entry is
// recorded.
func (s *entrySet) insert(st *entryStore, table []tableEntry, i int) {
	if 2*(s.n+1) > len(s.slots) {
		s.rehash(st, table, 2*len(s.slots))
	}
	s.place(st, table, i)
}

// reserve makes room for n more entries without growing again.
func (s *entrySet) reserve(st *entryStore, table []tableEntry, n int) {
	if c := slotsFor(s.n + n); c > len(s.slots) {
		s.rehash(st, table, c)
	}
}

func (s *entrySet) rehash(st *entryStore, table []tableEntry, size int) {
	old := s.slots
	s.slots = make([]int32, size)
	s.n = 0
	for _, v := range old {
		if v != 0 {
			s.place(st, table, int(v-1))
		}
	}
}

func (s *entrySet) place(st *entryStore, table []tableEntry, i int) {
	mask := uint64(len(s.slots) - 1)
	en := table[i]
	p := s.hash(int(en.dialect), en.custom, st.bytes(en)) & mask
	for s.slots[p] != 0 {
		p = (p + 1) & mask
	}
	s.slots[p] = int32(i + 1)
	s.n++
}
