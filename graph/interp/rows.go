package interp

// Row-wise iteration for the elementwise and slicing kernels: the per
// element work is unchanged (the same function on the same operands, the
// same rounding), only the index bookkeeping moves from every element to
// every innermost row, and large outputs are cut into row ranges run by
// Workers goroutines. Each output element is computed independently, so
// neither changes a result bit.

// rowPlan walks an output shape row by row, with each input's offsets.
type rowPlan struct {
	outer []int   // output dims before the innermost (coalesced)
	n     int     // innermost length
	st    [][]int // per input: strides over outer dims, then the innermost
}

// planRows coalesces adjacent dims that every input walks contiguously (or
// all broadcast alike), so same-shape suffixes become one long row.
func planRows(out []int, ins [][]int) rowPlan {
	strides := make([][]int, len(ins))
	for k, s := range ins {
		strides[k] = bstrides(s, out)
	}
	dims := append([]int(nil), out...)
	if len(dims) == 0 {
		dims = []int{1}
		for k := range strides {
			strides[k] = []int{0}
		}
	}
	for d := len(dims) - 1; d > 0; d-- {
		ok := true
		for k := range strides {
			if strides[k][d-1] != strides[k][d]*dims[d] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		// merge d-1 into d
		dims[d-1] *= dims[d]
		dims = append(dims[:d], dims[d+1:]...)
		for k := range strides {
			s := strides[k]
			s[d-1] = s[d]
			strides[k] = append(s[:d], s[d+1:]...)
		}
	}
	return rowPlan{outer: dims[:len(dims)-1], n: dims[len(dims)-1], st: strides}
}

func (p *rowPlan) rows() int { return numel(p.outer) }

// inner is input k's stride along a row.
func (p *rowPlan) inner(k int) int { return p.st[k][len(p.outer)] }

// offsets sets idx[k] to input k's offset at the start of row r.
func (p *rowPlan) offsets(r int, idx []int) {
	for k := range idx {
		idx[k] = 0
	}
	for d := len(p.outer) - 1; d >= 0 && r > 0; d-- {
		c := r % p.outer[d]
		r /= p.outer[d]
		for k := range idx {
			idx[k] += c * p.st[k][d]
		}
	}
}

// minParallel is the output size from which an elementwise kernel splits
// its rows across workers (below it, starting goroutines costs more).
const minParallel = 1 << 16

// parallelRows runs fn over [0, rows) in contiguous ranges, on workers
// goroutines when total (the element count) is large. A worker's panic
// (a fault in a mapped file, a malformed op) reaches the caller (fault.go).
func parallelRows(rows, total int, fn func(lo, hi int)) {
	w := min(workers, rows)
	if total < minParallel || w <= 1 {
		fn(0, rows)
		return
	}
	step := (rows + w - 1) / w
	goWorkers((rows+step-1)/step, func(p int) {
		lo := p * step
		fn(lo, min(rows, lo+step))
	})
}

// roundInPlace applies e.round to every element, choosing the rounding
// once per slice instead of once per element.
func roundInPlace(e Elem, s []float32) {
	switch e {
	case F32:
	case F16:
		round16(s)
	default:
		for i, v := range s {
			s[i] = e.round(v)
		}
	}
}

// regionRows is region (shape.go) by innermost rows: fn(o, i, n, step)
// covers box elements o..o+n-1, at tensor indices i, i+step, ...
func regionRows(dims, begin, stride, size []int, fn func(o, i, n, step int)) error {
	if err := checkRegion(dims, begin, stride, size); err != nil {
		return err
	}
	st := stridesOf(dims)
	base := 0
	for d := range begin {
		base += begin[d] * st[d]
		st[d] *= stride[d]
	}
	stridedRows(size, st, base, fn)
	return nil
}

// stridedRows visits a strided view of a tensor row by row: element c of
// the view (row-major over size) is tensor element base + Σ_d c[d]·st[d],
// and fn(o, i, n, step) covers view elements o..o+n-1 at tensor indices
// i, i+step, …. A rank-0 view is one element. It is the one walk of the
// slicing kernels (regionRows, region) and transpose.
func stridedRows(size, st []int, base int, fn func(o, i, n, step int)) {
	r := len(size)
	if r == 0 {
		fn(0, base, 1, 1)
		return
	}
	// Trailing unit axes move no index: without them the rows are as
	// long as they can be (a transpose to [1, ctx, 1, 1] walks one row of
	// ctx elements, not ctx rows of one).
	for r > 1 && size[r-1] == 1 {
		r--
	}
	size, st = size[:r], st[:r]
	n, step := size[r-1], st[r-1]
	rows := 1 // the caller's tensor holds the view: no overflow
	for _, s := range size[:r-1] {
		rows *= s
	}
	if rows == 0 || n == 0 {
		return
	}
	idx := base
	ctr := make([]int, r-1)
	for o := 0; o < rows; o++ {
		fn(o*n, idx, n, step)
		for d := r - 2; d >= 0; d-- {
			ctr[d]++
			idx += st[d]
			if ctr[d] < size[d] {
				break
			}
			idx -= st[d] * size[d]
			ctr[d] = 0
		}
	}
}

// binRowDirect runs the commonest float binary ops without calling their
// function value per element, for a contiguous x and a contiguous y (or a
// scalar y[0] when scalar is set). It
// reports false for other ops. The expressions are binaryFloat's; which
// NaN payload survives when two meet depends on the operand order the
// compiler emits, so TestBinRowDirectSameBits compares every op with its
// function value on NaN-rich inputs.
func binRowDirect(op string, row, x, y []float32, scalar bool) bool {
	switch op {
	case "add":
		if scalar {
			s := y[0]
			for t := range row {
				row[t] = x[t] + s
			}
		} else {
			for t := range row {
				row[t] = x[t] + y[t]
			}
		}
	case "sub":
		if scalar {
			s := y[0]
			for t := range row {
				row[t] = x[t] - s
			}
		} else {
			for t := range row {
				row[t] = x[t] - y[t]
			}
		}
	case "mul":
		if scalar {
			s := y[0]
			for t := range row {
				row[t] = x[t] * s
			}
		} else {
			for t := range row {
				row[t] = x[t] * y[t]
			}
		}
	default:
		return false
	}
	return true
}

// binRowScalarFirst is binRowDirect for a scalar first operand s and a
// contiguous y: row[t] = s op y[t], the operands in binaryFloat's order (a
// broadcast such as an outer product meets this case once per row).
func binRowScalarFirst(op string, row []float32, s float32, y []float32) bool {
	y = y[:len(row)]
	switch op {
	case "add":
		for t, v := range y {
			row[t] = s + v
		}
	case "sub":
		for t, v := range y {
			row[t] = s - v
		}
	case "mul":
		for t, v := range y {
			row[t] = s * v
		}
	default:
		return false
	}
	return true
}
