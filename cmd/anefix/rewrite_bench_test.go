package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFullScaleArmA compares `anefix rewrite` (default pipeline) on the
// full-scale synth arm A (~1.5 GB main.mlirb) with copying its main.mlirb
// (io.Copy, which uses copy_file_range like cp). It needs ~4.5 GB of disk,
// so it runs only with ANEFIX_FULLSCALE=1:
//
//	ANEFIX_FULLSCALE=1 go test ./cmd/anefix -run XXX -bench FullScale -benchtime 3x
//
// ANEFIX_BENCH_DIR picks the directory (default: a temporary one).
func BenchmarkFullScaleArmA(b *testing.B) {
	if os.Getenv("ANEFIX_FULLSCALE") != "1" {
		b.Skip("set ANEFIX_FULLSCALE=1 to run (writes ~4.5 GB)")
	}
	dir := os.Getenv("ANEFIX_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	in := filepath.Join(dir, "armA-full.aimodel")
	if _, err := os.Stat(filepath.Join(in, "main.mlirb")); err != nil {
		benchCLI(b, "synth", "--arm", "A", "--scale", "full", "-o", in)
	}
	b.Run("cp", func(b *testing.B) {
		dst := filepath.Join(dir, "cp.mlirb")
		for i := 0; i < b.N; i++ {
			os.Remove(dst)
			if err := copyFile(filepath.Join(in, "main.mlirb"), dst); err != nil {
				b.Fatal(err)
			}
		}
		os.Remove(dst)
	})
	b.Run("rewrite", func(b *testing.B) {
		out := filepath.Join(dir, "out.aimodel")
		for i := 0; i < b.N; i++ {
			benchCLI(b, "rewrite", in, "-o", out, "--force")
		}
		os.RemoveAll(out)
	})
}

func benchCLI(b *testing.B, args ...string) {
	b.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}); code != exitOK {
		b.Fatalf("anefix %v: exit %d: %s", args, code, errb.String())
	}
}

func copyFile(src, dst string) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
