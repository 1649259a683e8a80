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

func (s *entrySet) hash(en tableEntry) uint64 {
	h := maphash.Bytes(s.seed, en.data)
	k := uint64(en.dialect) << 1
	if en.custom {
		k |= 1
	}
	// Mix the dialect and kind in (a multiplicative step, then a shift so
	// the high bits reach the low bits used for the slot).
	h ^= (k + 1) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

func sameEntry(a, b tableEntry) bool {
	return a.dialect == b.dialect && a.custom == b.custom && bytes.Equal(a.data, b.data)
}

// find returns the index in table of an entry equal to en.
func (s *entrySet) find(table []tableEntry, en tableEntry) (int, bool) {
	mask := uint64(len(s.slots) - 1)
	for p := s.hash(en) & mask; ; p = (p + 1) & mask {
		v := s.slots[p]
		if v == 0 {
			return 0, false
		}
		if sameEntry(table[v-1], en) {
			return int(v - 1), true
		}
	}
}

// insert records table[i]; the caller has checked that no equal entry is
// recorded.
func (s *entrySet) insert(table []tableEntry, i int) {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]int32, 2*len(old))
		s.n = 0
		for _, v := range old {
			if v != 0 {
				s.place(table, int(v-1))
			}
		}
	}
	s.place(table, i)
}

func (s *entrySet) place(table []tableEntry, i int) {
	mask := uint64(len(s.slots) - 1)
	p := s.hash(table[i]) & mask
	for s.slots[p] != 0 {
		p = (p + 1) & mask
	}
	s.slots[p] = int32(i + 1)
	s.n++
}
