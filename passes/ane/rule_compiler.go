package ane

// RuleReorder and RuleCompilerOther classify compiler diagnostics only
// (RuleFor in group.go maps a diagnostic to them); the rule model never
// reports them, so they have no Run.
var RuleReorder = &Rule{
	ID:             "reorder-distance",
	Title:          "scheduler reordering limit reached",
	Message:        "Reached maxReorderingDistance",
	CompilersWords: true,
	Evidence:       "seed arm D: ×7 at the residual adds, in a compile that failed for another reason; not known to block",
	Severity:       Info,
	FromCompiler:   true,
}

// RuleCompilerOther is the row for a diagnostic no other row matches.
var RuleCompilerOther = &Rule{
	ID:           "compiler-other",
	Title:        "other compiler diagnostic",
	Message:      "diagnostic the rule table has no row for",
	Evidence:     "the compiler's stderr",
	Severity:     Info,
	FromCompiler: true,
}
