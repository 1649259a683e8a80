package compare

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestPickFunctionNamesTheChoices(t *testing.T) {
	m := graph.NewModule()
	for _, n := range []string{"extend_256_8", "gather_embeddings_64"} {
		op := graph.NewOp("coreai.graph", nil, nil, nil, graph.Unknown)
		op.Props = graph.Dict(graph.NamedAttr{Name: graph.AttrSymName, Value: graph.Str(n)})
		m.Body().Append(op)
	}
	_, err := pickFunction(m, "nope")
	if err == nil || !strings.Contains(err.Error(), "one of: @extend_256_8, @gather_embeddings_64") {
		t.Fatalf("got %v", err)
	}
	if g, err := pickFunction(m, "gather_embeddings_64"); err != nil || g.Name() != "gather_embeddings_64" {
		t.Fatalf("got %v, %v", g, err)
	}
}
