package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyDir copies a small test bundle (files only).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every command that reads a bundle refuses one whose main.hash does not
// match main.mlirb (in either form) or is no digest at all, naming main.hash
// and --ignore-hash, and proceeds with a warning under --ignore-hash.
func TestEveryCommandChecksMainHash(t *testing.T) {
	for _, h := range []struct{ name, hash, want string }{
		{"raw wrong", strings.Repeat("\x00", 32), "main.hash (raw) holds the digest 0000"},
		{"hex wrong", strings.Repeat("0", 64), "main.hash (hex) holds the digest 0000"},
		{"wrong length", "0123456789", "main.hash: want the 32-byte SHA-256 digest"},
	} {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			bad := filepath.Join(dir, "bad.aimodel")
			copyDir(t, "../../testdata/synth/armA.aimodel", bad)
			if err := os.WriteFile(filepath.Join(bad, "main.hash"), []byte(h.hash), 0o644); err != nil {
				t.Fatal(err)
			}
			cases := [][]string{
				{"inspect", bad},
				{"check", bad},
				{"convert", bad, "-o", filepath.Join(dir, "c.mlir")},
				{"rewrite", bad, "-o", filepath.Join(dir, "r.mlir")},
				{"rewrite", bad, "--dry-run"}, // writes nothing, so no write waits for the check
				{"verify", bad, "../../testdata/synth/armA.aimodel", "--steps", "1"},
			}
			for _, args := range cases {
				code, _, stderr := runCLI(t, "", args...)
				if code != exitFailure || !strings.Contains(stderr, h.want) || !strings.Contains(stderr, "--ignore-hash") {
					t.Errorf("%v: exit %d, stderr %q; want exit 1 with %q and --ignore-hash", args, code, stderr, h.want)
				}
				code, _, stderr = runCLI(t, "", append(args, "--ignore-hash")...)
				if (code != exitOK && code != exitGate) || !strings.Contains(stderr, "warning") {
					t.Errorf("%v --ignore-hash: exit %d, stderr %q; want it to proceed with a warning", args, code, stderr)
				}
			}
		})
	}
}
