package bundle

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchSize is the main.mlirb size for the write benchmarks; override with
// ANEFIX_BENCH_MB (the full-scale figure is 1500).
func benchSize(b *testing.B) int64 {
	mb := int64(256)
	if s := os.Getenv("ANEFIX_BENCH_MB"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		mb = v
	}
	return mb << 20
}

// benchAIModel creates an .aimodel whose main.mlirb is size bytes of
// bytecode-looking data (the magic, then filler standing in for resources).
func benchAIModel(b *testing.B, size int64) string {
	dir := filepath.Join(b.TempDir(), "m.aimodel")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, mainFile))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	copy(buf, Magic)
	for n := int64(0); n < size; n += int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), size-n)]); err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
	sum, err := hashReader(mustOpen(b, filepath.Join(dir, mainFile)), nil)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := formatHash(sum, HashRaw)
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, hashFile), raw, 0o644)
	os.WriteFile(filepath.Join(dir, metadataFile), []byte(`{}`), 0o644)
	return dir
}

func mustOpen(b *testing.B, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// BenchmarkCopyBaseline is the floor the bundle writer is measured against:
// copying main.mlirb with io.Copy (copy_file_range, like cp).
func BenchmarkCopyBaseline(b *testing.B) {
	size := benchSize(b)
	src := filepath.Join(benchAIModel(b, size), mainFile)
	out := b.TempDir()
	b.SetBytes(size)
	b.ResetTimer()
	for i := range b.N {
		in := mustOpen(b, src)
		o, err := os.Create(filepath.Join(out, strconv.Itoa(i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(o, in); err != nil {
			b.Fatal(err)
		}
		o.Close()
		os.Remove(o.Name())
	}
}

// BenchmarkOpenWriteAIModel opens an .aimodel (verifying main.hash in the
// background) and writes a new one whose encoder copies the whole input, the
// way a codec copies resource bytes: the bundle layer's share of a rewrite.
// "write" passes the bytes through Write; "range" uses CopyRange (kernel
// copy). Both outputs equal the input, so the output's hash is the input
// verification's (like convert). "range-shifted" inserts a byte after the
// magic, so the output differs from its fifth byte on and is hashed on its
// own, from the input's bytes, while the input is verified (like rewrite).
//
//	ANEFIX_BENCH_MB=1500 go test ./graph/bundle -run '^$' -bench 'CopyBaseline|OpenWrite' -benchtime 5x
func BenchmarkOpenWriteAIModel(b *testing.B) {
	size := benchSize(b)
	src := benchAIModel(b, size)
	for _, mode := range []string{"write", "range", "range-shifted"} {
		b.Run(mode, func(b *testing.B) {
			out := b.TempDir()
			b.SetBytes(size)
			for i := range b.N {
				in, err := Open(src, OpenOptions{DeferHash: true})
				if err != nil {
					b.Fatal(err)
				}
				enc := func(w io.Writer) error {
					switch mode {
					case "range":
						return w.(rangeCopier).CopyRange(in.File, 0, in.Size)
					case "range-shifted":
						if _, err := w.Write(Magic); err != nil {
							return err
						}
						if _, err := w.Write([]byte{0}); err != nil {
							return err
						}
						return w.(rangeCopier).CopyRange(in.File, 4, in.Size-4)
					}
					_, err := io.Copy(w, io.NewSectionReader(in.File, 0, in.Size))
					return err
				}
				dst := filepath.Join(out, strconv.Itoa(i))
				if _, err := Write(dst, KindAIModel, in, enc, WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				in.Close()
				os.RemoveAll(dst)
			}
		})
	}
}
