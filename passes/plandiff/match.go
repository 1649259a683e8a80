package plandiff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/ane"
)

// The op matching the package comment describes.

// preorder is a graph's ops in the order check indexes them
// (anefacts.Graph.Ops, OpPlacement.Index): every op nested in the graph,
// pre-order, the graph op itself left out.
func preorder(g *graph.Graph) []*graph.Operation {
	if g == nil || g.Body() == nil {
		return nil
	}
	var out []*graph.Operation
	g.Op.Walk(func(o *graph.Operation) bool {
		if o != g.Op {
			out = append(out, o)
		}
		return true
	})
	return out
}

// matchKey is what an op must share with its counterpart: its name and its
// op id, else its source line unless that is a position in one of the
// inputs' own files (own).
func matchKey(op *graph.Operation, own []string) string {
	if id := op.OpID(); id != "" {
		return op.Name + "\x00id\x00" + id
	}
	src := op.Source()
	for _, p := range own {
		if p != "" && strings.HasPrefix(src, p+":") {
			src = ""
		}
	}
	return op.Name + "\x00src\x00" + src
}

// shapeSig is an op's shape without element types, for pairing ops of one
// key whose counts differ.
func shapeSig(op *graph.Operation) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(op.NumOperands()))
	for _, r := range op.Results() {
		b.WriteByte('|')
		if t, ok := graph.AsTensor(r.Type()); ok {
			b.WriteString(t.WithElem(graph.None).String())
		} else if r.Type() != nil {
			b.WriteString(r.Type().String())
		}
	}
	return b.String()
}

// match pairs a's ops with b's: ma[i] is the index in b of a's op i, or -1;
// mb likewise.
func match(a, b []*graph.Operation, own []string) (ma, mb []int) {
	ma, mb = filled(len(a)), filled(len(b))
	groups := func(ops []*graph.Operation) (map[string][]int, []string) {
		m := map[string][]int{}
		var order []string
		for i, op := range ops {
			k := matchKey(op, own)
			if _, ok := m[k]; !ok {
				order = append(order, k)
			}
			m[k] = append(m[k], i)
		}
		return m, order
	}
	ga, order := groups(a)
	gb, _ := groups(b)
	for _, k := range order {
		xs, ys := ga[k], gb[k]
		if len(ys) == 0 {
			continue
		}
		if len(xs) == len(ys) {
			for n := range xs {
				ma[xs[n]], mb[ys[n]] = ys[n], xs[n]
			}
			continue
		}
		sa, sb := make([]string, len(xs)), make([]string, len(ys))
		for n, i := range xs {
			sa[n] = shapeSig(a[i])
		}
		for n, j := range ys {
			sb[n] = shapeSig(b[j])
		}
		for _, p := range align(sa, sb) {
			ma[xs[p[0]]], mb[ys[p[1]]] = ys[p[1]], xs[p[0]]
		}
	}
	return ma, mb
}

func filled(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// lcsCells bounds the table lcs fills (a key shared by thousands of ops,
// such as the constants of a module without locations, would need one of
// their product).
const lcsCells = 1 << 20

// align pairs two lists of shapes: by lcs within lcsCells, else each shape's
// occurrences in order (linear, and symmetric too).
func align(a, b []string) [][2]int {
	if len(a)*len(b) <= lcsCells {
		return lcs(a, b)
	}
	at := map[string][]int{}
	for j, s := range b {
		at[s] = append(at[s], j)
	}
	var out [][2]int
	for i, s := range a {
		if js := at[s]; len(js) > 0 {
			out = append(out, [2]int{i, js[0]})
			at[s] = js[1:]
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int { return x[0] - y[0] })
	return out
}

// lcs returns the index pairs of a longest common subsequence of a and b.
// Where two choices keep it longest, the smaller string is skipped first,
// so lcs(b, a) pairs the same elements (the diff mirrors).
func lcs(a, b []string) [][2]int {
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:].
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case l[i+1][j] > l[i][j+1], l[i+1][j] == l[i][j+1] && a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return out
}

// diffOps lists the changed ops of a graph present in A (ga), B (gb) or
// both, in program order (see Diff.Ops).
func diffOps(ga, gb *graph.Graph, pa, pb map[string][]*ane.OpPlacement, own []string) []OpChange {
	a, b := preorder(ga), preorder(gb)
	ma, mb := match(a, b, own)
	name := ""
	if ga != nil {
		name = ga.Name()
	} else {
		name = gb.Name()
	}
	at := func(ps map[string][]*ane.OpPlacement, ops []*graph.Operation, i int) *ane.OpPlacement {
		if s := ps[name]; i < len(s) && s[i] != nil {
			return s[i]
		}
		op := ops[i]
		return &ane.OpPlacement{OpID: op.OpID(), Graph: name, Index: i, OpName: op.Name, Source: op.Source()}
	}
	var out []OpChange
	next := 0 // the first op of A not yet passed
	removedUpTo := func(end int) {
		for ; next < end; next++ {
			if ma[next] < 0 {
				out = append(out, OpChange{Graph: name, A: at(pa, a, next)})
			}
		}
	}
	for j := range b {
		i := mb[j]
		if i < 0 {
			out = append(out, OpChange{Graph: name, B: at(pb, b, j)})
			continue
		}
		removedUpTo(i)
		next = max(next, i+1)
		x, y := at(pa, a, i), at(pb, b, j)
		c := OpChange{Graph: name, A: x, B: y, Placement: x.Device != y.Device, Retyped: !slices.Equal(x.ElementTypes, y.ElementTypes)}
		if c.Placement || c.Retyped {
			out = append(out, c)
		}
	}
	removedUpTo(len(a))
	return out
}
