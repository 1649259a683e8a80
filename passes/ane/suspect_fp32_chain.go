package ane

// SuspectFp32Chain: an fp32 island the compiler is not modelled to cite
// (an inline chain between casts, such as the builder's norms and RoPE):
// still fp32, never cited, listed as a suspect. The islands are the
// element-type rule's (anefacts.Graph.Islands); this rule takes those
// without a Why.
var SuspectFp32Chain = &Rule{
	ID:    "suspect.fp32-chain",
	Title: "inline fp32 chain between casts (norms, RoPE)",
	Message: "UNCONFIRMED: fp32 chain bounded by casts inside the graph; the compiler never cited these, " +
		"but they remain fp32",
	Evidence: "seed arm D: untested candidate for the second blocker (inline fp32 norm chains)",
	Fix:      "strip-fp32-casts",
	Severity: suspect,
	Experiment: "converts these chains to fp16 too (islands=norms takes the normalization chains only); " +
		"compare the regions with the default rewrite's",
	ExperimentRewrite: []string{"--set", "strip-fp32-casts.islands=all"},
	Requires:          []*fact{factIslands},
	Run:               runFp32Chain,
}

// runFp32Chain reports each uncited island at the ops that open it.
func runFp32Chain(p *Pass) {
	for _, is := range p.Islands() {
		if is.Why != "" {
			continue
		}
		for _, op := range is.Roots {
			p.ReportVals(op, "", is.Detail+" that ends in casts inside the graph", is.Vals)
		}
	}
}
