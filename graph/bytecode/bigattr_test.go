package bytecode

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/internal/bigtext"
	"github.com/anefix/anefix/graph/mlirtext"
)

// Memory for large inputs (issue 12 item 9, issue 21 item 8): one op
// carrying one large attribute, and modules of a million small ops. The
// inputs are synthetic (graph/internal/bigtext), built on the fly.

// allocated returns the bytes f allocated on the heap. It counts, it does
// not time: the figures are the same from run to run.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// bigSteps runs text -> module -> bytecode -> module -> text and returns
// the bytes each step allocated, failing t on any error. The output
// buffers are sized beforehand (they are not the codecs' allocations).
func bigSteps(t testing.TB, text string) (steps []string, alloc []uint64, out string) {
	var m, m2 *graph.Module
	var bc bytes.Buffer
	var txt strings.Builder
	var err error
	run := func(name string, f func()) {
		steps = append(steps, name)
		alloc = append(alloc, allocated(f))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	run("parse text", func() { m, _, err = mlirtext.Parse("big.mlir", text) })
	bc.Grow(len(text))
	run("write bytecode", func() { err = Write(&bc, m, WriteOptions{}) })
	run("read bytecode", func() { m2, _, err = Read(bytes.NewReader(bc.Bytes()), int64(bc.Len()), "big.mlirb") })
	var size countingWriter
	if err := mlirtext.Write(&size, m2, mlirtext.FormGeneric); err != nil {
		t.Fatal(err)
	}
	txt.Grow(int(size))
	run("print text", func() { err = mlirtext.Write(&txt, m2, mlirtext.FormGeneric) })
	return steps, alloc, txt.String()
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// TestBigAttrAllocations bounds what each step allocates, in total (not
// only at its peak), as a multiple of the text's size. Measured with 200,000
// elements before the fix of issue 12 (commit 65a1c23): array<i64> parse
// 17.1×, write 9.0×, read 6.0×, print 7.1×; dense<[…]> parse 46.5×, print
// 9.7×; [i64] parse 15.5×, write 30.8×, read 14.6×, print 8.8×. After
// (commit 3fcfeb7): array<…> and dense<[…]> at most 2.0× (array<i16> read
// 4.2×: 8 bytes an element where MLIR stores 2), [i64] parse 4.8×, write
// 3.2×, read 14.6×. Now array<i16> is at most 0.6× (its elements' bytes)
// and [i64] read 8.0× (Read builds no identity maps).
func TestBigAttrAllocations(t *testing.T) {
	const n = 200_000
	// Each step may allocate at most this multiple of the input text. The
	// scalars of an ArrayAttr are an attribute each (a 32-byte IntegerAttr
	// and a 16-byte interface per ~14 bytes of text) and a 16-byte table
	// entry in bytecode, so that kind has its own, larger bounds.
	//
	// `[1, 1, …]` is 3 bytes of text an element, so its multiples are
	// larger; before its elements were packed (commit 253bec2) it took
	// parse 23.0×, write 10.0× (room for a table entry per element), read
	// 5.7×, print 0.11×; now parse 16.9×, write 0.54×, read 6.5×.
	limits := map[string]float64{bigtext.DenseArray: 3, bigtext.ShortArray: 1, bigtext.Dense: 3, bigtext.ArrayAttr: 6, bigtext.Ones: 18}
	readLimits := map[string]float64{bigtext.DenseArray: 3, bigtext.ShortArray: 1, bigtext.Dense: 3, bigtext.ArrayAttr: 10, bigtext.Ones: 7}
	writeLimits := map[string]float64{bigtext.Ones: 2}
	for _, kind := range bigtext.AttrKinds {
		t.Run(kind, func(t *testing.T) {
			text := bigtext.Text(kind, n)
			steps, alloc, _ := bigSteps(t, text)
			for i, s := range steps {
				ratio := float64(alloc[i]) / float64(len(text))
				limit := limits[kind]
				if s == "read bytecode" {
					limit = readLimits[kind]
				}
				if w, ok := writeLimits[kind]; ok && s == "write bytecode" {
					limit = w
				}
				t.Logf("%s: %d bytes allocated for %d bytes of text (%.2f×)", s, alloc[i], len(text), ratio)
				if ratio > limit {
					t.Errorf("%s allocated %.2f× the text's %d bytes; the bound is %v×", s, ratio, len(text), limit)
				}
			}
		})
	}
}

// TestDenseArrayBytesPerElement: a dense array costs its elements' storage
// bytes and nothing per element, whatever the element width (it was a
// []int64, 8 bytes an element, and []float64 for floats). Counted as the
// heap the parsed module keeps.
func TestDenseArrayBytesPerElement(t *testing.T) {
	const n = 1 << 18
	for _, c := range []struct {
		elem string
		max  float64 // bytes per element
	}{{"i8", 1.1}, {"i16", 2.1}, {"i32", 4.1}, {"i64", 8.1}, {"f16", 2.1}, {"f32", 4.1}, {"i1", 1.1}} {
		t.Run(c.elem, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(`"t.op"() {a = array<` + c.elem + `: `)
			for i := range n {
				if i > 0 {
					b.WriteString(", ")
				}
				switch c.elem {
				case "i1":
					b.WriteString("true")
				case "f16", "f32":
					b.WriteString("1.5")
				default:
					b.WriteString("7")
				}
			}
			b.WriteString(`>} : () -> ()`)
			text := b.String()
			keep := liveAfter(func() any {
				m, _, err := mlirtext.Parse("a.mlir", text)
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
			if per := float64(keep) / n; per > c.max {
				t.Errorf("array<%s> of %d elements keeps %d bytes (%.2f an element); the bound is %v", c.elem, n, keep, per, c.max)
			}
		})
	}
}

// TestArrayAttrBytesPerElement: an ArrayAttr of integers or floats of one
// type costs 8 bytes an element (packed: graph.ArrayBuilder), read from
// text or from bytecode, instead of an attribute and an interface each.
// Before (commit 253bec2), with 2^18 elements: `[1, 1, …]` kept 48.0 bytes
// an element from text and 16.0 from bytecode (one shared attribute, an
// interface each), `[v : i64, …]` 48.0 and 48.0, `[1.5 : f32, …]` 39.9 and
// 16.0; now 8.0 each. Counted as the heap the module keeps.
func TestArrayAttrBytesPerElement(t *testing.T) {
	const n = 1 << 18
	floats := func() string {
		var b strings.Builder
		b.WriteString(`"t.op"() {big = [`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("1.5 : f32")
		}
		b.WriteString(`]} : () -> ()`)
		return b.String()
	}
	for _, c := range []struct{ name, text string }{
		{bigtext.Ones, bigtext.Text(bigtext.Ones, n)},
		{bigtext.ArrayAttr, bigtext.Text(bigtext.ArrayAttr, n)},
		{"[f32]", floats()},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("a.mlir", c.text)
			if err != nil {
				t.Fatal(err)
			}
			var bc bytes.Buffer
			if err := Write(&bc, m, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			keepText := liveAfter(func() any {
				m, _, err := mlirtext.Parse("a.mlir", c.text)
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
			keepBC := liveAfter(func() any {
				m, _, err := Read(bytes.NewReader(bc.Bytes()), int64(bc.Len()), "a.mlirb")
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
			const max = 8.5 // bytes an element
			for _, k := range []struct {
				from string
				keep uint64
			}{{"text", keepText}, {"bytecode", keepBC}} {
				per := float64(k.keep) / n
				t.Logf("from %s: %.2f bytes an element", k.from, per)
				if per > max {
					t.Errorf("%s read from %s keeps %d bytes for %d elements (%.2f an element); the bound is %v", c.name, k.from, k.keep, n, per, max)
				}
			}
			// Live through both counts, so that neither counts them freed.
			runtime.KeepAlive(m)
			runtime.KeepAlive(c.text)
			runtime.KeepAlive(bc.Bytes())
		})
	}
}

// liveAfter is the heap f's result keeps alive (after a collection).
func liveAfter(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestBigOpsAllocations bounds the bytes each step allocates per op of a
// module of many small ops, and the heap a parsed module keeps per op.
// Measured with 100,000 ops before issue 21's fix (commit 52aba12), for
// `"t.o"() : () -> ()` / a chain `%k = "t.o"(%k-1) : (i32) -> i32`: parse
// 329 / 639, write 348 / 450, read 794 / 944, print 57 / 143 bytes an op,
// and the parsed module kept 240 / 352. Now parse 187 / 409, write 103 /
// 164, read 261 / 403, print 1 / 24, kept 187 / 299.
func TestBigOpsAllocations(t *testing.T) {
	const n = 100_000
	limits := map[string]map[string]float64{
		bigtext.Ops:   {"parse text": 220, "write bytecode": 150, "read bytecode": 350, "print text": 60, "module": 200},
		bigtext.Chain: {"parse text": 520, "write bytecode": 320, "read bytecode": 600, "print text": 80, "module": 320},
	}
	for _, kind := range []string{bigtext.Ops, bigtext.Chain} {
		t.Run(kind, func(t *testing.T) {
			text := bigtext.Text(kind, n)
			steps, alloc, _ := bigSteps(t, text)
			keep := liveAfter(func() any {
				m, _, err := mlirtext.Parse("big.mlir", text)
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
			steps, alloc = append(steps, "module"), append(alloc, keep)
			for i, s := range steps {
				per := float64(alloc[i]) / n
				t.Logf("%s: %.1f bytes an op", s, per)
				if limit := limits[kind][s]; per > limit {
					t.Errorf("%s: %.1f bytes an op; the bound is %v", s, per, limit)
				}
			}
		})
	}
}

// TestBigAttrRoundTrip: the large attributes and op lists come back from
// bytecode and print as they were read (the printer's own spelling of the
// generic form).
func TestBigAttrRoundTrip(t *testing.T) {
	for _, kind := range bigtext.Kinds {
		t.Run(kind, func(t *testing.T) {
			text := bigtext.Text(kind, 1000)
			m, _, err := mlirtext.Parse("big.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			var direct strings.Builder
			if err := mlirtext.Write(&direct, m, mlirtext.FormGeneric); err != nil {
				t.Fatal(err)
			}
			_, _, viaBytecode := bigSteps(t, text)
			if viaBytecode != direct.String() {
				t.Errorf("text printed after a bytecode round trip differs from the text printed directly")
			}
		})
	}
}

// BenchmarkBigAttr reports the bytes allocated per element of one large
// attribute for each step of a text -> bytecode -> text conversion.
func BenchmarkBigAttr(b *testing.B) {
	for _, kind := range bigtext.AttrKinds {
		b.Run(kind, func(b *testing.B) { benchBig(b, kind, 1_000_000, "elem") })
	}
}

// BenchmarkBigOps reports the time and bytes allocated per op of each step
// for a module of 1,000,000 ops.
func BenchmarkBigOps(b *testing.B) {
	for _, kind := range []string{bigtext.Ops, bigtext.Chain} {
		b.Run(kind, func(b *testing.B) { benchBig(b, kind, 1_000_000, "op") })
	}
}

func benchBig(b *testing.B, kind string, n int, unit string) {
	text := bigtext.Text(kind, n)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	var sums []uint64
	var steps []string
	for range b.N {
		var alloc []uint64
		steps, alloc, _ = bigSteps(b, text)
		if sums == nil {
			sums = make([]uint64, len(alloc))
		}
		for i, a := range alloc {
			sums[i] += a
		}
	}
	total := uint64(0)
	for i, s := range sums {
		total += s
		b.ReportMetric(float64(s)/float64(b.N)/float64(n), strings.ReplaceAll(steps[i], " ", "-")+"-B/"+unit)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(n), "total-B/"+unit)
}

// BenchmarkBigStep times one step alone (parse, write, read or print) of
// the 1,000,000-op and large-attribute inputs, for profiles:
// go test ./graph/bytecode -run '^$' -bench 'BigStep/ops/write' -memprofile m.out
func BenchmarkBigStep(b *testing.B) {
	for _, kind := range bigtext.Kinds {
		b.Run(kind, func(b *testing.B) {
			n := 1_000_000
			text := bigtext.Text(kind, n)
			m, _, err := mlirtext.Parse("big.mlir", text)
			if err != nil {
				b.Fatal(err)
			}
			var bc bytes.Buffer
			if err := Write(&bc, m, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
			data := bc.Bytes()
			b.Run("parse", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for range b.N {
					if _, _, err := mlirtext.Parse("big.mlir", text); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("write", func(b *testing.B) {
				for range b.N {
					if err := Write(io.Discard, m, WriteOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("read", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for range b.N {
					if _, _, err := Read(bytes.NewReader(data), int64(len(data)), "big.mlirb"); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("print", func(b *testing.B) {
				for range b.N {
					if err := mlirtext.Write(io.Discard, m, mlirtext.FormGeneric); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
