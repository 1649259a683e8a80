package refvec

import (
	"path/filepath"
	"testing"
)

func TestReadCommitted(t *testing.T) {
	for _, name := range []string{"f16_round.vec.gz", "ops.vec.gz", "gated_delta.vec.gz"} {
		f, err := ReadFile(filepath.Join("..", "..", "..", "testdata", "numpy", name))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Order) == 0 {
			t.Errorf("%s: no records", name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	good := []byte(magic + "\x01\x00a\x00\x01\x02\x00\x00\x00" + "\x00\x00\x80\x3f\x00\x00\x00\x40")
	if f, err := parse(good); err != nil || f.Tensors["a"].Len() != 2 {
		t.Fatalf("good input: %v", err)
	}
	for _, bad := range [][]byte{
		[]byte("nope"),
		good[:len(good)-1],
		[]byte(magic + "\x01\x00a\x09\x00"),
		[]byte(magic + "\x01\x00a\x00\x01\xff\xff\xff\xff"),
		append(append([]byte{}, good...), good[len(magic):]...),
	} {
		if _, err := parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	raw, err := decompress(filepath.Join("..", "..", "..", "testdata", "numpy", "gated_delta.vec.gz"))
	if err == nil {
		f.Add(raw[:min(len(raw), 4096)])
	}
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parse(b)
	})
}
