package ane

import (
	"github.com/anefix/anefix/passes"
)

// suspectTiedHead: a constant that feeds (through shape-only ops) both an
// embedding gather_nd table and a matmul/conv: a tied embedding/head held
// in the graph. The test is passes.IsTiedHeadTable, which
// externalize-constant's default selector uses too (one home).
var suspectTiedHead = &Rule{
	ID:    "suspect.tied-head-constant",
	Title: "tied embedding/LM head as an in-graph constant",
	Message: "UNCONFIRMED: the tied embedding/head table is an in-graph constant of this graph; " +
		"Apple's extend passes the embedding table as an input instead",
	Evidence: "seed arm D: untested candidate for the second blocker (248320×1024 head as an in-graph constant in a single main)",
	Severity: suspect,
	Experiment: "the table becomes a graph input (Apple's extend signature); compare the regions with the default " +
		"rewrite's; anefix verify feeds the input the table's values",
	ExperimentRewrite: []string{"--enable", "externalize-constant"},
	Run:               runTiedHead,
}

func runTiedHead(p *Pass) {
	for _, op := range p.Ops {
		if passes.IsTiedHeadTable(op) {
			p.Report(op, "", "table "+op.Result(0).Type().String())
		}
	}
}
