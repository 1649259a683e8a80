package compare

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
)

// blobBytesByKey is what the test expects a store to hold, derived from
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

// saveLoad writes m as an .aimodel in a temporary directory and loads it
// back: CAND as verify sees it, its blobs in a file of their own.
func saveLoad(t *testing.T, m *graph.Module) *graph.Module {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "cand.aimodel")
	if _, err := modelio.Save(dst, m, nil, modelio.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ld, err := modelio.Load(dst, modelio.LoadOptions{})
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
// palette blobs are held besides REF's. The outcome is bit-for-bit the
// one of separate stores (each interpreter its own blobs, as before).
func TestTeacherSharesIdenticalBlobs(t *testing.T) {
	cases := []struct {
		name     string
		passes   []string // nil: CAND is REF's file loaded again
		set      []string
		compared bool // CAND's shared blobs were read to compare
	}{
		{name: "same file"},
		{name: "default rewrite", passes: []string{}, compared: true},
		{name: "palettize 8 bits", passes: []string{"palettize"}, set: []string{"palettize.bits=8"}, compared: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, cand := loadArmA(t)
			if c.passes != nil {
				spec := passes.Spec{Passes: c.passes, Set: c.set}
				if len(c.passes) == 0 {
					spec = passes.Spec{}
				}
				p, err := passes.Build(spec)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Run(cand, passes.RunOptions{}); err != nil {
					t.Fatal(err)
				}
				cand = saveLoad(t, cand)
			}
			one, both, same := expectedBlobs(t, ref, cand)
			if same == 0 || one == 0 {
				t.Fatalf("the case shares nothing: one graph %d bytes, identical %d", one, same)
			}
			streams := RandomStreams(3, 6, 256, 0)
			shared, err := CompareTeacher(ref, cand, TeacherOptions{Streams: streams})
			if err != nil {
				t.Fatal(err)
			}
			want := interp.SharedBlobsStats{Held: both - same, Shared: same}
			if c.compared {
				want.Compared = same
			}
			if shared.Blobs != want {
				t.Errorf("blobs %+v, want %+v (one graph's blobs %d, both %d)", shared.Blobs, want, one, both)
			}
			if c.passes != nil && len(c.passes) == 0 && shared.Blobs.Held != one {
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
			if apart.Blobs != (interp.SharedBlobsStats{Held: both}) {
				t.Errorf("separate stores: %+v, want held %d (both graphs' blobs)", apart.Blobs, both)
			}
			shared.Blobs, apart.Blobs = interp.SharedBlobsStats{}, interp.SharedBlobsStats{}
			if !reflect.DeepEqual(shared, apart) {
				t.Errorf("shared blobs changed the outcome:\n%+v\nseparate:\n%+v", shared, apart)
			}
			t.Logf("one graph's blobs %d bytes, identical in both %d; shared store %+v", one, same, want)
		})
	}
}
