package bytecode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth"
)

// armA is tiny synth arm A with layers layers, as bytecode.
func armA(t testing.TB, layers int) []byte {
	t.Helper()
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return write(t, m, WriteOptions{})
}

func printed(t testing.TB, m *graph.Module) string {
	t.Helper()
	out, err := mlirtext.Format(m, mlirtext.FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestEditsWithSource: the writer reuses what the reader recorded of each
// op (Source.ops, opLocs, opAttrs) in the order it was read, so edits that
// move, add and remove ops or give them other locations, attributes and
// properties put the records out of step with the walk. Whatever the edits,
// the module written with its Source reads back as the edited module, and
// so does the same module written without one; an unchanged module comes
// back byte for byte.
func TestEditsWithSource(t *testing.T) {
	data := armA(t, 2)
	m0, src0 := read(t, data)
	if got := write(t, m0, WriteOptions{Source: src0}); !bytes.Equal(got, data) {
		t.Fatal("an unchanged module is not written back byte for byte")
	}
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			m, src := read(t, data)
			r := rand.New(rand.NewPCG(seed, 7))
			edits := editRandomly(t, m, r, 1+r.IntN(12))
			if err := graph.Verify(m); err != nil {
				t.Fatalf("edits %v broke the module: %v", edits, err)
			}
			want := printed(t, m)
			for _, opts := range []WriteOptions{{Source: src}, {}} {
				back, _ := read(t, write(t, m, opts))
				if got := printed(t, back); got != want {
					t.Fatalf("edits %v, source %v: the module read back differs from the edited one", edits, opts.Source != nil)
				}
			}
		})
	}
}

// editRandomly makes n edits that keep m valid and returns their names.
func editRandomly(t *testing.T, m *graph.Module, r *rand.Rand, n int) []string {
	body := m.Graph("main").Body()
	var done []string
	for range n {
		ops := body.Ops()
		op := ops[r.IntN(len(ops)-1)] // not the terminator
		switch k := r.IntN(6); k {
		case 0: // swap two ops' locations
			o2 := ops[r.IntN(len(ops))]
			op.Loc, o2.Loc = o2.Loc, op.Loc
			done = append(done, "swap-locs")
		case 1: // an equal location that is another object
			op.Loc = &graph.NameLoc{Name: "edited", Child: op.Loc}
			done = append(done, "new-loc")
		case 2: // new properties and attributes, equal ones as other objects
			if d, ok := op.Props.(*graph.DictAttr); ok {
				op.Props = graph.Dict(d.Entries...)
			}
			op.SetAttr("edit", graph.Int(int64(r.IntN(3)), graph.I64))
			done = append(done, "attrs")
		case 3: // a new op using op's first result, right after it
			if op.NumResults() == 0 {
				continue
			}
			v := op.Result(0)
			nw := graph.NewOp("test.use", []*graph.Value{v}, []graph.Type{v.Type()}, nil, &graph.FileLoc{File: "edit.py", Line: 1, Col: 1})
			nw.InsertAfter(op)
			done = append(done, "insert")
		case 4: // an op without operands moved to the start of the block
			if op.NumOperands() > 0 || op == body.First() {
				continue
			}
			op.Remove()
			body.Prepend(op)
			done = append(done, "move")
		case 5: // an unused op erased
			if len(op.Regions) > 0 || graph.IsGraphOp(op) {
				continue
			}
			unused := true
			for _, res := range op.Results() {
				unused = unused && !res.HasUses()
			}
			if !unused {
				continue
			}
			if err := op.Erase(); err != nil {
				t.Fatal(err)
			}
			done = append(done, "erase")
		}
	}
	return done
}

// TestCodecWorkPerOp bounds the heap allocations (count and bytes) each
// codec step makes per op of an exporter-shaped module (tiny synth arm A:
// coreai-torch's fused locations, which neighbouring ops repeat, and
// properties that most ops repeat), counted, not timed. Each bound fails on
// the code before issue 22's codec work (see the figures in the comments);
// go test -run CodecWorkPerOp -v prints what this code does.
func TestCodecWorkPerOp(t *testing.T) {
	data := armA(t, 8)
	m, src := read(t, data)
	n := float64(m.NumOps())
	generic, pretty := printed(t, m), ""
	if out, err := mlirtext.Format(m, mlirtext.FormPretty); err != nil {
		t.Fatal(err)
	} else {
		pretty = string(out)
	}
	textM, _, err := mlirtext.Parse("a.mlir", generic)
	if err != nil {
		t.Fatal(err)
	}
	var sink bytes.Buffer
	sink.Grow(4 * len(generic))
	prettyM, _, err := mlirtext.Parse("a.mlir", pretty)
	if err != nil {
		t.Fatal(err)
	}
	// The code before (commit 638e014) made, per op: parse generic 21.1
	// allocations, 981 bytes; parse pretty 21.9, 1,030; print generic 27.6,
	// 1,549 (each location's spelling built as nested strings, a map entry
	// a value); print pretty 28.9, 1,450; read bytecode 9.75, 770; write
	// unchanged 0.27, 408 (identity maps of every decoded entry and value);
	// write parsed text 2.42, 1,035. Each bound below fails on it.
	steps := []struct {
		name string
		// bounds: allocations and bytes an op.
		allocs, bytes float64
		run           func() error
	}{
		{"parse generic", 12, 850, func() error { _, _, err := mlirtext.Parse("a.mlir", generic); return err }},
		{"parse pretty", 16, 920, func() error { _, _, err := mlirtext.Parse("a.mlir", pretty); return err }},
		{"print generic", 2.5, 150, func() error { sink.Reset(); return mlirtext.Write(&sink, textM, mlirtext.FormGeneric) }},
		{"print pretty", 2.5, 150, func() error { sink.Reset(); return mlirtext.Write(&sink, prettyM, mlirtext.FormPretty) }},
		// Read keeps 8 bytes an op more than before (Source.opLocs and
		// opAttrs, which spare the writer its identity maps).
		{"read bytecode", 8.7, 900, func() error {
			_, _, err := Read(bytes.NewReader(data), int64(len(data)), "a.mlirb")
			return err
		}},
		{"write unchanged", 0.3, 330, func() error { sink.Reset(); return Write(&sink, m, WriteOptions{Source: src}) }},
		{"write parsed text", 2.2, 920, func() error { sink.Reset(); return Write(&sink, textM, WriteOptions{}) }},
	}
	for _, s := range steps {
		var err error
		bytesPer := float64(allocated(func() { err = s.run() })) / n
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		allocsPer := testing.AllocsPerRun(2, func() {
			if err := s.run(); err != nil {
				t.Fatal(err)
			}
		}) / n
		t.Logf("%s: %.2f allocations, %.0f bytes an op (%.0f ops)", s.name, allocsPer, bytesPer, n)
		if allocsPer > s.allocs || bytesPer > s.bytes {
			t.Errorf("%s: %.2f allocations and %.0f bytes an op; the bounds are %v and %v", s.name, allocsPer, bytesPer, s.allocs, s.bytes)
		}
	}
}

// TestCorpusEditsWithSource is TestEditsWithSource on Apple's own files:
// ops given a new location or a new attribute are encoded afresh while
// every other op reuses the reader's records. Written with the Source,
// the module reads back as the edited one (every op's name, operand and
// result counts, the edited locations and attributes), and writing the
// read-back module again with its own Source gives the same bytes.
// (These modules hold values only bytecode can carry, so the comparison
// is structural, not through the text printer.)
func TestCorpusEditsWithSource(t *testing.T) {
	for _, p := range requireCorpus(t) {
		t.Run(strings.TrimPrefix(p, oracle.CorpusDir()+"/"), func(t *testing.T) {
			_, m, src := readFile(t, p)
			var ops []*graph.Operation
			m.Walk(func(op *graph.Operation) bool { ops = append(ops, op); return true })
			before := fingerprint(m)
			r := rand.New(rand.NewPCG(uint64(len(ops)), 11))
			for i := range 1 + len(ops)/20 {
				op := ops[r.IntN(len(ops))]
				if i%2 == 0 {
					op.Loc = &graph.NameLoc{Name: fmt.Sprintf("edited%d", i), Child: op.Loc}
				} else {
					op.SetAttr("anefix.edit", graph.Int(int64(i), graph.I64))
				}
			}
			want := fingerprint(m)
			if want == before {
				t.Fatal("the edits changed nothing the comparison sees")
			}
			out := write(t, m, WriteOptions{Source: src})
			back, src2 := read(t, out)
			if got := fingerprint(back); got != want {
				t.Fatalf("the module read back differs from the edited one:\n%s", firstDiff(got, want))
			}
			if again := write(t, back, WriteOptions{Source: src2}); !bytes.Equal(again, out) {
				t.Fatal("writing the read-back module with its own Source changed its bytes")
			}
		})
	}
}

// fingerprint lists, per op in walk order, its name, operand and result
// counts, its location when it is a name location, and its anefix.edit
// attribute.
func fingerprint(m *graph.Module) string {
	var b strings.Builder
	m.Walk(func(op *graph.Operation) bool {
		fmt.Fprintf(&b, "%s %d %d", op.Name, op.NumOperands(), op.NumResults())
		if nl, ok := op.Loc.(*graph.NameLoc); ok {
			fmt.Fprintf(&b, " loc=%q", nl.Name)
		}
		if a := op.Attr("anefix.edit"); a != nil {
			fmt.Fprintf(&b, " edit=%v", a)
		}
		b.WriteByte('\n')
		return true
	})
	return b.String()
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("op %d: got %q, want %q", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d ops, want %d", len(g), len(w))
}
