package bytecode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// TestFromText: a module parsed from text by graph/mlirtext and written by
// anefix reads in mlir-opt exactly as mlir-opt's own bytecode of that text.
func TestFromText(t *testing.T) {
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
			t.Run(fmt.Sprintf("%s/v%d", in.file, v), func(t *testing.T) {
				t.Parallel()
				m, _, err := mlirtext.Parse(path, string(text))
				if err != nil {
					t.Fatalf("mlirtext: %v", err)
				}
				got := canonical(t, write(t, m, WriteOptions{Version: v}))
				if want := canonical(t, emitBytecode(t, path, v)); got != want {
					t.Errorf("mlir-opt printout differs\n%s", diffLines(want, got))
				}
			})
		}
	}
}
