package variants

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/anefix/anefix/graph/f16"
)

// rng is splitmix64: small, fast and the same everywhere.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform is in [-1, 1).
func (r *rng) uniform() float64 { return float64(r.next()>>11)/(1<<52) - 1 }

// keyed seeds a generator from a weight's key, so a weight has the same
// values in every case that holds it.
func keyed(key string) *rng {
	h := fnv.New64a()
	h.Write([]byte(key))
	return &rng{s: h.Sum64()}
}

// dist says how a weight's values are drawn.
type dist struct {
	center, spread float64 // center + spread·U[-1, 1)
	log            bool    // the log of a value drawn as above
}

// values returns n fp16 values of key, little-endian.
func values(key string, n int64, d dist) []byte {
	r := keyed(key)
	out := make([]byte, 2*n)
	for i := int64(0); i < n; i++ {
		v := d.center + d.spread*r.uniform()
		if d.log {
			v = math.Log(v)
		}
		binary.LittleEndian.PutUint16(out[2*i:], f16.FromFloat64(v))
	}
	return out
}

// fanIn is a linear layer's weight scale: unit variance outputs for unit
// variance inputs (U[-a, a) has variance a²/3).
func fanIn(in int64) dist { return dist{spread: math.Sqrt(3 / float64(in))} }
