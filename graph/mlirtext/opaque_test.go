package mlirtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// opaqueAttr stands in for a value a bytecode reader kept encoded.
type opaqueAttr struct{ *graph.RawAttr }

func (opaqueAttr) BytecodeOnly() string { return "attribute #x is kept in its bytecode encoding" }

func TestWriteRefusesBytecodeOnlyValues(t *testing.T) {
	m := graph.NewModule()
	op := graph.NewOp("coreai.constant", nil, []graph.Type{graph.Tensor(graph.F16, 2)}, nil, &graph.NameLoc{Name: "c_1"})
	op.SetAttr("value", &graph.ArrayAttr{Elems: []graph.Attr{opaqueAttr{&graph.RawAttr{Text: "#x"}}}})
	m.Body().Append(op)
	var b bytes.Buffer
	err := Write(&b, m, FormGeneric)
	if err == nil || !strings.Contains(err.Error(), "c_1") || !strings.Contains(err.Error(), "no MLIR text form") {
		t.Fatalf("got %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes before failing", b.Len())
	}
}
