package compare

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
)

// expectedBlobs is what the test expects a store to hold, derived from
// the modules alone: the bytes of the float blobs (weights, read in place)
// and of the palette indices each module's constants name, and of those,
// the keys whose bytes are the same in both modules.
func expectedBlobs(t *testing.T, ref, cand *graph.Module) (one, both, same int64) {
	t.Helper()
	used := func(m *graph.Module) map[string][]byte {
		out := map[string][]byte{}
		for _, g := range m.Graphs() {
			g.Op.Walk(func(o *graph.Operation) bool {
				if a, ok := o.Inherent("value").(*graph.DenseResourceAttr); ok && o.Name == "coreai.constant" {
					r := m.Resource(a.Key)
					b, err := r.Bytes()
					if err != nil {
						t.Fatal(err)
					}
					out[a.Key] = b
				}
				return true
			})
		}
		return out
	}
	rb, cb := used(ref), used(cand)
	for k, b := range rb {
		one += int64(len(b))
		both += int64(len(b))
		if c, ok := cb[k]; ok && bytes.Equal(b, c) {
			same += int64(len(b))
		}
	}
	for _, c := range cb {
		both += int64(len(c))
	}
	return one, both, same
}

// expectedFolds is the bytes of the palettized weights each module's
// interpreter computes (lut_to_dense ops of constants, by their result
// types), and of those, the ones whose index and palette blobs are
// byte-identical in the other module (computed once for both).
func expectedFolds(t *testing.T, ref, cand *graph.Module) (both, same int64) {
	t.Helper()
	type fold struct {
		blobs [2][]byte
		sig   string
	}
	folds := func(m *graph.Module) map[*graph.Operation]fold {
		out := map[*graph.Operation]fold{}
		m.Graph("main").Op.Walk(func(o *graph.Operation) bool {
			if !strings.HasSuffix(o.Name, "lut_to_dense") {
				return true
			}
			var f fold
			f.sig = o.Result(0).Type().String()
			for k := range 2 {
				switch a := o.Operand(k).DefiningOp().Inherent("value").(type) {
				case *graph.DenseResourceAttr:
					b, err := m.Resource(a.Key).Bytes()
					if err != nil {
						t.Fatal(err)
					}
					f.blobs[k], f.sig = b, f.sig+a.Type.String()
				default:
					f.sig += fmt.Sprint(a)
				}
			}
			for _, v := range o.Operands()[2:] {
				f.sig += fmt.Sprint(v.DefiningOp().Inherent("value"))
			}
			out[o] = f
			return true
		})
		return out
	}
	size := func(o *graph.Operation) int64 {
		n, err := o.Result(0).Type().(*graph.TensorType).ByteSize()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	rf, cf := folds(ref), folds(cand)
	for o := range rf {
		both += size(o)
	}
	for o, f := range cf {
		both += size(o)
		for _, g := range rf {
			if f.sig == g.sig && bytes.Equal(f.blobs[0], g.blobs[0]) && bytes.Equal(f.blobs[1], g.blobs[1]) {
				same += size(o)
				break
			}
		}
	}
	return both, same
}

// saveFile writes m as an .aimodel in a temporary directory: a file of
// its own, as verify sees a rewrite's output.
func saveFile(t *testing.T, m *graph.Module) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "out.aimodel")
	if _, err := modelio.Save(dst, m, nil, modelio.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return dst
}

func loadFile(t *testing.T, path string) *graph.Module {
	t.Helper()
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ld.Close() })
	return ld.Module
}

// A weight blob byte-identical in REF and CAND is held (mapped, paged in)
// once for both: the store holds one graph's blob bytes plus only the
// blobs CAND changed, whatever the pipeline. Same file twice: nothing is
// read to tell. A rewrite saved to its own file: CAND's unchanged blobs
// are read once to compare, never held. Palettized: the new index and
// palette blobs are held besides REF's, and CAND's weights are folded
// (lut_to_dense) for CAND alone. REF palettized and CAND its rewrite: the
// palettized weights are folded once for both. A conv or matmul on the
// same weight bytes in both runs once for both graphs' streams. The
// outcome is bit-for-bit the one of separate stores (each interpreter its
// own blobs and folds, each op run per graph: as before).
func TestTeacherSharesIdenticalBlobs(t *testing.T) {
	palettize8 := passes.Spec{Passes: []string{"palettize"}, Set: []string{"palettize.bits=8"}}
	cases := []struct {
		name      string
		ref, cand *passes.Spec // nil: the shipped file as it is
		compared  bool         // CAND's shared blobs were read to compare
	}{
		{name: "same file"},
		{name: "default rewrite", cand: &passes.Spec{}, compared: true},
		{name: "palettize 8 bits", cand: &palettize8, compared: true},
		// REF palettized and saved; CAND the default rewrite of that
		// file, saved apart: the palettized weights are folded once.
		{name: "rewrite of a palettized file", ref: &palettize8, cand: &passes.Spec{}, compared: true},
	}
	run := func(t *testing.T, spec *passes.Spec, m *graph.Module) *graph.Module {
		p, err := passes.Build(*spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(m, passes.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, cand := loadArmA(t)
			if c.ref != nil {
				path := saveFile(t, run(t, c.ref, ref))
				ref, cand = loadFile(t, path), loadFile(t, path)
			}
			if c.cand != nil {
				cand = loadFile(t, saveFile(t, run(t, c.cand, cand)))
			}
			one, both, same := expectedBlobs(t, ref, cand)
			foldBoth, foldSame := expectedFolds(t, ref, cand)
			if same == 0 || one == 0 {
				t.Fatalf("the case shares nothing: one graph %d bytes, identical %d", one, same)
			}
			streams := RandomStreams(3, 6, 256, 0)
			shared, err := CompareTeacher(ref, cand, TeacherOptions{Streams: streams})
			if err != nil {
				t.Fatal(err)
			}
			want := interp.SharedBlobsStats{Held: both - same, Shared: same, Folded: foldBoth - foldSame, FoldShared: foldSame}
			if c.compared {
				want.Compared = same
			}
			if shared.Blobs != want {
				t.Errorf("blobs %+v, want %+v (one graph's blobs %d, both %d)", shared.Blobs, want, one, both)
			}
			if c.name == "default rewrite" && shared.Blobs.Held != one {
				t.Errorf("unchanged weights: held %d bytes, want one graph's %d", shared.Blobs.Held, one)
			}
			sep := TeacherOptions{Streams: streams}
			sep.Ref.Blobs, sep.Cand.Blobs = interp.NewSharedBlobs(), interp.NewSharedBlobs()
			defer sep.Ref.Blobs.Close()
			defer sep.Cand.Blobs.Close()
			apart, err := CompareTeacher(ref, cand, sep)
			if err != nil {
				t.Fatal(err)
			}
			if apart.Blobs != (interp.SharedBlobsStats{Held: both, Folded: foldBoth}) {
				t.Errorf("separate stores: %+v, want held %d and folded %d (both graphs')", apart.Blobs, both, foldBoth)
			}
			// Every conv and matmul of one graph on a weight the other
			// holds too, applied alike, runs once for both (interp.Pair):
			// with all weights identical, the two graphs read one graph's
			// weight bytes; palettized, those of the unchanged weights.
			t.Logf("weight bytes read: shared %d (%d ops paired), apart %d", shared.WeightBytes, shared.PairedOps, apart.WeightBytes)
			switch {
			case same == one && 2*shared.WeightBytes != apart.WeightBytes:
				t.Errorf("identical weights: read %d bytes together, want half of %d (apart)", shared.WeightBytes, apart.WeightBytes)
			case same < one && (shared.WeightBytes <= apart.WeightBytes/2 || shared.WeightBytes >= apart.WeightBytes):
				t.Errorf("some weights identical: read %d bytes together, want between half of %d (apart) and all", shared.WeightBytes, apart.WeightBytes)
			}
			shared.Blobs, apart.Blobs = interp.SharedBlobsStats{}, interp.SharedBlobsStats{}
			shared.WeightBytes, apart.WeightBytes, shared.PairedOps = 0, 0, 0
			if !reflect.DeepEqual(shared, apart) {
				t.Errorf("shared blobs changed the outcome:\n%+v\nseparate:\n%+v", shared, apart)
			}
			t.Logf("one graph's blobs %d bytes, identical in both %d; shared store %+v", one, same, want)
		})
	}
}
