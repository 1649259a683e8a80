package refvec

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

// The committed vectors must be exactly what the committed script produces
// with Debian's numpy, so they can never go stale. Regenerate with:
//
//	/usr/bin/python3 testdata/numpy/gen.py testdata/numpy
func TestCommittedVectorsAreFresh(t *testing.T) {
	py := oracle.Python3Numpy(t)
	dir := filepath.Join("..", "..", "..", "testdata", "numpy")
	tmp := t.TempDir()
	out, err := exec.Command(py, filepath.Join(dir, "gen.py"), tmp).CombinedOutput()
	if err != nil {
		t.Fatalf("gen.py: %v\n%s", err, out)
	}
	for _, name := range []string{"f16_round.vec.gz", "ops.vec.gz", "ops2.vec.gz", "gated_delta.vec.gz", "packed.vec.gz", "zoo.vec.gz"} {
		want, err := decompress(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decompress(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/numpy/%s is stale: regenerate with /usr/bin/python3 testdata/numpy/gen.py testdata/numpy", name)
		}
	}
}
