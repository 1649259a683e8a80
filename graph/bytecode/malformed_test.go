package bytecode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"

	"github.com/anefix/anefix/graph/goldentest"
	"github.com/anefix/anefix/graph/mlirtext"
)

// seedFiles are mlir-opt's bytecode of the text inputs, committed so the
// fuzz target and the malformed-input tests run without mlir-opt.
func seedFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "seed", "*.mlirb"))
	more, err2 := filepath.Glob(filepath.Join("testdata", "seed", "mlir22", "*.mlirb"))
	files = append(files, more...)
	if err == nil {
		err = err2
	}
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed files in testdata/seed (run go test -update): %v", err)
	}
	return files
}

// TestSeedsCurrent regenerates the seeds with -update, and otherwise checks
// they are what mlir-opt writes today.
// mlir-opt 19's seeds cover every version; mlir-opt 22's (in seed/mlir22)
// the versions with native properties, where the two releases' layouts
// differ.
func TestSeedsCurrent(t *testing.T) {
	for _, tl := range oracle.MlirOpts {
		dir, from := filepath.Join("testdata", "seed"), 0
		if tl.Name != oracle.MlirOpts[0].Name {
			dir, from = filepath.Join(dir, "mlir22"), vNativeProperties
		}
		for _, in := range textInputs {
			for v := max(in.minVersion, from); v <= MaxVersion; v++ {
				name := filepath.Join(dir, fmt.Sprintf("%s.v%d.mlirb", strings.TrimSuffix(in.file, ".mlir"), v))
				data := emitBytecode(t, tl, filepath.Join("testdata", in.file), v, in.args...)
				if goldentest.Update() {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(name, data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				old, err := os.ReadFile(name)
				if err != nil || !bytes.Equal(old, data) {
					t.Errorf("%s is stale or missing (run go test ./graph/bytecode -update): %v", name, err)
				}
			}
		}
	}
}

// checkRead reads data and, when that succeeds, writes it back both ways
// and reads anefix's own output again. It must never panic. It returns the
// module read (nil when refused).
func checkRead(t testing.TB, data []byte) *graph.Module {
	m, src, err := Read(bytes.NewReader(data), int64(len(data)), "fuzz.mlirb")
	if err != nil {
		var fe *formatError
		if !errors.As(err, &fe) && !strings.Contains(err.Error(), "fuzz.mlirb") {
			t.Fatalf("error does not name the file: %v", err)
		}
		return nil
	}
	for _, opts := range []WriteOptions{{Source: src}, {}} {
		var out bytes.Buffer
		if err := Write(&out, m, opts); err != nil {
			if errors.Is(err, errNeedsGeneric) {
				continue
			}
			// A readable file can still hold IR the writer refuses (e.g. a
			// use of a value across an isolated region); it must say so.
			if !strings.Contains(err.Error(), "bytecode:") {
				t.Fatalf("write error without context: %v", err)
			}
			continue
		}
		if _, _, err := Read(bytes.NewReader(out.Bytes()), int64(out.Len()), "rewritten.mlirb"); err != nil {
			t.Fatalf("anefix cannot read its own output: %v", err)
		}
	}
	return m
}

// checkText prints m as text in both forms. The printer may refuse (values
// with no text form, nesting past graph.MaxNesting), but what it prints the
// text reader reads: textual attribute and type entries, which are printed
// verbatim, were checked when the bytecode was read.
func checkText(t testing.TB, m *graph.Module) {
	for _, form := range []mlirtext.Form{mlirtext.FormGeneric, mlirtext.FormPretty} {
		text, err := mlirtext.Format(m, form)
		if err != nil {
			continue
		}
		if _, _, err := mlirtext.Parse("printed.mlir", string(text)); err != nil {
			t.Fatalf("anefix cannot read the %v text it printed: %v", form, err)
		}
	}
}

// TestTruncated: every proper prefix of a valid file is an error, never a
// panic (every section is required or ends the file).
func TestTruncated(t *testing.T) {
	for _, f := range seedFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(data); n++ {
			if _, _, err := Read(bytes.NewReader(data[:n]), int64(n), f); err == nil {
				t.Errorf("%s truncated to %d bytes: no error", f, n)
			}
		}
	}
}

// TestCorrupted flips every byte of every seed in turn: reading may succeed
// or fail, but must not panic or hang, and what reads must write and print
// as text that reads back (778 flips printed text anefix refused while
// textual entries were kept unchecked).
func TestCorrupted(t *testing.T) {
	for _, f := range seedFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			// One flip per byte keeps the test fast; go test -fuzz=FuzzRead
			// explores further.
			c := bytes.Clone(data)
			c[i] ^= 0xff
			if m := checkRead(t, c); m != nil {
				checkText(t, m)
			}
		}
	}
}

// TestAbsurdLengths: lengths and counts claiming more than the file has are
// clear errors with the byte offset.
func TestAbsurdLengths(t *testing.T) {
	head := append(magic[:], appendVarint(nil, 6)...)
	head = append(head, "x\x00"...)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"section length", append(bytes.Clone(head), append([]byte{secString}, appendVarint(nil, 1<<40)...)...), "byte offset 7: section String (0) claims 1099511627776 bytes"},
		{"huge varint", append(bytes.Clone(head), secString, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "claims 18446744073709551615 bytes"},
		{"truncated varint", append(bytes.Clone(head), secString, 0x80), "byte offset 9: length 7 exceeds the 0 bytes that remain"},
		{"bad magic", []byte("MLIR"), "not MLIR bytecode"},
		{"newer version", append(append(magic[:], appendVarint(nil, 7)...), 0), "version 7 is newer"},
		{"missing sections", append(bytes.Clone(head), secString, 1<<1|1, 1), "missing required section Dialect (1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Read(bytes.NewReader(c.data), int64(len(c.data)), "bad.mlirb")
			var fe *formatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.mlirb: byte offset") {
				t.Errorf("got %v, want a FormatError containing %q", err, c.want)
			}
		})
	}
}

// FuzzRead: the reader never panics on any input, and whatever it reads
// the writer writes and the reader reads back, and the text printer never
// prints what the text reader refuses for nesting. Seeds: mlir-opt 19's and 22's
// bytecode of the test inputs, and the corpus's real files when present
// (added at test time, never copied into testdata).
func FuzzRead(f *testing.F) {
	for _, p := range append(seedFiles(f), oracle.CorpusSeedFiles(f, corpusExts...)...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if m := checkRead(t, data); m != nil {
			checkText(t, m)
		}
	})
}

// TestDenseSizesPastInt64: dense data for a type whose byte size does not
// fit int64 is refused unless it is a splat. Before the checked sizes, 2^62
// i32 elements (2^64 bytes, wrapping to 0) matched empty data and were read
// as an attribute with no bytes, and 2^63-1 i1 elements wanted (n+7)/8 < 0.
func TestDenseSizesPastInt64(t *testing.T) {
	cases := []struct {
		typ  string
		raw  []byte
		want string // "" = reads
	}{
		{"tensor<4611686018427387904xi32>", []byte{}, "does not fit in int64"},
		{"tensor<4611686018427387904xi32>", []byte{7, 0, 0, 0}, ""}, // a splat
		{"tensor<9223372036854775807x2xi1>", []byte{}, "does not fit in int64"},
		{"tensor<9223372036854775807x2xi1>", []byte{1}, ""},
		{"tensor<9223372036854775807xi1>", []byte{}, "dense i1 data has 0 bytes"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.typ, len(c.raw)), func(t *testing.T) {
			tt, err := graph.ParseSimpleType(c.typ)
			if err != nil {
				t.Fatal(err)
			}
			m := graph.NewModule()
			a := &graph.DenseElementsAttr{Type: tt.(*graph.TensorType), Raw: c.raw, Splat: len(c.raw) > 0}
			m.Body().Append(graph.NewOp("t.o", nil, nil, graph.Dict(graph.NamedAttr{Name: "a", Value: a}), graph.Unknown))
			var b bytes.Buffer
			if err := Write(&b, m, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			m2, _, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "big.mlirb")
			if c.want == "" {
				if err != nil {
					t.Fatalf("splat refused: %v", err)
				}
				got := m2.Body().First().Attr("a")
				if got.String() != a.String() {
					t.Errorf("read %s, wrote %s", got, a)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestUsesInOpOrder: every value's uses come out in op order (pre-order,
// then operand index) for every seed, forward.mlir's included: the reader
// sets operands as it reads until an operand refers to a value defined
// later, and from there at the end.
func TestUsesInOpOrder(t *testing.T) {
	for _, f := range seedFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := Read(bytes.NewReader(data), int64(len(data)), f)
		if err != nil {
			t.Fatal(err)
		}
		pos := map[*graph.Operation]int{}
		var vals []*graph.Value
		m.Walk(func(o *graph.Operation) bool {
			pos[o] = len(pos)
			vals = append(vals, o.Results()...)
			for _, r := range o.Regions {
				for _, b := range r.Blocks {
					vals = append(vals, b.Args()...)
				}
			}
			return true
		})
		for _, v := range vals {
			us := v.Uses()
			for i := 1; i < len(us); i++ {
				a, b := us[i-1], us[i]
				if pos[a.Op] > pos[b.Op] || pos[a.Op] == pos[b.Op] && a.Index > b.Index {
					t.Errorf("%s: uses of a %s value out of op order: %s #%d before %s #%d", f, v.Type(), a.Op.Name, a.Index, b.Op.Name, b.Index)
				}
			}
		}
	}
}

// TestTextualEntriesChecked: a textual attribute or type entry (one the
// writer stores as text, not dialect-encoded) is read only when anefix's
// text reader reads it, so that printing it gives text that reads back; the
// refusal names the file, the entry's byte offset and index, and why. The
// entries are written by anefix's own writer, which stores an opaque
// attribute's or type's text as it is.
func TestTextualEntriesChecked(t *testing.T) {
	cases := []struct {
		attr, typ string
		want      string // "" = reads
	}{
		{`#t.a<"x">`, `!t.b<1>`, ""},
		{`#t.a<"x>`, `!t.b<1>`, `textual attribute entry`},
		{"#t.a<\"x\">", "!t.\xffb", `textual type entry`},
		{"#t.\xffa", `!t.b<1>`, `is not a valid attribute (column 4: unexpected byte 0xFF)`},
		{`#t.a<x> = 1`, `!t.b<1>`, `is not a valid attribute (column 9: unexpected '=' after the attribute)`},
		{`#t.a<x>`, `!t.b<1> -> i32`, `is not a valid type (column 9: unexpected '->' after the type)`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := graph.NewModule()
			v := graph.NewOp("t.src", nil, []graph.Type{&graph.OpaqueType{Text: c.typ}}, graph.Dict(graph.NamedAttr{Name: "a", Value: &graph.OpaqueAttr{Text: c.attr}}), graph.Unknown)
			m.Body().Append(v)
			var b bytes.Buffer
			if err := Write(&b, m, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			m2, _, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "bad.mlirb")
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				checkText(t, m2)
				return
			}
			var fe *formatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.mlirb: byte offset") {
				t.Errorf("got %v, want a FormatError naming the file and containing %q", err, c.want)
			}
		})
	}
}

// TestDictKeysOnce: a dictionary attribute with a key twice is refused
// naming the key, sorted or not (MLIR writes the keys sorted but reads
// them in any order); anefix's text reader refuses such a dictionary, so
// one read from bytecode printed text that did not read back (found by
// FuzzRead, seed dict_duplicate_keys). The files come from anefix's
// writer, which writes a dictionary's entries as they are.
func TestDictKeysOnce(t *testing.T) {
	one := &graph.IntegerAttr{Type: graph.I32, Value: 1}
	cases := []struct {
		keys []string
		want string // "" = reads
	}{
		{[]string{"a", "b"}, ""},
		{[]string{"b", "a"}, ""},
		{[]string{"a", "a"}, `dictionary attribute has the key "a" twice`},
		{[]string{"b", "a", "b"}, `dictionary attribute has the key "b" twice`},
	}
	for _, c := range cases {
		var entries []graph.NamedAttr
		for _, k := range c.keys {
			entries = append(entries, graph.NamedAttr{Name: k, Value: one})
		}
		m := graph.NewModule()
		m.Body().Append(graph.NewOp("t.o", nil, nil, graph.Dict(graph.NamedAttr{Name: "d", Value: &graph.DictAttr{Entries: entries}}), graph.Unknown))
		var b bytes.Buffer
		if err := Write(&b, m, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		m2, _, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "dict.mlirb")
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.keys, err)
			} else {
				checkText(t, m2)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "dict.mlirb: byte offset") {
			t.Errorf("%v: got %v, want an error naming the file and containing %q", c.keys, err, c.want)
		}
	}
}
