package bytecode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"

	"github.com/anefix/anefix/graph/oracle"
)

// TestFromText: a module parsed from text by graph/mlirtext and written by
// anefix reads in mlir-opt exactly as mlir-opt's own bytecode of that text.
func TestFromText(t *testing.T) {
	for _, tl := range oracle.MlirOpts {
		for _, in := range textInputs {
			if in.args != nil {
				continue // mlir-opt runs a pass first; the text is not the module
			}
			path := filepath.Join("testdata", in.file)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []int{max(in.minVersion, 1), MaxVersion} {
				t.Run(fmt.Sprintf("%s/%s/v%d", tl.Name, in.file, v), func(t *testing.T) {
					t.Parallel()
					m, _, err := mlirtext.Parse(path, string(text))
					if err != nil {
						t.Fatalf("mlirtext: %v", err)
					}
					got := canonical(t, tl, write(t, m, WriteOptions{Version: v}))
					if want := canonical(t, tl, emitBytecode(t, tl, path, v)); got != want {
						t.Errorf("mlir-opt printout differs\n%s", diffLines(want, got))
					}
				})
			}
		}
	}
}

// TestDecodedAsText checks the decoded values themselves, independently of
// the bytecode writer (which reuses the input's entries for them): a module
// read from mlir-opt's bytecode and printed as generic text by graph/mlirtext
// reads in mlir-opt as the same IR.
func TestDecodedAsText(t *testing.T) {
	for _, tl := range oracle.MlirOpts {
		for _, in := range textInputs {
			for _, v := range []int{max(in.minVersion, 1), MaxVersion} {
				t.Run(fmt.Sprintf("%s/%s/v%d", tl.Name, in.file, v), func(t *testing.T) {
					t.Parallel()
					data := emitBytecode(t, tl, filepath.Join("testdata", in.file), v, in.args...)
					m, _ := read(t, data)
					if ops := nativePropsOps(m); len(ops) > 0 {
						// Opaque native properties have no text form: the
						// newest version may skip for them, the same file at
						// its first version covers the rest of the module and
						// may not (or every case could skip unnoticed).
						if v == max(in.minVersion, 1) && v != MaxVersion {
							t.Fatalf("native properties of %v at version %d, the file's first", ops, v)
						}
						t.Skipf("native properties of %v have no text form", ops)
					}
					if hasEncoded(m) {
						// A property of the file (encoded.mlir), whatever the version.
						t.Skip("values kept in their bytecode encoding have no text form")
					}
					text, err := mlirtext.Format(m, mlirtext.FormGeneric)
					if err != nil {
						t.Fatalf("mlirtext: %v", err)
					}
					p := filepath.Join(t.TempDir(), "decoded.mlir")
					if err := os.WriteFile(p, text, 0o644); err != nil {
						t.Fatal(err)
					}
					got := canonical(t, tl, emitBytecode(t, tl, p, v))
					if want := canonical(t, tl, data); got != want {
						t.Errorf("mlir-opt printout of the decoded module differs\n%s", diffLines(want, got))
					}
				})
			}
		}
	}
}
