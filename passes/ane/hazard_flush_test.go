package ane

import (
	"testing"
)

func TestHazardFlush(t *testing.T) {
	testRule(t, hazardFlush, []ruleCase{
		{name: "1e-9 epsilon in f32", file: "hazards/flush_to_zero.mlir", want: []string{"coreai.constant: op_id 1: 1 nonzero value(s) round to 0 in fp16 (first 1e-09; fp16's smallest subnormal is 2^-24 ≈ 5.96e-08); range [1e-09, 1e-09] over 1 element(s); used by eps_to_half (op_id 2)"}},
		{name: "safe constants", file: "hazards/safe.mlir", want: nil},
	})
}
