package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/anefix/anefix/graph/modelio"

	"github.com/anefix/anefix/graph/goldentest"
)

// testdataDir holds the shipped tiny graphs, exactly what
// `anefix synth --arm X -o testdata/synth/armX.aimodel` writes.
const testdataDir = "../../testdata/synth"

// maxShippedFile bounds every shipped file ("a few hundred KB at most").
const maxShippedFile = 400 << 10

// writeAIModel writes o's module the way the CLI does.
func writeAIModel(t *testing.T, dst string, o Options) {
	t.Helper()
	m := gen(t, o)
	meta, err := Metadata(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := modelio.Save(dst, m, nil, modelio.SaveOptions{Force: true, Files: map[string][]byte{"metadata.json": meta}}); err != nil {
		t.Fatalf("writing %s: %v", dst, err)
	}
}

func listFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestShippedTestdata fails when testdata/synth is stale. Regenerate with
// `go generate ./graph/synth` (which runs this test with -update).
func TestShippedTestdata(t *testing.T) {
	for _, s := range ShippedArms {
		fresh := filepath.Join(t.TempDir(), s.Name)
		writeAIModel(t, fresh, s.Options)
		want := listFiles(t, fresh)
		dst := filepath.Join(testdataDir, s.Name)
		if goldentest.Update() {
			if err := os.RemoveAll(dst); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range want {
				if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := listFiles(t, dst)
		var names []string
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if len(want[n]) > maxShippedFile {
				t.Errorf("%s/%s is %d bytes, over the %d budget for shipped files", s.Name, n, len(want[n]), maxShippedFile)
			}
			if !bytes.Equal(got[n], want[n]) {
				t.Errorf("testdata/synth/%s/%s is stale or missing; regenerate with: go generate ./graph/synth", s.Name, n)
			}
		}
		for n := range got {
			if _, ok := want[n]; !ok {
				t.Errorf("testdata/synth/%s/%s is not generated; regenerate with: go generate ./graph/synth", s.Name, n)
			}
		}
	}
}
