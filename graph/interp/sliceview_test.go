package interp

import (
	"slices"
	"testing"
)

// A slice whose box is one contiguous run of its operand is a view of the
// operand's buffer (sliceView), and the view and its source count as one
// buffer: a slice_update or an elementwise op that would otherwise run in
// place copies while the other lives. The operand is computed (an add), so
// that it is the interpreter's own buffer, not a pinned constant. Expected
// values are written by hand from s = [[1 2 3 4] [5 6 7 8] [9 10 11 12]].
func TestSliceViewSharesItsBuffer(t *testing.T) {
	const head = `module {
  coreai.graph @main() -> (tensor<3x4xf32> {coreai.name = "u"}, tensor<1x4xf32> {coreai.name = "y"}) {
    %s = coreai.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
    %x = coreai.constant dense<[[100.0, 200.0, 300.0, 400.0]]> : tensor<1x4xf32>
    %b1 = coreai.constant dense<[1, 0]> : tensor<2xsi32>
    %e1 = coreai.constant dense<[2, 4]> : tensor<2xsi32>
    %st = coreai.constant dense<[1, 1]> : tensor<2xsi32>
    %a = coreai.add %s, %s : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %row = coreai.slice %a, %b1, %e1, %st : (tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x4xf32>
`
	for _, c := range []struct {
		name, body   string
		wantU, wantY []float32
	}{
		{
			// The view is read after its source's last reader, a
			// slice_update that would otherwise write the source in place.
			name: "source updated while the view lives",
			body: `    %u = coreai.slice_update %a with %x at (%b1) : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<2xsi32>) to tensor<3x4xf32>
    %y = coreai.add %row, %row : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    coreai.output %u, %y : tensor<3x4xf32>, tensor<1x4xf32>`,
			wantU: []float32{2, 4, 6, 8, 100, 200, 300, 400, 18, 20, 22, 24},
			wantY: []float32{20, 24, 28, 32},
		},
		{
			// The view dies in an elementwise op that would otherwise
			// write it in place, while its source is still to be read.
			name: "view written while the source lives",
			body: `    %y = coreai.mul %row, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %u = coreai.add %a, %a : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    coreai.output %u, %y : tensor<3x4xf32>, tensor<1x4xf32>`,
			wantU: []float32{4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48},
			wantY: []float32{1000, 2400, 4200, 6400},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runIR(t, c.name, head+c.body+"\n  }\n}\n")
			if !slices.Equal(out[0].Floats(), c.wantU) {
				t.Errorf("u = %v, want %v", out[0].Floats(), c.wantU)
			}
			if !slices.Equal(out[1].Floats(), c.wantY) {
				t.Errorf("y = %v, want %v", out[1].Floats(), c.wantY)
			}
		})
	}
}

// contiguousBox accepts exactly the boxes that are one run of a row-major
// tensor: leading unit axes, one partial axis, whole axes after it.
func TestContiguousBox(t *testing.T) {
	dims := []int{4, 3, 5}
	one := []int{1, 1, 1}
	for _, c := range []struct {
		b, st, size []int
		off         int
		ok          bool
	}{
		{[]int{2, 0, 0}, one, []int{1, 3, 5}, 30, true},            // one whole row of axis 0
		{[]int{1, 0, 0}, one, []int{2, 3, 5}, 15, true},            // two rows
		{[]int{3, 1, 0}, one, []int{1, 2, 5}, 50, true},            // part of axis 1, whole axis 2
		{[]int{3, 2, 1}, one, []int{1, 1, 3}, 56, true},            // part of the last axis
		{[]int{0, 0, 0}, one, []int{4, 3, 5}, 0, true},             // the whole tensor
		{[]int{0, 1, 0}, one, []int{2, 1, 5}, 0, false},            // two rows, each part of axis 1
		{[]int{0, 0, 1}, one, []int{1, 3, 4}, 0, false},            // a column block
		{[]int{0, 0, 0}, []int{2, 1, 1}, []int{2, 3, 5}, 0, false}, // strided
		{[]int{3, 0, 0}, one, []int{2, 3, 5}, 0, false},            // past the end
	} {
		off, ok := contiguousBox(dims, c.b, c.st, c.size)
		if ok != c.ok || (ok && off != c.off) {
			t.Errorf("box %v size %v stride %v: got (%d, %v), want (%d, %v)", c.b, c.size, c.st, off, ok, c.off, c.ok)
		}
	}
}
