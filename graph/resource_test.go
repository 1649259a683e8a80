package graph_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
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

// TestResourceRefsWorkLinear doubles the resources of a module and the
// opaque attributes naming them (one each): counting references must take
// twice the work, not four times (each text was searched once per key).
func TestResourceRefsWorkLinear(t *testing.T) {
	var works [2]graph.Work
	for i, n := range []int{300, 600} {
		var ops, blobs strings.Builder
		for k := range n {
			fmt.Fprintf(&ops, "  %%%d = \"x.op\"() {note = #x.thing<\"uses w%d.\">} : () -> tensor<1xf16>\n", k, k)
			fmt.Fprintf(&blobs, "      w%d.: \"0x020000000000\",\n", k)
		}
		src := "module {\n" + ops.String() + "}\n{-#\n  dialect_resources: {\n    builtin: {\n" + strings.TrimSuffix(blobs.String(), ",\n") + "\n    }\n  }\n#-}\n"
		m, _, err := mlirtext.Parse("refs.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		var refs map[string]int
		works[i] = graph.CountWork(func() { refs, _ = m.ResourceRefs() })
		if len(refs) != n || refs["w0."] != 1 {
			t.Fatalf("%d keys referred to (w0. %d times), want %d, each once", len(refs), refs["w0."], n)
		}
	}
	if r := float64(works[1].Total()) / float64(works[0].Total()); r > 2.2 {
		t.Errorf("work %+v at 300, %+v at 600: ×%.2f", works[0], works[1], r)
	}
}

// A blob that claims more bytes than its file holds is an error, not bytes
// padded with zeros.
func TestResourceBytesTruncated(t *testing.T) {
	file := bytes.NewReader([]byte{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		name    string
		blob    *graph.SectionBlob
		want    []byte
		wantErr string
	}{
		{"whole", &graph.SectionBlob{R: file, Offset: 2, N: 4}, []byte{3, 4, 5, 6}, ""},
		{"past the end", &graph.SectionBlob{R: file, Offset: 4, N: 4}, nil, "only 2 of its 4 bytes"},
	} {
		r := &graph.Resource{Key: "w", Blob: tc.blob}
		got, err := r.Bytes()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: Bytes() = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
