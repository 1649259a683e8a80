package bytecode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"
)

// textInputs are the hand-written MLIR files the bytecode tests start from,
// with the lowest bytecode version that can hold each of them faithfully.
var textInputs = []struct {
	file       string
	minVersion int
	args       []string // extra mlir-opt arguments (passes) for the conversion
}{
	{"coreai_ops.mlir", 0, nil},
	{"properties.mlir", 5, nil}, // unregistered properties need version 5
	{"func.mlir", 0, nil},
	{"resources.mlir", 0, nil},
	{"uselist.mlir", 0, []string{"--cse"}},
	{"encoded.mlir", 0, nil},
	// Shapes whose element count does not fit int64 and dense arrays of
	// every width (kept as their raw bytes).
	{"sizes.mlir", 0, nil},
	{"forward.mlir", 0, []string{"--cse"}},
	// Arrays of one scalar type (packed) and mixed arrays (issue 28).
	{"arrays.mlir", 0, nil},
}

func mlirOpt(t testing.TB, tl oracle.MlirOptTool, args ...string) []byte {
	t.Helper()
	out, err := oracle.RunMlirOpt(tl.Require(t), "", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mlir-opt results are cached: the same conversions recur across subtests.
var (
	cacheMu   sync.Mutex
	emitCache = map[string][]byte{}
	canCache  = map[string]string{}
)

// emitBytecode converts a text file to bytecode of the given version.
func emitBytecode(t testing.TB, tl oracle.MlirOptTool, in string, version int, args ...string) []byte {
	t.Helper()
	key := fmt.Sprintf("%s:%s@%d%q", tl.Name, in, version, args)
	cacheMu.Lock()
	out, ok := emitCache[key]
	cacheMu.Unlock()
	if ok {
		return out
	}
	out = mlirOpt(t, tl, append([]string{in, "--emit-bytecode", fmt.Sprintf("--emit-bytecode-version=%d", version)}, args...)...)
	cacheMu.Lock()
	emitCache[key] = out
	cacheMu.Unlock()
	return out
}

// canonical is mlir-opt's generic printout with every location.
func canonical(t testing.TB, tl oracle.MlirOptTool, data []byte) string {
	t.Helper()
	key := tl.Name + ":" + string(data)
	cacheMu.Lock()
	s, ok := canCache[key]
	cacheMu.Unlock()
	if ok {
		return s
	}
	p := filepath.Join(t.TempDir(), "in.mlirb")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s = string(mlirOpt(t, tl, "--mlir-print-op-generic", "--mlir-print-debuginfo", p))
	cacheMu.Lock()
	canCache[key] = s
	cacheMu.Unlock()
	return s
}

func read(t testing.TB, data []byte) (*graph.Module, *Source) {
	t.Helper()
	m, src, err := Read(bytes.NewReader(data), int64(len(data)), "test.mlirb")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return m, src
}

func write(t testing.TB, m *graph.Module, opts WriteOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, m, opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return out.Bytes()
}

// TestRoundTripMlirOpt reads mlir-opt's bytecode of every text input at
// every version and checks that (1) writing it back unchanged gives the
// same bytes, (2) writing it with fresh tables and (3) at every other
// version gives a file mlir-opt prints exactly as it prints the input.
func TestRoundTripMlirOpt(t *testing.T) {
	for _, tl := range oracle.MlirOpts {
		for _, in := range textInputs {
			for v := in.minVersion; v <= MaxVersion; v++ {
				t.Run(fmt.Sprintf("%s/%s/v%d", tl.Name, in.file, v), func(t *testing.T) {
					t.Parallel()
					roundTripMlirOpt(t, tl, in.file, in.minVersion, v, in.args)
				})
			}
		}
	}
}

func roundTripMlirOpt(t *testing.T, tl oracle.MlirOptTool, file string, minVersion, v int, args []string) {
	data := emitBytecode(t, tl, filepath.Join("testdata", file), v, args...)
	m, src := read(t, data)
	if src.Version != v || src.Producer != tl.Producer {
		t.Errorf("version %d producer %q, want %d %s", src.Version, src.Producer, v, tl.Producer)
	}
	same := write(t, m, WriteOptions{Source: src})
	if !bytes.Equal(same, data) {
		t.Errorf("unchanged rewrite is not byte-identical (%d vs %d bytes)", len(same), len(data))
	}
	again := write(t, m, WriteOptions{Source: src})
	if !bytes.Equal(same, again) {
		t.Errorf("writer is not deterministic")
	}
	nativeOps := nativePropsOps(m)
	native := len(nativeOps) > 0
	want := canonical(t, tl, data)
	if native || hasEncoded(m) {
		// Opaque encodings only stay valid in their own file's
		// tables (native blobs also only at versions with the
		// same layout rules).
		if err := Write(&bytes.Buffer{}, m, WriteOptions{}); !errors.Is(err, errNeedsGeneric) {
			t.Errorf("fresh tables with opaque encodings: got %v, want ErrNeedsGeneric", err)
		}
	} else if got := canonical(t, tl, write(t, m, WriteOptions{})); got != want {
		t.Errorf("fresh tables: mlir-opt printout differs\n%s", diffLines(want, got))
	}
	for ov := max(minVersion, 1); ov <= MaxVersion; ov++ {
		if ov == v {
			continue
		}
		if native && (ov < vNativeProperties || v >= vNativeProperties) {
			if err := Write(&bytes.Buffer{}, m, WriteOptions{Source: src, Version: ov}); !errors.Is(err, errNeedsGeneric) || !containsAny(err.Error(), nativeOps) {
				t.Errorf("v%d→v%d with native properties: got %v, want ErrNeedsGeneric naming one of %v", v, ov, err, nativeOps)
			}
			continue
		}
		out := write(t, m, WriteOptions{Source: src, Version: ov})
		if got, wantV := canonical(t, tl, out), canonical(t, tl, emitBytecode(t, tl, filepath.Join("testdata", file), ov, args...)); got != wantV {
			t.Errorf("v%d→v%d: mlir-opt printout differs from mlir-opt's own v%d\n%s", v, ov, ov, diffLines(wantV, got))
		}
	}
}

// nativePropsOps lists the ops whose native properties are kept opaque.
func nativePropsOps(m *graph.Module) []string {
	var names []string
	m.Walk(func(op *graph.Operation) bool {
		if _, ok := op.Props.(*NativeProps); ok && !slices.Contains(names, op.Name) {
			names = append(names, op.Name)
		}
		return true
	})
	return names
}

// hasEncoded reports whether any op attribute, result type or location of m
// is kept in its bytecode encoding.
func hasEncoded(m *graph.Module) bool {
	found := false
	var visitAttr func(a graph.Attr)
	visitAttr = func(a graph.Attr) {
		switch x := a.(type) {
		case *encodedAttr:
			found = true
		case *graph.DictAttr:
			for _, e := range x.Entries {
				visitAttr(e.Value)
			}
		case *graph.ArrayAttr:
			for _, e := range x.Elems {
				visitAttr(e)
			}
		case *graph.TypeAttr:
			if _, ok := x.Type.(*encodedType); ok {
				found = true
			}
		}
	}
	m.Walk(func(op *graph.Operation) bool {
		if op.Attrs != nil {
			visitAttr(op.Attrs)
		}
		if op.Props != nil {
			visitAttr(op.Props)
		}
		for _, r := range op.Results() {
			if _, ok := r.Type().(*encodedType); ok {
				found = true
			}
		}
		if _, ok := op.Loc.(*encodedLoc); ok {
			found = true
		}
		if dl, ok := op.Loc.(*graph.DialectLoc); ok {
			visitAttr(dl.Attr)
		}
		return true
	})
	return found
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}

// diffLines shows the first differing lines of two printouts.
func diffLines(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\ngot:  %s", i+1, w, g)
		}
	}
	return "(equal)"
}
