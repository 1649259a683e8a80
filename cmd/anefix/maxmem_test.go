package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hugeConstant is a synthetic hostile model (a stand-in, written by this
// test): a few hundred bytes of text declaring a constant of dims.
func hugeConstant(t *testing.T, dims string) string {
	t.Helper()
	text := "module {\n  coreai.graph @main(%arg0: tensor<1xsi32> {coreai.name = \"input_ids\"}) -> (tensor<" + dims + "xf32> {coreai.name = \"logits\"}) {\n" +
		"    %0 = coreai.constant dense<1.0> : tensor<" + dims + "xf32>\n    coreai.output %0 : tensor<" + dims + "xf32>\n  }\n}\n"
	p := filepath.Join(t.TempDir(), "huge.mlir")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Before the estimate, the 1x100000x100000 file ended in Go's "fatal
// error: runtime: out of memory" (exit 2), and 1x20000x20000 allocated
// 1.6 GB per side; both are refused with exit 1 before anything is
// allocated.
func TestVerifyMaxMemory(t *testing.T) {
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"huge, default 8GiB", []string{hugeConstant(t, "1x100000x100000"), hugeConstant(t, "1x100000x100000")}, exitFailure, "over the limit of 8.0 GiB (--max-memory)"},
		{"1.6 GB, 1GiB", []string{hugeConstant(t, "1x20000x20000"), hugeConstant(t, "1x20000x20000"), "--max-memory", "1GiB"}, exitFailure, "estimated 3.0 GiB"},
		// The count wraps to 0 in int64: it passed the estimate, then
		// panicked in compare (exit 2) before the checked sizes.
		{"count past int64", []string{hugeConstant(t, "1x4294967296x4294967296"), hugeConstant(t, "1x4294967296x4294967296")}, exitFailure, "its element count does not fit in int64"},
		{"armA, 1KiB", []string{armA, armA, "--max-memory", "1KiB", "--steps", "1"}, exitFailure, "over the limit of 1.0 KiB"},
		{"armA, default", []string{armA, armA, "--steps", "1"}, exitOK, ""},
		{"armA, bare bytes", []string{armA, armA, "--steps", "1", "--max-memory", "1048576"}, exitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append([]string{"verify"}, c.args...)...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("code %d, stderr %q, stdout %q", code, errs, out)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64 // 0: an error
	}{
		{"512MiB", 512 << 20}, {"8GiB", 8 << 30}, {"1TiB", 1 << 40}, {"4KiB", 4096}, {"100B", 100}, {"1048576", 1 << 20},
		{"", 0}, {"0", 0}, {"0GiB", 0}, {"-1GiB", 0}, {"1.5GiB", 0}, {"8 GiB", 0}, {"8GB", 0}, {"8gib", 0}, {"8G", 0},
		{"GiB", 0}, {"+8GiB", 0}, {"9223372036854775807GiB", 0}, {"8388608TiB", 0}, {"0x10", 0}, {"8GiBB", 0},
	}
	for _, c := range cases {
		got, err := parseSize(c.in)
		if c.want == 0 && err == nil || c.want != 0 && (err != nil || got != c.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	code, _, errs := runCLI(t, "", "verify", "a", "b", "--max-memory", "8GB")
	if code != exitUsage || !strings.Contains(errs, "--max-memory") {
		t.Errorf("--max-memory 8GB: code %d, %q", code, errs)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"512MiB", "8GiB", "1", "0", "1.5GiB", "99999999999999999999B", "TiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err == nil && n <= 0 {
			t.Errorf("parseSize(%q) = %d without an error", s, n)
		}
	})
}
