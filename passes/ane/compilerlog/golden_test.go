package compilerlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/goldentest"
)

// TestGolden parses every typed log and compares the records with a golden
// JSON file (regenerate with go test ./passes/ane/compilerlog -update).
func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "compilerlogs")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		n++
		l := parseFile(t, e.Name())
		got, err := json.MarshalIndent(l, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join(dir, "golden", strings.TrimSuffix(e.Name(), ".log")+".json")
		if goldentest.Update() {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: parse differs from %s (rerun with -update if the change is intended)\n%s", e.Name(), golden, got)
		}
	}
	if n < 4 {
		t.Errorf("only %d logs in %s", n, dir)
	}
}

func BenchmarkParse(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "compilerlogs", "seed-arm-a.log"))
	if err != nil {
		b.Fatal(err)
	}
	big := bytes.Repeat(one, 2000) // about 26k lines
	b.SetBytes(int64(len(big)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(bytes.NewReader(big)); err != nil {
			b.Fatal(err)
		}
	}
}
