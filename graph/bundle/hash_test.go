package bundle

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// piece is one step of an output: bytes written (b) or a range of a file
// copied (f, off, n).
type piece struct {
	b      []byte
	f      *os.File
	off, n int64
}

// TestTeeHasherResumes checks the output hash when the output shares a
// prefix with the input (hashed once, by the input's fileHasher) and
// everywhere it does not: the sum must always be the SHA-256 of the output,
// and the bytes hashed a second time must be at most what follows the last
// checkpoint before the first difference.
func TestTeeHasherResumes(t *testing.T) {
	data := testData(3*ckptEvery + 1234)
	size := int64(len(data))
	dir := t.TempDir()
	p := filepath.Join(dir, "in")
	other := filepath.Join(dir, "other")
	os.WriteFile(p, data, 0o644)
	os.WriteFile(other, data, 0o644) // same bytes, another file
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := os.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	flip := func(b []byte, i int) []byte {
		c := append([]byte{}, b...)
		c[i] ^= 1
		return c
	}
	mid := int64(2*ckptEvery + 77)
	tests := []struct {
		name   string
		pieces []piece
		// maxOwn is the most the output side may hash itself.
		maxOwn int64
	}{
		{"whole range", []piece{{f: f, n: size}}, 0},
		{"written", []piece{{b: data}}, 0},
		{"written and ranges", []piece{{b: data[:10]}, {f: f, off: 10, n: mid - 10}, {b: data[mid : mid+5]}, {f: f, off: mid + 5, n: size - mid - 5}}, 0},
		{"empty", nil, 0},
		{"strict prefix", []piece{{f: f, n: mid}}, mid - 2*ckptEvery},
		{"prefix at a checkpoint", []piece{{f: f, n: 2 * ckptEvery}}, 0},
		{"longer", []piece{{f: f, n: size}, {b: []byte("tail")}}, size - 3*ckptEvery + 4},
		{"differs at 0", []piece{{b: flip(data[:100], 0)}, {f: f, off: 100, n: size - 100}}, size},
		{"differs mid-write", []piece{{f: f, n: mid}, {b: flip(data[mid:mid+1000], 500)}, {f: f, off: mid + 1000, n: size - mid - 1000}}, size - 2*ckptEvery},
		{"range at another offset", []piece{{f: f, n: mid}, {f: f, off: mid + 1, n: 10}}, mid - 2*ckptEvery + 10},
		{"range of another file", []piece{{f: f, n: mid}, {f: g, off: mid, n: size - mid}}, size - 2*ckptEvery},
		{"range past the end", []piece{{f: f, n: mid}, {b: data[mid:]}, {f: f, off: 0, n: 5}}, size - 3*ckptEvery + 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fh := newFileHasher(f, size)
			go fh.run(nil)
			var out, want bytes.Buffer
			th := newTeeHasher(&out, fh)
			for _, pc := range tc.pieces {
				if pc.f == nil {
					th.Write(pc.b)
					want.Write(pc.b)
					continue
				}
				th.addRange(pc.f, pc.off, pc.n)
				want.Write(data[pc.off : pc.off+pc.n])
			}
			sum, err := th.finish()
			if err != nil || sum != sha(want.Bytes()) {
				t.Fatalf("sum %s err %v, want %s", sum, err, sha(want.Bytes()))
			}
			if th.own > tc.maxOwn {
				t.Errorf("hashed %d bytes itself, want at most %d", th.own, tc.maxOwn)
			}
			if in, err := fh.result(); err != nil || in != sha(data) {
				t.Errorf("input hash %s err %v, want %s", in, err, sha(data))
			}
		})
	}
}

// TestFileHasherShrunk: a main.mlirb that shrinks after Open is an error,
// and an output whose hash would come from the missing bytes reports it
// rather than a wrong sum; bytes that were written are still hashed right.
func TestFileHasherShrunk(t *testing.T) {
	data := testData(2*ckptEvery + 10)
	p := filepath.Join(t.TempDir(), "in")
	os.WriteFile(p, data[:ckptEvery+5], 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fh := newFileHasher(f, int64(len(data))) // the size it had "when opened"
	go fh.run(nil)
	var out bytes.Buffer
	th := newTeeHasher(&out, fh)
	th.addRange(f, 0, int64(len(data)))
	if sum, err := th.finish(); err == nil {
		t.Errorf("output hash %s, want an error", sum)
	}
	if sum, err := fh.result(); err == nil {
		t.Errorf("input hash %s, want an error", sum)
	}
	th = newTeeHasher(&out, fh)
	th.Write(data)
	if sum, err := th.finish(); err != nil || sum != sha(data) {
		t.Errorf("written output: hash %s err %v, want %s", sum, err, sha(data))
	}
}

// TestWriteUnchangedMain: an .aimodel rewritten with an identical main.mlirb
// gets main.hash from the input's verification; with a wrong input
// main.hash it must still be the true SHA-256 (under --ignore-hash), or no
// output at all.
func TestWriteUnchangedMain(t *testing.T) {
	data := append(append([]byte{}, Magic...), testData(2*ckptEvery+3)...)
	for _, tc := range []struct {
		name       string
		hash       string
		ignoreHash bool
		wantErr    bool
		// want is the output's main.hash: the input's form, raw without one.
		want string
	}{
		{"raw hash matches", rawSha(data), false, false, rawSha(data)},
		{"hex hash matches", sha(data), false, false, sha(data)},
		{"hex hash with newline matches", strings.ToUpper(sha(data)) + "\n", false, false, sha(data) + "\n"},
		{"hash wrong", rawSha([]byte("x")), false, true, ""},
		{"hash wrong, ignored", sha([]byte("x")), true, false, sha(data)},
		{"hash unreadable, ignored", "x", true, false, rawSha(data)},
		{"no hash file", "", false, false, rawSha(data)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tree := map[string]string{"m/main.mlirb": string(data), "m/metadata.json": "{}"}
			if tc.hash != "" {
				tree["m/main.hash"] = tc.hash
			}
			files(t, dir, tree)
			for _, mode := range []string{"range", "write"} {
				in, err := Open(filepath.Join(dir, "m"), OpenOptions{DeferHash: true, IgnoreHash: tc.ignoreHash})
				if err != nil {
					t.Fatal(err)
				}
				enc := func(w io.Writer) error {
					if mode == "range" {
						if _, err := w.Write(data[:4]); err != nil {
							return err
						}
						return w.(rangeCopier).CopyRange(in.File, 4, in.Size-4)
					}
					return encode(data)(w)
				}
				out := filepath.Join(dir, "o"+mode)
				res, err := Write(out, KindAIModel, in, enc, WriteOptions{})
				in.Close()
				if tc.wantErr {
					if err == nil {
						t.Fatalf("%s: no error for a wrong main.hash", mode)
					}
					if _, err := os.Lstat(out); err == nil {
						t.Fatalf("%s: output written despite a wrong main.hash", mode)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				got, _ := os.ReadFile(filepath.Join(out, hashFile))
				if string(got) != tc.want || res.Hash != sha(data) {
					t.Errorf("%s: main.hash %q (result %s), want %q", mode, got, res.Hash, tc.want)
				}
				if main, _ := os.ReadFile(res.MainPath); !bytes.Equal(main, data) {
					t.Errorf("%s: main.mlirb differs from the input", mode)
				}
			}
		})
	}
}
