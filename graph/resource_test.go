package graph_test

import (
	"bytes"
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
