package passes

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/anefix/anefix/graph"
)

// islandSelectors is a parsed strip-fp32-casts.islands value: the union of
// the named sets and the islands the glob patterns match.
type islandSelectors struct {
	all, blockers, norms bool
	globs                []string
}

// The selector keywords. A glob that spells one of them is read as the
// keyword (no op id or file:line is spelled that way).
const (
	selAll      = "all"
	selBlockers = "blockers"
	selNorms    = "norms"
)

// islandKeywords are the keywords, for messages.
var islandKeywords = []string{selBlockers, selNorms, selAll}

func parseIslandSelectors(vals []string) islandSelectors {
	var s islandSelectors
	for _, v := range vals {
		switch v {
		case selAll:
			s.all = true
		case selBlockers:
			s.blockers = true
		case selNorms:
			s.norms = true
		default:
			s.globs = append(s.globs, v)
		}
	}
	return s
}

// checkIslandSelectors rejects an empty selection (in earlier versions an empty
// islands meant every island; now that is spelled all).
func checkIslandSelectors(xs []string) error {
	if len(xs) == 0 {
		return fmt.Errorf("want all, blockers, norms or glob patterns (comma-separated); an empty value selects nothing")
	}
	return nil
}

// selects reports whether the selection takes island is; blockers holds the
// ops the element-type rule flags (nil unless blockers was asked for).
func (s islandSelectors) selects(is *island, globs []*regexp.Regexp, blockers map[*graph.Operation]bool) bool {
	if s.all || s.norms && islandIsNorm(is) || len(globs) > 0 && islandMatches(is, globs) {
		return true
	}
	if s.blockers {
		for _, op := range is.ops {
			if blockers[op] {
				return true
			}
		}
	}
	return false
}

// islandIsNorm reports whether an island computes a normalization, by
// structure alone: a reduce_mean or reduce_sum of a square (coreai.square,
// or a multiply of a value by itself) whose result reaches, through ops of
// the island, an rsqrt whose result feeds a multiply, or a sqrt whose
// result feeds a divide. RMSNorm is mul(x, x) → reduce_mean → add ε →
// rsqrt → mul by x; an L2 norm uses reduce_sum; LayerNorm's variance is the
// square of x − mean. A reduction that is not of a square (softmax's sum,
// the gated-delta read's multiply-and-sum) does not make a norm.
func islandIsNorm(is *island) bool {
	in := map[*graph.Operation]bool{}
	for _, op := range is.ops {
		in[op] = true
	}
	for _, op := range is.ops {
		if (!hasOpSuffix(op.Name, "reduce_mean") && !hasOpSuffix(op.Name, "reduce_sum")) || op.NumOperands() == 0 || !isSquare(op.Operand(0).DefiningOp()) {
			continue
		}
		for _, root := range reachIn(op, in, func(o *graph.Operation) bool {
			return hasOpSuffix(o.Name, "rsqrt") || hasOpSuffix(o.Name, "sqrt")
		}) {
			want := []string{"mul", "broadcasting_mul"}
			if hasOpSuffix(root.Name, "sqrt") {
				want = []string{"broadcasting_divide"} // the name in coreai-torch's op set
			}
			for _, r := range root.Results() {
				for _, u := range r.Uses() {
					if in[u.Op] && hasAnyOpSuffix(u.Op.Name, want) {
						return true
					}
				}
			}
		}
	}
	return false
}

// hasOpSuffix matches the op name's last dotted component exactly
// ("coreai.rsqrt" has suffix "rsqrt", not "sqrt").
func hasOpSuffix(name, suffix string) bool {
	return name == suffix || strings.HasSuffix(name, "."+suffix)
}

// isSquare reports whether op squares a value: coreai.square, or a
// (broadcasting) multiply whose two operands are the same value.
func isSquare(op *graph.Operation) bool {
	if op == nil {
		return false
	}
	if hasOpSuffix(op.Name, "square") {
		return true
	}
	return hasAnyOpSuffix(op.Name, []string{"mul", "broadcasting_mul"}) && op.NumOperands() == 2 && op.Operand(0) == op.Operand(1)
}

// reachIn returns the ops satisfying want that from's results reach through
// uses by ops in the set in, in discovery order.
func reachIn(from *graph.Operation, in map[*graph.Operation]bool, want func(*graph.Operation) bool) []*graph.Operation {
	var out []*graph.Operation
	seen := map[*graph.Operation]bool{from: true}
	work := []*graph.Operation{from}
	for len(work) > 0 {
		o := work[0]
		work = work[1:]
		for _, r := range o.Results() {
			for _, u := range r.Uses() {
				if !in[u.Op] || seen[u.Op] {
					continue
				}
				seen[u.Op] = true
				if want(u.Op) {
					out = append(out, u.Op)
					continue
				}
				work = append(work, u.Op)
			}
		}
	}
	return out
}

func hasAnyOpSuffix(name string, suffixes []string) bool {
	for _, x := range suffixes {
		if hasOpSuffix(name, x) {
			return true
		}
	}
	return false
}
