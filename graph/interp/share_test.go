package interp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// shareModule is a module whose @main returns the f16 constants named by
// keys (tensor<2xf16> each), with the given blob bytes.
func shareModule(t *testing.T, name string, blobs map[string][]byte, keys ...string) *graph.Module {
	t.Helper()
	var body, ret, types, res string
	for i, k := range keys {
		body += fmt.Sprintf("    %%c%d = coreai.constant dense_resource<%s> : tensor<2xf16>\n", i, k)
		if i > 0 {
			ret, types, res = ret+", ", types+", ", res+",\n"
		}
		ret += fmt.Sprintf("%%c%d", i)
		types += "tensor<2xf16>"
		res += fmt.Sprintf("      %s: %q", k, blobHex(2, blobs[k]))
	}
	src := fmt.Sprintf("module {\n  coreai.graph @main() -> (%s) {\n%s    coreai.output %s : %s\n  }\n}\n{-#\n  dialect_resources: {\n    builtin: {\n%s\n    }\n  }\n#-}\n", types, body, ret, types, res)
	m, _, err := mlirtext.Parse(name+".mlir", src)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, src)
	}
	return m
}

// Two interpreters given one store: a blob of the same key, size and bytes
// is held once and both read the same bytes; one of the same key and size
// whose bytes differ, or the same bytes under another key, is held apart
// and each interpreter sees its own module's values. Half-precision bits:
// 0x3C00 is 1, 0x4000 is 2, 0x4200 is 3.
func TestSharedBlobs(t *testing.T) {
	one := []byte{0x00, 0x3C, 0x00, 0x40} // [1, 2]
	three := []byte{0x00, 0x3C, 0x00, 0x42}
	a := shareModule(t, "ref", map[string][]byte{"w": one, "v": one}, "w", "v")
	b := shareModule(t, "cand", map[string][]byte{"w": one, "v": three, "u": one}, "w", "v", "u")
	s := NewSharedBlobs()
	defer s.Close()
	ia, ib := New(a, Options{Blobs: s}), New(b, Options{Blobs: s})
	defer ia.Close()
	defer ib.Close()
	// Before the runs read them out (a constant read as floats keeps the
	// floats, not the bytes).
	wa, _ := ia.Constant(constantOp(t, a, "w"))
	wb, _ := ib.Constant(constantOp(t, b, "w"))
	vb, _ := ib.Constant(constantOp(t, b, "v"))
	va, _ := ia.Constant(constantOp(t, a, "v"))
	if &wa.raw[0] != &wb.raw[0] {
		t.Error("w is byte-identical in both modules but held twice")
	}
	if &va.raw[0] == &vb.raw[0] {
		t.Error("v differs between the modules but one copy serves both")
	}
	ra, err := ia.Run("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ib.Run("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 2}, {1, 2}, {1, 2}, {1, 3}, {1, 2}}
	for i, r := range append(ra, rb...) {
		if got := r.Floats(); len(got) != 2 || got[0] != want[i][0] || got[1] != want[i][1] {
			t.Errorf("output %d = %v, want %v", i, got, want[i])
		}
	}
	// Held: ref's w and v, cand's v (differs) and u (another key); shared:
	// cand's w; compared: cand's w and v, read once each.
	if got, want := s.Stats(), (SharedBlobsStats{Held: 16, Shared: 4, Compared: 8}); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
}

// A blob that reads short while compared is an error naming its key, not
// a comparison of stale bytes.
func TestSharedBlobsShortRead(t *testing.T) {
	one := []byte{0x00, 0x3C, 0x00, 0x40}
	a := shareModule(t, "ref", map[string][]byte{"w": one}, "w")
	b := shareModule(t, "cand", map[string][]byte{"w": one}, "w")
	b.Resource("w").Blob = &graph.SectionBlob{R: bytes.NewReader(one[:2]), N: 4}
	s := NewSharedBlobs()
	defer s.Close()
	if _, err := New(a, Options{Blobs: s}).Constant(constantOp(t, a, "w")); err != nil {
		t.Fatal(err)
	}
	_, err := New(b, Options{Blobs: s}).Constant(constantOp(t, b, "w"))
	if err == nil || !strings.Contains(err.Error(), "dense_resource<w>") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short blob: %v", err)
	}
}

func constantOp(t *testing.T, m *graph.Module, key string) *graph.Operation {
	t.Helper()
	var found *graph.Operation
	m.Graph("main").Op.Walk(func(o *graph.Operation) bool {
		if a, ok := o.Inherent("value").(*graph.DenseResourceAttr); ok && a.Key == key {
			found = o
		}
		return true
	})
	if found == nil {
		t.Fatalf("no constant of %s", key)
	}
	return found
}
