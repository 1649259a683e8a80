package ane

import (
	"encoding/binary"
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAdviceSoftmaxAxis(t *testing.T) {
	testRule(t, AdviceSoftmaxAxis, []ruleCase{
		{name: "last axis of a rank-4 tensor", build: softmaxOver(-1), want: []string{"coreai.softmax: axis 3 of tensor<1x4x8x8xf16>"}},
		{name: "axis 2", build: softmaxOver(2), want: []string{"coreai.softmax: axis 2 of tensor<1x4x8x8xf16>"}},
		{name: "channel axis", build: softmaxOver(1), want: nil},
		{name: "axis in properties (as the readers store it)", build: softmaxOverProps(-1), want: []string{"coreai.softmax: axis 3 of tensor<1x4x8x8xf16>"}},
		{name: "parsed text", text: `module {
  coreai.graph @main(%arg0: tensor<1x4x8x8xf16> {coreai.name = "x"}) -> (tensor<1x4x8x8xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<-1> : tensor<si32>
    %1 = coreai.softmax %arg0, %0 : (tensor<1x4x8x8xf16>, tensor<si32>) -> tensor<1x4x8x8xf16>
    coreai.output %1 : tensor<1x4x8x8xf16>
  }
}`, want: []string{"coreai.softmax: axis 3 of tensor<1x4x8x8xf16>"}},
		{name: "rank 3", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4, 8, 8), ""})
			g.out(g.op("coreai.softmax", "softmax", 1, []*graph.Value{g.arg(0), g.constant(tensor(graph.SI32))}, tensor(graph.F16, 4, 8, 8)), "y")
			return g.m
		}, want: nil},
	})
}

// softmaxOver is a softmax of a [1, 4, 8, 8] input over axis, a constant
// whose value is a discardable attribute; softmaxOverProps holds it in the
// op's properties, as the text and bytecode readers do (the rule once read
// only the attributes and so never fired on a parsed module).
func softmaxOver(axis int32) func() *graph.Module { return softmaxAxisConst(axis, false) }

func softmaxOverProps(axis int32) func() *graph.Module { return softmaxAxisConst(axis, true) }

func softmaxAxisConst(axis int32, props bool) func() *graph.Module {
	return func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4, 8, 8), ""})
		raw := binary.LittleEndian.AppendUint32(nil, uint32(axis))
		val := graph.Dict(graph.NamedAttr{Name: "value", Value: &graph.DenseElementsAttr{Type: tensor(graph.SI32), Splat: true, Raw: raw}})
		var ax *graph.Operation
		if props {
			ax = graph.NewOp("coreai.constant", nil, []graph.Type{tensor(graph.SI32)}, nil, graph.Unknown)
			ax.Props = val
		} else {
			ax = graph.NewOp("coreai.constant", nil, []graph.Type{tensor(graph.SI32)}, val, graph.Unknown)
		}
		ax.InsertBefore(g.g.Terminator())
		g.out(g.op("coreai.softmax", "softmax", 1, []*graph.Value{g.arg(0), ax.Result(0)}, tensor(graph.F16, 1, 4, 8, 8)), "y")
		return g.m
	}
}
