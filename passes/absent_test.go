package passes

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

func TestMarkAbsentWeights(t *testing.T) {
	const text = `module {
  coreai.graph @main() -> (tensor<2xf16>, tensor<2xf16>, tensor<2xf16>) {
    %a = coreai.constant dense_resource<present> : tensor<2xf16>
    %b = coreai.constant dense_resource<gone_b> : tensor<2xf16>
    %c = coreai.constant dense_resource<gone_a> : tensor<2xf16>
    coreai.output %a, %b, %c : tensor<2xf16>, tensor<2xf16>, tensor<2xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      present: "0x0200000000000000"
    }
  }
#-}
`
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Verify(m); err == nil {
		t.Fatal("a module missing two blobs verifies")
	}
	if got := strings.Join(absentWeights(m), ","); got != "gone_a,gone_b" {
		t.Fatalf("AbsentWeights = %s", got)
	}
	if got := strings.Join(MarkAbsentWeights(m), ","); got != "gone_a,gone_b" {
		t.Fatalf("MarkAbsentWeights = %s", got)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("after marking: %v", err)
	}
	if len(absentWeights(m)) != 0 || len(MarkAbsentWeights(m)) != 0 {
		t.Error("marking is not idempotent")
	}
	// What needs the bytes still fails, naming the key.
	if _, err := m.Resource("gone_a").Bytes(); err == nil || !strings.Contains(err.Error(), "gone_a") {
		t.Errorf("Bytes of an absent blob: %v", err)
	}
	if n := AbsentWeightsNote([]string{"a", "b", "c", "d", "e", "f", "g"}); !strings.Contains(n, "7 dense_resource blob(s)") || !strings.Contains(n, "(a, b, c, d, e and 2 more;") {
		t.Errorf("note = %s", n)
	}
}
