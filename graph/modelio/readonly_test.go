package modelio

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/internal/bigtext"
	"github.com/anefix/anefix/graph/mlirtext"
)

// TestReadOnlyBytesPerOp bounds the heap a bytecode input keeps once a
// command that never writes it (check, inspect) has called ReadOnly,
// counted (not timed) per op of issue 28's chain (a stand-in from
// graph/internal/bigtext, written as bytecode here). Before ReadOnly the
// reader's tables stayed beside the module, with its locations allocated
// one by one: with 20,000 ops, 388 bytes kept an op before and 299 after
// (the module alone: ops, values, use lists, locations).
func TestReadOnlyBytesPerOp(t *testing.T) {
	const n = 20_000
	var text strings.Builder
	if err := bigtext.Write(&text, bigtext.Chain, n); err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse("chain.mlir", text.String())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chain.mlirb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := bytecode.Write(f, m, bytecode.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	m = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ld, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	ld.ReadOnly()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ld)
	kept := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("kept %.0f bytes an op", kept)
	if kept > 320 {
		t.Errorf("a read-only bytecode input keeps %.0f bytes an op; the bound is 320", kept)
	}
	if ld.Bytecode == nil || ld.Bytecode.Version == 0 || len(ld.Bytecode.Dialects()) == 0 {
		t.Errorf("ReadOnly lost the input's description: %+v", ld.Bytecode)
	}
}
