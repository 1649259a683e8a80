package ane

import (
	"testing"

	"github.com/anefix/anefix/passes/ane/compilerlog"
)

// TestRuleCompilerRows: each kind of compiler diagnostic maps to its row;
// the two rows of rule_compiler.go take what no predicting rule mirrors.
func TestRuleCompilerRows(t *testing.T) {
	for _, c := range []struct {
		kind compilerlog.Kind
		want *Rule
	}{
		{compilerlog.KindElementType, RuleElementType},
		{compilerlog.KindIOOp, ruleIOOp},
		{compilerlog.KindReorder, ruleReorder},
		{compilerlog.KindValidation, ruleCompilerOther},
		{compilerlog.KindOther, ruleCompilerOther},
	} {
		if got := RuleFor(c.kind); got != c.want {
			t.Errorf("RuleFor(%v) = %s, want %s", c.kind, got.ID, c.want.ID)
		}
	}
	for _, r := range []*Rule{ruleReorder, ruleCompilerOther} {
		if !r.FromCompiler || r.Run != nil {
			t.Errorf("%s: a compiler-diagnostic row has FromCompiler and no Run", r.ID)
		}
	}
}
