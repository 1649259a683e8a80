package cluster

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/anefix/anefix/graph/f16"
)

func BenchmarkAssign(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	e := make([]float64, 16)
	for i := range e {
		e[i] = r.NormFloat64() * 0.02
	}
	sort.Float64s(e)
	a := NewAssigner(e)
	keys := make([]uint16, 1<<16)
	vals := make([]float64, 1<<16)
	for i := range keys {
		p := f16.FromFloat64(r.NormFloat64() * 0.02)
		keys[i], vals[i] = Key(p), f16.ToFloat64(p)
	}
	b.Run("IndexKey", func(b *testing.B) {
		s := 0
		for i := 0; i < b.N; i++ {
			s += a.IndexKey(keys[i&0xFFFF])
		}
		_ = s
	})
	b.Run("Index", func(b *testing.B) {
		s := 0
		for i := 0; i < b.N; i++ {
			s += a.Index(vals[i&0xFFFF])
		}
		_ = s
	})
}

func BenchmarkOptimal(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	p := randPoints(r, 1500, 0.02)
	var ws Workspace
	for i := 0; i < b.N; i++ {
		ws.optimal(p, 16)
	}
}

func BenchmarkCalib(b *testing.B) {
	x := make([]float64, 1024)
	for i := range x {
		x[i] = float64(i)
	}
	s := 0.0
	for i := 0; i < b.N; i++ {
		for _, v := range x {
			s += v * 1.0000001
		}
	}
	_ = s
}
