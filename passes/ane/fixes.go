package ane

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/anefacts"
)

// resolveFixes keeps a finding's fixing pass only where that pass, run with
// the options the rule prints, removes it. The passes answer for
// themselves (passes.PreviewStripFP32Casts, passes.PreviewFoldIOUnsqueeze:
// their own analyses, run without changing m), so check and the passes
// never hold two copies of the decision. Where the pass would not remove a
// finding, the finding names no pass and its detail says what would.
func resolveFixes(m *graph.Module, rep *Report) {
	previews := map[string]*stripPreview{}
	strip := func(set []string) *stripPreview {
		key := strings.Join(set, " ")
		if p, ok := previews[key]; ok {
			return p
		}
		p, err := passes.PreviewStripFP32Casts(m, set...)
		sp := &stripPreview{p: p, err: err}
		previews[key] = sp
		return sp
	}
	var fold *passes.FoldIOUnsqueezePreview
	var foldErr error
	foldDone := false
	var legal *passes.LegalizeWeightsPreview
	for gi := range rep.Graphs {
		gr := &rep.Graphs[gi]
		for _, list := range [][]Finding{gr.Findings, gr.Suspects} {
			for i := range list {
				f := &list[i]
				switch f.FixPass() {
				case "strip-fp32-casts":
					sp := strip(f.Rule.FixOptions())
					if why := sp.left(f.vals); why != "" {
						f.NoFix = true
						f.Detail += "; " + why
					}
				case "fold-io-unsqueeze":
					if !foldDone {
						fold, foldErr = passes.PreviewFoldIOUnsqueeze(m, f.Rule.FixOptions()...)
						foldDone = true
					}
					if foldErr != nil {
						f.NoFix = true
						f.Detail += "; fold-io-unsqueeze stops on this module: " + foldErr.Error()
					} else if f.Op != nil && !fold.Folds(f.Op) {
						f.NoFix = true
						f.Detail += "; fold-io-unsqueeze leaves it: " + whyNoFold(f.Op)
					}
				case "legalize-weights":
					if legal == nil {
						legal = passes.PreviewLegalizeWeights(m)
					}
					if ok, why := legal.Fixes(f.Op); f.Op != nil && !ok {
						f.NoFix = true
						f.Detail += "; legalize-weights leaves it: " + why + "; what would: re-export with palettized weights (coreai.llm.export --compression 4bit_weight_palettized_group32)"
					}
				}
				// vals served this decision only; dropped, they no longer
				// keep the islands they were taken from alive.
				f.vals = nil
			}
		}
	}
}

// FixOptions are the --set assignments a rule prints for its fix
// (ExperimentRewrite's `--set pass.option=value` pairs; none for a blocker,
// whose fix runs with the defaults).
func (r *Rule) FixOptions() []string {
	var out []string
	for i := 0; i+1 < len(r.ExperimentRewrite); i++ {
		if r.ExperimentRewrite[i] == "--set" {
			out = append(out, r.ExperimentRewrite[i+1])
		}
	}
	return out
}

type stripPreview struct {
	p   *passes.StripFP32CastsPreview
	err error
}

// left says what stays non-ANE of vals after strip-fp32-casts, and what
// would change it; "" when the pass retypes them all.
func (sp *stripPreview) left(vals []*graph.Value) string {
	if sp.err != nil {
		return "strip-fp32-casts stops on this module: " + sp.err.Error()
	}
	for _, v := range vals {
		if sp.p.Retypes(v) {
			continue
		}
		return remedy(v, sp.p.WhyNot(v))
	}
	return ""
}

// remedy says, for a value strip-fp32-casts leaves, where it is, why it
// stays and what would make it an element type the compiler lists.
func remedy(v *graph.Value, why string) string {
	t := graph.ElementType(anefacts.DataTensorOrType(v.Type()))
	what := fmt.Sprintf("%s %s (%s, read by %s)", t, valueKind(v), producer(v), consumer(v))
	if graph.IsFloat(t, "f32") {
		if port := portOf(v); port != "" {
			return fmt.Sprintf("%s stays: the graph's own interface (%s) is f32 and strip-fp32-casts does not retype it (%s); what would: re-export the model with float16 compute precision", what, port, why)
		}
		return fmt.Sprintf("%s stays: %s; what would: re-export that part with float16 compute precision", what, why)
	}
	return fmt.Sprintf("%s stays: no anefix pass changes an integer or bool element type; the compiler lists fp16, f8E4M3, si8, ui8, si16 and ui16 (rule element-type), and check exempts integers that only feed axes, shapes, indices or casts; what would: re-export so that this value is one of those types or only feeds such operands", what)
}

func valueKind(v *graph.Value) string {
	if _, _, ok := v.BlockArg(); ok {
		return "argument"
	}
	return "value"
}

// producer names what defines v: its op, or the graph input it is.
func producer(v *graph.Value) string {
	if d := v.DefiningOp(); d != nil {
		return "result of " + d.Describe()
	}
	if port := portOf(v); port != "" {
		return port
	}
	return "a block argument"
}

// consumer names v's first user: an op, or the graph output it is.
func consumer(v *graph.Value) string {
	for _, u := range v.Uses() {
		if p := u.Op.ParentOp(); p != nil && graph.IsGraphOp(p) && u.Op.Name == graph.TerminatorName(p.Name) {
			g := &graph.Graph{Op: p}
			if outs := g.Outputs(); u.Index < len(outs) {
				return fmt.Sprintf("@%s output %s", g.Name(), outs[u.Index].Label())
			}
		}
		return u.Op.Describe()
	}
	return "nothing"
}

// portOf names v when it is a graph input or output ("@main input x"), else "".
func portOf(v *graph.Value) string {
	if b, i, ok := v.BlockArg(); ok {
		if p := b.ParentOp(); p != nil && graph.IsGraphOp(p) && b == p.Regions[0].Entry() {
			g := &graph.Graph{Op: p}
			if ins := g.Inputs(); i < len(ins) {
				return fmt.Sprintf("@%s input %s", g.Name(), ins[i].Label())
			}
		}
		return ""
	}
	for _, u := range v.Uses() {
		if p := u.Op.ParentOp(); p != nil && graph.IsGraphOp(p) && u.Op.Name == graph.TerminatorName(p.Name) {
			g := &graph.Graph{Op: p}
			if outs := g.Outputs(); u.Index < len(outs) {
				return fmt.Sprintf("@%s output %s", g.Name(), outs[u.Index].Label())
			}
		}
	}
	return ""
}

// whyNoFold says why fold-io-unsqueeze leaves a rank op on a port, from
// what the pass's doc says it folds.
func whyNoFold(op *graph.Operation) string {
	var vs []*graph.Value
	vs = append(vs, op.Operands()...)
	vs = append(vs, op.Results()...)
	for _, v := range vs {
		if t := anefacts.DataTensor(v.Type()); t != nil && !t.IsStatic() {
			return "its shape " + t.String() + " is dynamic, and the pass folds only rank changes it can prove on static shapes; what would: export with static shapes"
		}
	}
	return "the pass cannot prove the fold (it folds a rank op that only inserts or removes unit dimensions, and a state only when both sides fold to one type); what would: export without the rank change at the boundary"
}
