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

	// One past it, as bytecode: a file written with alignment 2^14 (less
	// padding for the fuzz seed than 2^16), its varint patched to 2^17,
	// which has the same length.
	m14, _, err := mlirtext.Parse("ok.mlir", alignText("00400000"))
	if err != nil {
		t.Fatal(err)
	}
	var b14 bytes.Buffer
	if err := Write(&b14, m14, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b14.Bytes(), appendVarint(appendVarint(nil, 1<<14), 2))
	if at < 0 || len(appendVarint(nil, 1<<14)) != len(appendVarint(nil, 1<<17)) {
		t.Fatal("no resource header (alignment 2^14, size 2) in the written file")
	}
	bad := bytes.Clone(b14.Bytes())
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

// deepModule is a module whose top op holds regions nested `regions` deep
// ("t.r" ops, one region each) around an op carrying an attribute of
// `arrays` nested arrays.
func deepModule(regions, arrays int) *graph.Module {
	m := graph.NewModule()
	blk := m.Body()
	for range regions {
		op := graph.NewOp("t.r", nil, nil, nil, graph.Unknown)
		blk.Append(op)
		blk = op.AddRegion().AddBlock(nil, nil)
	}
	var a graph.Attr = graph.Int(1, &graph.IntegerType{Width: 64})
	for range arrays {
		a = &graph.ArrayAttr{Elems: []graph.Attr{a}}
	}
	blk.Append(graph.NewOp("t.x", nil, nil, graph.Dict(graph.NamedAttr{Name: "a", Value: a}), graph.Unknown))
	return m
}

// TestDeepNestingToText: bytecode nests deeper than MLIR text may
// (graph.MaxNesting); such a module reads and writes as bytecode, and the
// text printer refuses it with the op at fault instead of writing text
// anefix's own reader refuses ("nesting deeper than 1000 levels", as it did
// for 800 nested regions and 1,500 nested arrays). Just under the limit it
// prints, and the text reads back. Both deep files join FuzzRead's seeds,
// whose check now includes the text round trip.
func TestDeepNestingToText(t *testing.T) {
	cases := []struct {
		name            string
		regions, arrays int
		refused         bool
	}{
		{"regions_800", 800, 0, true},
		{"arrays_1500", 0, 1500, true},
		{"regions_495", 495, 0, false}, // the parser meets 2 levels a region: 990 and the op
		{"arrays_990", 0, 990, false},  // above the cheap bound: the parser decides
		{"regions_497", 497, 0, false}, // op 995, region 996, t.x 997, its dictionary, value and type 1000
		{"regions_498", 498, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, deepModule(c.regions, c.arrays), WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			m, _, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), c.name+".mlirb")
			if err != nil {
				t.Fatalf("bytecode does not read back: %v", err)
			}
			for _, form := range []mlirtext.Form{mlirtext.FormGeneric, mlirtext.FormPretty} {
				text, err := mlirtext.Format(m, form)
				if c.refused {
					if err == nil || !strings.Contains(err.Error(), "more than the 1000 levels") || !strings.Contains(err.Error(), "write bytecode") {
						t.Errorf("%v: got %v, want the nesting refusal", form, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%v: %v", form, err)
				}
				if _, _, err := mlirtext.Parse("deep.mlir", string(text)); err != nil {
					t.Errorf("%v: printed text does not read back: %v", form, err)
				}
			}
			if c.refused {
				goldentest.FuzzSeed(t, "FuzzRead", "deep_"+c.name, b.Bytes())
			}
		})
	}
}
