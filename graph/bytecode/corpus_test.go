package bytecode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

// corpusExts are the corpus's bytecode files (real files written by
// Apple's toolchain, found by graph/oracle; never copied into the
// repository).
var corpusExts = []string{".mlirb", ".mpsgraph"}

// requireCorpus lists the corpus's bytecode files; without them the test
// skips, or fails under ANEFIX_REQUIRE_ORACLES or CI.
func requireCorpus(t *testing.T) []string {
	t.Helper()
	return oracle.CorpusFiles(t, corpusExts...)
}

func readFile(t *testing.T, p string) ([]byte, *graph.Module, *Source) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, src, err := Read(bytes.NewReader(data), int64(len(data)), p)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return data, m, src
}

// TestCorpus: every bytecode file Apple's toolchain wrote reads, writes back
// byte-identical (dialect version entries, properties and dialect-encoded
// locations included), and shows what the corpus is known to hold: MLIR 22
// bytecode version 6, aicode.serialization.asset or mps.module as the
// top-level op, dialect-encoded op locations in main-<arch>.mlirb, and a
// func.func in specialized_model_N.mpsgraph decoded with MLIR 22's layout.
// mlir-opt cannot read these files (it refuses their dialect version
// entries), so the oracle is the byte-identical round trip.
func TestCorpus(t *testing.T) {
	for _, p := range requireCorpus(t) {
		name := filepath.Base(p)
		t.Run(strings.TrimPrefix(p, oracle.CorpusDir()+"/"), func(t *testing.T) {
			data, m, src := readFile(t, p)
			if src.Version != 6 || src.Producer != "MLIR22.0.0git" {
				t.Errorf("version %d producer %q, want 6 MLIR22.0.0git", src.Version, src.Producer)
			}
			if got := write(t, m, WriteOptions{Source: src}); !bytes.Equal(got, data) {
				t.Fatalf("unchanged rewrite is not byte-identical")
			}
			if err := graph.Verify(m); err != nil {
				t.Errorf("Verify: %v", err)
			}
			versions := 0
			for _, d := range src.Dialects() {
				if d.Version != nil {
					versions++
				}
			}
			if versions == 0 {
				t.Errorf("no dialect version entry in %v", src.Dialects())
			}
			// No value kept in an encoding has a text form.
			if _, err := mlirtext.Format(m, mlirtext.FormGeneric); err == nil || !strings.Contains(err.Error(), "only be written as bytecode") {
				t.Errorf("text printer = %v, want a refusal", err)
			}
			var dialectLocs int
			m.Walk(func(op *graph.Operation) bool {
				if dl, ok := op.Loc.(*graph.DialectLoc); ok {
					dialectLocs++
					if ea, ok := dl.Attr.(*encodedAttr); !ok || ea.Dialect != "aicode" {
						t.Errorf("%s: location %T %v, want an aicode-encoded attribute", op.Name, dl.Attr, dl.Attr)
					}
				}
				return true
			})
			switch {
			case strings.HasPrefix(name, "main-"):
				if m.Op.Name != "aicode.serialization.asset" || dialectLocs == 0 {
					t.Errorf("top-level %s, %d dialect locations; want aicode.serialization.asset with some", m.Op.Name, dialectLocs)
				}
			case strings.HasPrefix(name, "original_model_"):
				if m.Op.Name != "mps.module" || findOp(m, "mps.func") == nil {
					t.Errorf("top-level %s; want mps.module holding an mps.func", m.Op.Name)
				}
			case strings.HasPrefix(name, "specialized_model_"):
				gs := m.Graphs()
				if m.Op.Name != "builtin.module" || len(gs) != 1 {
					t.Fatalf("top-level %s with %d functions, want builtin.module with one func.func", m.Op.Name, len(gs))
				}
				fn := gs[0]
				rec := src.recordOf(fn.Op)
				if rec.layout == nil || !rec.layout.forMLIR(22) || len(rec.layout.Fields) != 6 || fn.Name() == "" || fn.FunctionType() == nil {
					t.Errorf("func.func %q %v decoded with %+v, want the 6-field MLIR 22 layout", fn.Name(), fn.FunctionType(), rec.layout)
				}
				if findOp(m, "placement.region_call") == nil {
					t.Errorf("no placement.region_call")
				}
				// A change to the function is re-encoded in the input's
				// layout and reads back; the rest of the file is untouched.
				old := fn.Name()
				fn.Op.SetInherent(graph.AttrSymName, graph.Str(old+"_renamed"))
				out := write(t, m, WriteOptions{Source: src})
				m2, _ := read(t, out)
				if g := m2.Graphs(); len(g) != 1 || g[0].Name() != old+"_renamed" || m2.NumOps() != m.NumOps() {
					t.Errorf("renamed function reads back as %v", g)
				}
				// At another bytecode version the opaque blobs of Apple's
				// ops cannot be proven right: refused, naming an op.
				if err := Write(&bytes.Buffer{}, m, WriteOptions{Source: src, Version: 4}); !errors.Is(err, errNeedsGeneric) {
					t.Errorf("version 4 re-encode: %v, want ErrNeedsGeneric", err)
				}
			default:
				t.Errorf("unexpected corpus file %s", name)
			}
		})
	}
}

// TestCorpusBadInput: truncated and bit-flipped versions of the corpus files
// give errors naming the file (with a byte offset for format errors) or read
// and write back, never a panic. Every prefix and every byte of the small
// files; 256 prefixes of the large ones.
func TestCorpusBadInput(t *testing.T) {
	for _, p := range requireCorpus(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		step := 1
		if len(data) > 8192 {
			step = len(data)/256 + 1
		}
		for n := 0; n < len(data); n += step {
			_, _, err := Read(bytes.NewReader(data[:n]), int64(n), p)
			var fe *formatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), p+": byte offset") {
				t.Errorf("%s truncated to %d bytes: %v, want a FormatError with the offset", p, n, err)
			}
		}
		if len(data) > 8192 {
			continue
		}
		for i := range data {
			c := bytes.Clone(data)
			c[i] ^= 0xff
			checkRead(t, c)
		}
	}
}

// TestCorpusVersionEntries: dialect version entries anefix cannot interpret
// (aicode's, mps's) are carried unchanged whatever they hold: each byte of
// every entry altered in turn reads, shows the new entry and writes back
// byte-identical.
func TestCorpusVersionEntries(t *testing.T) {
	for _, p := range requireCorpus(t) {
		data, _, src := readFile(t, p)
		from := 0 // entries are stored in dialect table order
		for _, d := range src.Dialects() {
			if len(d.Version) == 0 {
				continue
			}
			// The entry is stored right after its section header.
			head := appendVarint([]byte{secDialectVersions}, uint64(len(d.Version)))
			at := bytes.Index(data[from:], append(head, d.Version...))
			if at >= 0 {
				at += from
				from = at + len(head) + len(d.Version)
			}
			if at < 0 || len(head) != 2 {
				t.Fatalf("%s: %s's version entry %x not found as stored", p, d.Name, d.Version)
			}
			for i := range d.Version {
				c := bytes.Clone(data)
				c[at+2+i] ^= 0x5a
				m, src2, err := Read(bytes.NewReader(c), int64(len(c)), p)
				if err != nil {
					t.Fatalf("%s: %s version entry byte %d altered: %v", p, d.Name, i, err)
				}
				var got []byte
				for _, d2 := range src2.Dialects() {
					if d2.Name == d.Name {
						got = d2.Version
					}
				}
				if !bytes.Equal(got, c[at+2:at+2+len(d.Version)]) {
					t.Errorf("%s: %s version entry read as %x", p, d.Name, got)
				}
				if out := write(t, m, WriteOptions{Source: src2}); !bytes.Equal(out, c) {
					t.Errorf("%s: altered %s version entry not written back unchanged", p, d.Name)
				}
			}
		}
	}
}
