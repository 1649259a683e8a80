package mlirtext

import (
	"os"
	"path/filepath"
	"testing"
)

// ParseProgress reports offsets that never go back, several of them on a
// multi-op text, and ends at the text's length: a bar driven by it moves
// while parsing and ends full.
func TestParseProgress(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mlir", "pretty", "hybrid_layer.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var seen []int
	if _, _, err := ParseProgress("hybrid_layer.mlir", text, func(pos int) { seen = append(seen, pos) }); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("%d progress calls on a text of many ops", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress went back: %d after %d", seen[i], seen[i-1])
		}
	}
	if last := seen[len(seen)-1]; last != len(text) {
		t.Errorf("last progress %d, want the text's length %d", last, len(text))
	}
	if seen[len(seen)-2] >= len(text) || seen[0] > len(text)/2 {
		t.Errorf("progress does not move through the text: first %d, before last %d, length %d", seen[0], seen[len(seen)-2], len(text))
	}
}
