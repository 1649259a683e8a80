package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleLUT4SmallGroup(t *testing.T) {
	testRule(t, RuleLUT4SmallGroup, []ruleCase{
		{name: "4-bit, 8 channels per palette", build: func() *graph.Module { return lutGraph(4, 8) }, want: []string{"coreai.lut_to_dense: 4-bit palettes of 8 channels (indices tensor<64x64xui4>, lut tensor<8x1x16x1xf16>)"}},
		{name: "4-bit, 32 channels per palette", build: func() *graph.Module { return lutGraph(4, 32) }, want: nil},
		{name: "6-bit, 8 channels per palette", build: func() *graph.Module { return lutGraph(6, 8) }, want: nil},
		{name: "4-bit, one palette for the tensor", build: func() *graph.Module { return lutGraph(4, 0) }, want: nil},
	})
}
