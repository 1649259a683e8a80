package ane

// ruleReorder and ruleCompilerOther classify compiler diagnostics only
// (RuleFor in group.go maps a diagnostic to them); the rule model never
// reports them, so they have no Run.
var ruleReorder = &Rule{
	ID:             "reorder-distance",
	Title:          "scheduler reordering limit reached",
	Message:        "Reached maxReorderingDistance",
	CompilersWords: true,
	Evidence:       "seed arm D: ×7 at the residual adds, in a compile that failed for another reason; not known to block",
	Severity:       info,
	FromCompiler:   true,
}

// ruleCompilerOther is the row for a diagnostic no other row matches.
var ruleCompilerOther = &Rule{
	ID:           "compiler-other",
	Title:        "other compiler diagnostic",
	Message:      "diagnostic the rule table has no row for",
	Evidence:     "the compiler's stderr",
	Severity:     info,
	FromCompiler: true,
}
