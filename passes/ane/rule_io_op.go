package ane

import (
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleIOOp: an op on an entry graph's boundary that changes rank
// (expand_dims / shrink_dims, which fold-io-unsqueeze folds into the port)
// or reads or writes the port in a non-ANE element type (a boundary cast
// or add on an fp32 port, which strip-fp32-casts removes). Integer inputs
// that only feed indices are not ports in this sense.
var ruleIOOp = &Rule{
	ID:             "io-op",
	Title:          "graph input/output passes through a squeeze/expand_dims, cast or non-ANE type",
	Message:        "ANE I/O op isn't a squeeze / expandDims",
	CompilersWords: true,
	Evidence: "coreai-build 3600.83.1 warning (coreai-facts §1); seed arms A–C cite it at unsqueeze_*, _to_copy_* " +
		"and add_* ops on the graph boundary. Modelled as: an op that reads a graph input or produces a graph " +
		"output must not be coreai.expand_dims / coreai.shrink_dims (fold-io-unsqueeze folds them into the " +
		"port), and must not read or write the port in a non-ANE element type, as a boundary cast or add on " +
		"an fp32 port does (strip-fp32-casts); integer inputs that only feed indices are not ports in this sense. " +
		"Per architecture (calib.go): a blocker under h18p's all-or-nothing model; under h16g a GPU island, since " +
		"Granite-Embedding-97M with an fp32 pooled output still got 1 region (4rg0naut/silicon-ledger-public " +
		"results/EXP-005-ane-residency/README.md, v1/v2)",
	Fix:      "fold-io-unsqueeze",
	Severity: blocker,
	Run:      runIOOp,
}

func runIOOp(p *Pass) {
	if !p.Entry {
		return
	}
	for _, op := range p.Ops {
		if op == p.Term || op.Name == "coreai.constant" {
			continue
		}
		var ports []string
		var bad []*graph.Value
		for i, v := range op.Operands() {
			if idx, ok := p.IsInput[v]; ok && !anefacts.IsParamSlot(op, i) && !p.IndexOnly[v] {
				ports = append(ports, "input "+anefacts.PortName(p.Inputs, idx))
				if p.BadElem(v) {
					bad = append(bad, v)
				}
			}
		}
		for _, r := range op.Results() {
			for _, idx := range p.IsOutput[r] {
				ports = append(ports, "output "+anefacts.PortName(p.Outputs, idx))
				if p.BadElem(r) {
					bad = append(bad, r)
				}
			}
		}
		if len(ports) == 0 {
			continue
		}
		where := strings.Join(ports, ", ")
		switch base := anefacts.BaseOpName(op.Name); {
		case base == "coreai.expand_dims" || base == "coreai.shrink_dims":
			p.Report(op, "fold-io-unsqueeze", "rank change on "+where)
		case len(bad) > 0:
			p.ReportVals(op, "strip-fp32-casts", "non-ANE element type on "+where, bad)
		}
	}
}
