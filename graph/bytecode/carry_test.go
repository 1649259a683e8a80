package bytecode

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"
)

// TestCarryDialectVersionsAndResources: dialect version blobs, external
// resource groups and bool/string resource entries (which no test file
// from mlir-opt 19 has) survive a read and an unchanged rewrite.
func TestCarryDialectVersionsAndResources(t *testing.T) {
	m := synthModule(1, 64)
	m.ExternalResources = []*graph.Resource{
		{Dialect: "mlir_reproducer", Key: "pipeline", Kind: graph.StringResource, String: "builtin.module(cse)"},
		{Dialect: "mlir_reproducer", Key: "disable_threading", Kind: graph.BoolResource, Bool: true},
		{Dialect: "other", Key: "blob", Kind: graph.BlobResource, Alignment: 8, Blob: graph.MemBlob{1, 2, 3}},
	}
	m.Resources = append(m.Resources, &graph.Resource{Dialect: "coreai", Key: "flag", Kind: graph.BoolResource, Bool: true})
	data := write(t, m, WriteOptions{})

	// Give the coreai dialect a version blob by rewriting with a source
	// whose dialect table carries one.
	m1, src := read(t, data)
	for i := range src.f.dialects {
		if src.f.dialects[i].name == "coreai" {
			src.f.dialects[i].version = []byte{0x03, 0x05}
		}
	}
	versioned := write(t, m1, WriteOptions{Source: src})

	m2, src2 := read(t, versioned)
	var ver []byte
	for _, d := range src2.f.dialects {
		if d.name == "coreai" {
			ver = d.version
		}
	}
	if !bytes.Equal(ver, []byte{0x03, 0x05}) {
		t.Errorf("coreai dialect version = %x, want 0305", ver)
	}
	if again := write(t, m2, WriteOptions{Source: src2}); !bytes.Equal(again, versioned) {
		t.Errorf("unchanged rewrite is not byte-identical")
	}
	ext := m2.ExternalResources
	if len(ext) != 3 || ext[0].String != "builtin.module(cse)" || !ext[1].Bool || ext[2].Dialect != "other" || ext[2].Alignment != 8 {
		t.Fatalf("external resources not carried: %+v", ext)
	}
	if b, err := ext[2].Bytes(); err != nil || !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Errorf("external blob = %v, %v", b, err)
	}
	if r := m2.Resources[len(m2.Resources)-1]; r.Dialect != "coreai" || r.Kind != graph.BoolResource || !r.Bool {
		t.Errorf("coreai bool resource not carried: %+v", r)
	}
}

// TestRemovedResource: a resource a pass removes becomes an empty
// declaration, so the handles inside kept attribute encodings still point
// at the right keys, and mlir-opt reads the file.
func TestRemovedResource(t *testing.T) {
	m := synthModule(3, 64)
	data := write(t, m, WriteOptions{})
	m2, src := read(t, data)
	// Drop the first layer's weight and its users, keep w1 and w2.
	m2.RemoveResource("w0")
	out := write(t, m2, WriteOptions{Source: src})
	m3, _ := read(t, out)
	if r := m3.Resource("w1"); r == nil || r.Size() != 64 {
		t.Fatalf("w1 lost or resized: %+v", r)
	}
	if r := m3.Resource("w0"); r == nil || r.Blob != nil {
		t.Fatalf("w0 should remain as an empty declaration, got %+v", r)
	}
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		got := canonical(t, tl, out)
		if !bytes.Contains([]byte(got), []byte("dense_resource<w1>")) || !bytes.Contains([]byte(got), []byte("w2: \"0x10000000")) {
			t.Errorf("unexpected printout:\n%s", got)
		}
	})
}

// TestDescribedSource: a Described source keeps what describes the input
// and none of the tables, and writing with it is writing with no source.
func TestDescribedSource(t *testing.T) {
	m := synthModule(1, 64)
	data := write(t, m, WriteOptions{Version: 5})
	m1, src := read(t, data)
	d := src.Described()
	if d.Name != src.Name || d.Size != src.Size || d.Version != 5 || d.Producer != src.Producer {
		t.Errorf("described %+v, read %+v", d, src)
	}
	if len(d.Dialects()) != len(src.Dialects()) || len(d.attrs)+len(d.locs)+len(d.types)+len(d.opLocs)+len(d.ops) != 0 {
		t.Errorf("described source keeps tables: %d dialects of %d, %d attrs, %d locs", len(d.Dialects()), len(src.Dialects()), len(d.attrs), len(d.locs))
	}
	if got, want := write(t, m1, WriteOptions{Source: d}), write(t, m1, WriteOptions{}); !bytes.Equal(got, want) {
		t.Errorf("writing with a described source differs from writing with none (%d bytes vs %d)", len(got), len(want))
	}
}

// TestTableBytes: TableBytes is no more than the heap the tables hold,
// measured as what dropping them (Described) gives back while the module
// stays, and at least half of it (it leaves out the maps and the strings'
// bytes; a budget that leaves the tables out must not leave out more than
// they hold); a Described source holds none.
func TestTableBytes(t *testing.T) {
	data := write(t, synthModule(3000, 16), WriteOptions{})
	m, src := read(t, data)
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	est := src.TableBytes()
	src = src.Described()
	runtime.GC()
	runtime.ReadMemStats(&without)
	runtime.KeepAlive(m)
	runtime.KeepAlive(data)
	freed := int64(with.HeapAlloc) - int64(without.HeapAlloc)
	t.Logf("TableBytes %d, dropping the tables gave back %d", est, freed)
	if est < freed/2 || est > freed {
		t.Errorf("TableBytes %d; dropping the tables gave back %d bytes", est, freed)
	}
	if n := src.TableBytes(); n != 0 {
		t.Errorf("a Described source's TableBytes %d; want 0", n)
	}
}
