package graph_test

import (
	"reflect"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// TestResourceRefs counts a dense_resource reference per attribute, and a
// key named inside an opaque attribute's text once; an unreferenced blob
// gets no entry.
func TestResourceRefs(t *testing.T) {
	src := `module {
  %0 = "coreai.constant"() {value = dense_resource<a> : tensor<1xf16>} : () -> tensor<1xf16>
  %1 = "coreai.constant"() <{value = dense_resource<a> : tensor<1xf16>}> : () -> tensor<1xf16>
  %2 = "x.op"() {note = #x.thing<"uses b">} : () -> tensor<1xf16>
}
{-#
  dialect_resources: {
    builtin: {
      a: "0x020000000000",
      b: "0x020000000000",
      c: "0x020000000000"
    }
  }
#-}
`
	m, _, err := mlirtext.Parse("refs.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	refs, ok := m.ResourceRefs()
	if want := map[string]int{"a": 2, "b": 1}; !ok || !reflect.DeepEqual(refs, want) {
		t.Errorf("ResourceRefs = %v, %v; want %v, true", refs, ok, want)
	}
}
