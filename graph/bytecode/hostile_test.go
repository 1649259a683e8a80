package bytecode

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/goldentest"
	"github.com/anefix/anefix/graph/mlirtext"
)

// alignText is a blob with the given alignment prefix (little-endian hex).
func alignText(prefix string) string {
	return `"t.c"() : () -> ()` + "\n{-# dialect_resources: { builtin: { w: \"0x" + prefix + "0102\" } } #-}\n"
}

// TestAlignmentLimit: both readers and both writers share one limit
// (graph.MaxBlobAlignment, 2^16), so text anefix parses always becomes
// bytecode anefix reads, and neither writer emits an alignment its reader
// refuses. Before the shared limit, text with 2^17 parsed and became
// bytecode the reader refused; 2^31 grew the output past 11 GB.
func TestAlignmentLimit(t *testing.T) {
	// At the limit: text → bytecode → read back keeps the alignment.
	m, _, err := mlirtext.Parse("ok.mlir", alignText("00000100"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, m, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m2, _, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "ok.mlirb")
	if err != nil {
		t.Fatalf("reading what was written at the limit: %v", err)
	}
	if got := m2.Resources[0].Alignment; got != graph.MaxBlobAlignment {
		t.Fatalf("alignment %d read back, want %d", got, graph.MaxBlobAlignment)
	}

	// One past it, as bytecode: the varint of 2^16 and 2^17 have the same
	// length, so patching the written file gives the hostile input.
	at := bytes.Index(b.Bytes(), appendVarint(appendVarint(nil, 1<<16), 2))
	if at < 0 {
		t.Fatal("no resource header (alignment 2^16, size 2) in the written file")
	}
	bad := bytes.Clone(b.Bytes())
	copy(bad[at:], appendVarint(nil, 1<<17))
	if _, _, err := Read(bytes.NewReader(bad), int64(len(bad)), "bad.mlirb"); err == nil || !strings.Contains(err.Error(), "alignment 131072 is not a power of two up to 65536") {
		t.Errorf("bytecode with alignment 2^17: got %v", err)
	}
	goldentest.FuzzSeed(t, "FuzzRead", "align_2p17", bad)

	// As text: refused at parse time.
	for _, prefix := range []string{"00000200", "00000080"} {
		if _, _, err := mlirtext.Parse("bad.mlir", alignText(prefix)); err == nil || !strings.Contains(err.Error(), "up to 65536") {
			t.Errorf("text with alignment prefix %s: got %v", prefix, err)
		}
	}

	// A module built in memory (a pass's AddResource) past the limit:
	// both writers refuse rather than write what their readers refuse.
	for _, align := range []uint64{1 << 17, 3, 1 << 32} {
		m := graph.NewModule()
		m.AddResource("w", align, graph.MemBlob{1, 2})
		if err := Write(&bytes.Buffer{}, m, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "is not a power of two up to 65536") {
			t.Errorf("bytecode writer, alignment %d: got %v", align, err)
		}
		if _, err := mlirtext.Format(m, mlirtext.FormGeneric); err == nil || !strings.Contains(err.Error(), "is not a power of two up to 65536") {
			t.Errorf("text printer, alignment %d: got %v", align, err)
		}
	}
}

// TestHostileNamesSeed keeps the bytecode of testdata/hostile/names.mlir
// (names with newlines, terminal escapes and bytes that are not UTF-8) in
// FuzzRead's seed corpus: the reader reads it and the writer writes it back
// readable (checkRead), and every `go test` replays it.
func TestHostileNamesSeed(t *testing.T) {
	src, err := os.ReadFile("../../testdata/hostile/names.mlir")
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse("names.mlir", string(src))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, m, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRead(t, b.Bytes())
	goldentest.FuzzSeed(t, "FuzzRead", "hostile_names", b.Bytes())
}
