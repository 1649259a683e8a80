package bytecode

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// patternBlob is a deterministic blob generated on demand, so that large
// test modules never hold their weights in memory.
type patternBlob struct {
	n    int64
	seed byte
}

func (p patternBlob) Size() int64 { return p.n }

func (p patternBlob) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.n {
		return 0, fmt.Errorf("read past end")
	}
	n := min(int64(len(b)), p.n-off)
	for i := int64(0); i < n; i++ {
		x := off + i
		b[i] = byte(x) ^ byte(x>>9) ^ p.seed
	}
	return int(n), nil
}

// synthModule builds a coreai.graph with `layers` layers, each with one
// fp16 weight of blobBytes bytes in a dense_resource blob.
func synthModule(layers int, blobBytes int64) *graph.Module {
	m := graph.NewModule()
	in := graph.Tensor(graph.F16, 1, blobBytes/2)
	fn := graph.NewOp("coreai.graph", nil, nil, nil, &graph.FileLoc{File: "synth.py", Line: 1, Col: 1})
	fn.Props = graph.Dict(
		graph.NamedAttr{Name: "sym_name", Value: graph.Str("main")},
		graph.NamedAttr{Name: "function_type", Value: &graph.TypeAttr{Type: &graph.FunctionType{Inputs: []graph.Type{in}, Results: []graph.Type{in}}}},
	)
	body := fn.AddRegion().AddBlock([]graph.Type{in}, []graph.Loc{&graph.NameLoc{Name: "x"}})
	m.Body().Append(fn)
	x := body.Arg(0)
	for l := 0; l < layers; l++ {
		key := fmt.Sprintf("w%d", l)
		m.AddResource(key, 16, patternBlob{n: blobBytes, seed: byte(l)})
		wt := graph.Tensor(graph.F16, blobBytes/2)
		loc := &graph.NameLoc{Name: fmt.Sprintf("layer_%d", l), Child: &graph.FileLoc{File: "synth.py", Line: 10 + l, Col: 3}}
		w := graph.NewOp("coreai.constant", nil, []graph.Type{wt}, nil, loc)
		w.Props = graph.Dict(graph.NamedAttr{Name: "value", Value: &graph.DenseResourceAttr{Key: key, Type: wt}})
		body.Append(w)
		mm := graph.NewOp("coreai.matmul", []*graph.Value{x, w.Result(0)}, []graph.Type{in}, nil, loc)
		body.Append(mm)
		x = mm.Result(0)
	}
	body.Append(graph.NewOp("coreai.output", []*graph.Value{x}, nil, nil, graph.Unknown))
	return m
}
