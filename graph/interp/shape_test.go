package interp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// region visits a box in the order of the definition: box element o (row
// major over size) is tensor element Σ_d (begin[d] + c_d·stride[d])·st[d].
// Generated boxes over ranks 0 to 4, empty ones and invalid ones included
// (region and regionRows must refuse the same boxes).
func TestRegionOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 500; n++ {
		rank := r.IntN(5)
		dims, begin, stride, size := make([]int, rank), make([]int, rank), make([]int, rank), make([]int, rank)
		for d := range dims {
			dims[d] = r.IntN(6)
			stride[d] = 1 + r.IntN(3)
			if dims[d] > 0 {
				begin[d] = r.IntN(dims[d])
				size[d] = r.IntN((dims[d]-begin[d]+stride[d]-1)/stride[d] + 1)
			}
			if r.IntN(20) == 0 {
				size[d]++ // past the end: refused
			}
		}
		st := stridesOf(dims)
		var want [][2]int
		var errWant error
		if errWant = checkRegion(dims, begin, stride, size); errWant == nil {
			c := make([]int, rank)
			for o := range numel(size) {
				i := 0
				for d := range c {
					i += (begin[d] + c[d]*stride[d]) * st[d]
				}
				want = append(want, [2]int{o, i})
				for d := rank - 1; d >= 0; d-- {
					if c[d]++; c[d] < size[d] {
						break
					}
					c[d] = 0
				}
			}
		}
		var got [][2]int
		err := region(dims, begin, stride, size, func(o, i int) { got = append(got, [2]int{o, i}) })
		if (err != nil) != (errWant != nil) || !slices.Equal(got, want) {
			t.Fatalf("dims %v begin %v stride %v size %v: got %v (%v), want %v (%v)", dims, begin, stride, size, got, err, want, errWant)
		}
	}
}

// gather_nd and scatter_nd read an index row the same way: negative
// indices count from the end of their axis, and an index outside it is
// refused naming the op, the index and the axis.
func TestNDIndexRows(t *testing.T) {
	x := NewInt(SI32, []int{3, 2}, []int64{0, 1, 10, 11, 20, 21})
	for _, c := range []struct {
		idx     []int64
		want    []int64 // gathered rows
		wantErr string
	}{
		{idx: []int64{2, 0}, want: []int64{20, 21, 0, 1}},
		{idx: []int64{-1, -3}, want: []int64{20, 21, 0, 1}},
		{idx: []int64{1, 3}, wantErr: "index 3 out of range on axis 0 (size 3)"},
		{idx: []int64{-4}, wantErr: "index -4 out of range on axis 0 (size 3)"},
	} {
		ind := NewInt(SI32, []int{len(c.idx), 1}, c.idx)
		g, err := gatherND(x, ind)
		upd := NewInt(SI32, []int{len(c.idx), 2}, make([]int64, 2*len(c.idx)))
		_, serr := ScatterND(x, ind, upd, SI32)
		if c.wantErr != "" {
			if err == nil || err.Error() != "gather_nd: "+c.wantErr || serr == nil || serr.Error() != "scatter_nd: "+c.wantErr {
				t.Errorf("indices %v: errors %v and %v, want %q after each op's name", c.idx, err, serr, c.wantErr)
			}
			continue
		}
		if err != nil || serr != nil || !slices.Equal(g.I, c.want) {
			t.Errorf("indices %v: gathered %v (%v, %v), want %v", c.idx, g, err, serr, c.want)
		}
	}
}
