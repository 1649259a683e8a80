package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

// FuzzParseHash: ParseHash never panics, and what it accepts writes back
// (formatHash) to bytes it parses to the same digest and form.
func FuzzParseHash(f *testing.F) {
	d := sha256.Sum256(nil)
	for _, s := range []string{string(d[:]), hex.EncodeToString(d[:]), hex.EncodeToString(d[:]) + "\n", "", "zz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sum, form, err := ParseHash(b)
		if err != nil {
			return
		}
		out, err := formatHash(sum, form)
		if err != nil {
			t.Fatal(err)
		}
		sum2, form2, err := ParseHash(out)
		if err != nil || sum2 != sum || form2 != form {
			t.Fatalf("%q -> %s %v -> %q -> %s %v %v", b, sum, form, out, sum2, form2, err)
		}
	})
}

func TestParseHash(t *testing.T) {
	d := sha256.Sum256([]byte("x"))
	h := hex.EncodeToString(d[:])
	tests := []struct {
		name string
		in   string
		form hashForm
		err  string // substring; empty means success
	}{
		{"raw", string(d[:]), HashRaw, ""},
		{"hex", h, hashHex, ""},
		{"hex upper case", strings.ToUpper(h), hashHex, ""},
		{"hex newline", h + "\n", hashHexLine, ""},
		{"empty", "", hashNone, "holds 0 bytes"},
		{"31 raw bytes", string(d[:31]), hashNone, "holds 31 bytes (hex "},
		{"33 raw bytes", string(d[:]) + "\n", hashNone, "holds 33 bytes"},
		{"hex CRLF", h + "\r\n", hashNone, "holds 66 bytes"},
		{"hex two newlines", h + "\n\n", hashNone, "holds 66 bytes"},
		{"hex leading space", " " + h, hashNone, "holds 65 bytes"},
		{"hex not hex", strings.Repeat("g", 64), hashNone, `holds 64 bytes (text "gggg`},
		{"hex 63 digits and newline", h[:63] + "\n", hashNone, "holds 64 bytes"},
		{"sha256sum line", h + "  main.mlirb\n", hashNone, "holds 77 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum, form, err := ParseHash([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || sum != h || form != tc.form {
				t.Fatalf("got %s %v %v, want %s %v", sum, form, err, h, tc.form)
			}
			// Writing back in the same form gives the same bytes (lower case).
			want := tc.in
			if form != HashRaw {
				want = strings.ToLower(want)
			}
			out, err := formatHash(sum, form)
			if err != nil || string(out) != want {
				t.Errorf("FormatHash(%v) = %q, %v; want %q", form, out, err, want)
			}
		})
	}
	if out, _ := formatHash(h, hashNone); !bytes.Equal(out, d[:]) {
		t.Errorf("FormatHash(HashNone) = %x, want the raw digest", out)
	}
}

// corpusPackages returns the compiled packages Apple's toolchain wrote
// (the corpus beside the repository; see README "For contributors"). Without the
// corpus the test skips, or fails under ANEFIX_REQUIRE_ORACLES or CI.
func corpusPackages(t *testing.T) []string {
	t.Helper()
	return oracle.CorpusGlob(t, "apple-compiled/*.aimodelc")
}

// TestCorpusHashIsRaw: in every real package main.hash is the raw SHA-256
// digest of the main bytecode file, and anefix reads it as such.
func TestCorpusHashIsRaw(t *testing.T) {
	for _, dir := range corpusPackages(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			mains, _ := filepath.Glob(filepath.Join(dir, "main-*.mlirb"))
			if len(mains) != 1 {
				t.Fatalf("want one main-<arch>.mlirb, found %v", mains)
			}
			raw, err := os.ReadFile(filepath.Join(dir, hashFile))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(mains[0])
			if err != nil {
				t.Fatal(err)
			}
			d := sha256.Sum256(data)
			if !bytes.Equal(raw, d[:]) {
				t.Fatalf("main.hash %x is not sha256(%s) %x", raw, filepath.Base(mains[0]), d)
			}
			c, err := checkHashFile(filepath.Join(dir, hashFile), mains[0])
			if err != nil {
				t.Fatal(err)
			}
			if c.Form != HashRaw || !c.Checked || !c.Matches || c.Want != hex.EncodeToString(d[:]) {
				t.Errorf("CheckHashFile = %+v, want a matching raw digest %x", c, d)
			}
		})
	}
}

// TestCorpusAsAIModel lays a real package's main bytecode, main.hash and
// metadata.json out as an .aimodel (in a temporary directory) and writes it
// back unchanged: the input's raw hash verifies, and the output's main.hash
// and metadata.json are byte-identical to Apple's.
func TestCorpusAsAIModel(t *testing.T) {
	for _, dir := range corpusPackages(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			mains, _ := filepath.Glob(filepath.Join(dir, "main-*.mlirb"))
			if len(mains) != 1 {
				t.Fatalf("want one main-<arch>.mlirb, found %v", mains)
			}
			tmp := t.TempDir()
			ai := filepath.Join(tmp, "m.aimodel")
			os.Mkdir(ai, 0o755)
			want := map[string][]byte{}
			for name, src := range map[string]string{mainFile: mains[0], hashFile: filepath.Join(dir, hashFile), metadataFile: filepath.Join(dir, metadataFile)} {
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				want[name] = b
				if err := os.WriteFile(filepath.Join(ai, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in, err := Open(ai, OpenOptions{DeferHash: true})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			enc := func(w io.Writer) error {
				if _, err := w.Write(want[mainFile][:4]); err != nil {
					return err
				}
				return w.(rangeCopier).CopyRange(in.File, 4, in.Size-4)
			}
			out := filepath.Join(tmp, "o.aimodel")
			if _, err := Write(out, KindAIModel, in, enc, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if in.Hash.Form != HashRaw || !in.Hash.Matches {
				t.Errorf("input hash check %+v, want a matching raw digest", in.Hash)
			}
			for name, b := range want {
				got, err := os.ReadFile(filepath.Join(out, name))
				if err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s differs from Apple's (err %v):\n got %q\nwant %q", name, err, got, b)
				}
			}
		})
	}
}
