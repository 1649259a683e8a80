package cluster

import (
	"math"
	"math/bits"
	"sync"

	"github.com/anefix/anefix/graph/f16"
)

// Hist16 counts the 16-bit patterns of a group of fp16 or bf16 weights: a
// group has at most 65,536 distinct values however large it is, so its
// clustering works on at most that many weighted points. Patterns are
// counted under an order-preserving key (negative values reversed below
// the positive ones), and a bitmap of the keys seen lets Points walk the
// occupied bins in ascending order and clear them in O(occupied + 1024)
// instead of O(65,536). A Hist16 is reused group after group; it is not
// safe for concurrent use.
type Hist16 struct {
	count [1 << 16]uint32
	seen  [1 << 10]uint64
	value *[1 << 16]float64 // value of each key
	pts   Points            // Points' storage, reused
	bf16  bool              // bf16 patterns: Points carries no fp16 keys
}

// NewHist16 returns an empty histogram of fp16 patterns, or of bf16
// patterns when bf16 is set.
func NewHist16(bf16 bool) *Hist16 {
	keyOnce.Do(initKeyTables)
	if bf16 {
		return &Hist16{value: keyBF16, bf16: true}
	}
	return &Hist16{value: keyF16}
}

var (
	keyOnce         sync.Once
	keyF16, keyBF16 *[1 << 16]float64 // value of each key
)

func initKeyTables() {
	keyF16, keyBF16 = new([1 << 16]float64), new([1 << 16]float64)
	for k := 0; k < 1<<16; k++ {
		p := keyPattern(uint16(k))
		keyF16[k] = f16.ToFloat64(p)
		keyBF16[k] = float64(f16.BF16ToFloat32(p))
	}
}

// Key is the order-preserving key of a sign-magnitude 16-bit float
// pattern: ascending keys are ascending values (−0 just below +0, NaNs
// at the ends).
func Key(p uint16) uint16 {
	if p&0x8000 != 0 {
		return ^p
	}
	return p | 0x8000
}

// keyPattern is Key's inverse.
func keyPattern(k uint16) uint16 {
	if k&0x8000 != 0 {
		return k &^ 0x8000
	}
	return ^k
}

// Add counts the little-endian 16-bit patterns of raw (len(raw) even).
func (h *Hist16) Add(raw []byte) {
	for i := 0; i+1 < len(raw); i += 2 {
		k := Key(uint16(raw[i]) | uint16(raw[i+1])<<8)
		h.seen[k>>6] |= 1 << (k & 63)
		h.count[k]++
	}
}

// AddPattern counts one pattern.
func (h *Hist16) AddPattern(p uint16) {
	k := Key(p)
	if h.count[k] == 0 {
		h.seen[k>>6] |= 1 << (k & 63)
	}
	h.count[k]++
}

// Points returns the counted values as weighted points (±0 merged into
// one value), the number of NaN or infinite patterns (left out), and
// empties the histogram. The points' storage is the histogram's: valid
// until the next call.
func (h *Hist16) Points() (p Points, nonFinite int64) {
	p = Points{V: h.pts.V[:0], W: h.pts.W[:0], K: h.pts.K[:0]}
	defer func() {
		h.pts = p
		if h.bf16 {
			p.K = nil
		}
	}()
	for w := range h.seen {
		word := h.seen[w]
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			k := w<<6 | b
			c := h.count[k]
			h.count[k] = 0
			v := h.value[k]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				nonFinite += int64(c)
				continue
			}
			if n := len(p.V); n > 0 && p.V[n-1] == v { // −0 then +0
				p.W[n-1] += float64(c)
				continue
			}
			p.V = append(p.V, v)
			p.W = append(p.W, float64(c))
			if !h.bf16 {
				p.K = append(p.K, uint16(k))
			}
		}
		h.seen[w] = 0
	}
	return p, nonFinite
}
