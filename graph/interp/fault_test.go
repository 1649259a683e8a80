package interp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
)

// copyDir copies the files of dir (flat) into a new temporary directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestTruncatedUnderRun truncates main.mlirb after it was loaded and before
// the weights are read: the mapped weights then fault (SIGBUS). Before
// fault.go this killed the test binary with "fatal error: fault"; now Run
// returns an error naming the file.
func TestTruncatedUnderRun(t *testing.T) {
	dir := copyDir(t, filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"))
	ld, err := modelio.Load(dir, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	mlirb := filepath.Join(dir, "main.mlirb")
	if err := os.Truncate(mlirb, 0); err != nil {
		t.Fatal(err)
	}
	g := ld.Module.Graph("main")
	in := interp.New(ld.Module, interp.Options{})
	defer in.Close()
	_, err = in.Run("main", zeroInputs(t, g))
	if err == nil || !strings.Contains(err.Error(), mlirb) || !strings.Contains(err.Error(), "changed while anefix read it") {
		t.Fatalf("err = %v", err)
	}
	if testing.Verbose() {
		t.Log(err)
	}
}
