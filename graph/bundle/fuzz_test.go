package bundle

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenDir builds a directory from fuzzed metadata.json, main.hash and
// main.mlirb contents and an assets.main-style subdirectory, and checks that
// Open never panics and never resolves anything outside the directory.
func FuzzOpenDir(f *testing.F) {
	f.Add([]byte(`{"assets":{"main":"m.aimodel"}}`), []byte(sha(bcMain)), bcMain, true)
	f.Add([]byte(`{"assets":{"main":"../m.aimodel"}}`), []byte("zz"), textMain, true)
	f.Add([]byte(`{"assets":{"main":"m.aimodel/.."}}`), []byte(sha(textMain)), textMain, true)
	f.Add([]byte(`{}`), []byte(sha(bcMain)), bcMain, false)
	f.Add([]byte(`{"assets":{"main":["x"]}}`), []byte(""), []byte{}, false)
	f.Add([]byte(`{"producer" : "coreai-core 1.0.0b2"}`), []byte(rawSha(bcMain)), bcMain, false)
	f.Add([]byte(`{}`), []byte(sha(bcMain)+"\n"), bcMain, false)
	f.Fuzz(func(t *testing.T, meta, hash, main []byte, nested bool) {
		root := t.TempDir()
		ai := root
		if nested {
			ai = filepath.Join(root, "m.aimodel")
			os.Mkdir(ai, 0o755)
			os.WriteFile(filepath.Join(root, metadataFile), meta, 0o644)
		} else {
			os.WriteFile(filepath.Join(ai, metadataFile), meta, 0o644)
		}
		os.WriteFile(filepath.Join(ai, hashFile), hash, 0o644)
		os.WriteFile(filepath.Join(ai, mainFile), main, 0o644)
		in, err := Open(root, OpenOptions{})
		if err != nil {
			return
		}
		defer in.Close()
		real, _ := filepath.EvalSymlinks(root)
		if in.Root != real || !within(in.Root, in.AIModelDir) || !within(in.Root, in.MainPath) {
			t.Fatalf("resolved outside: root %s aimodel %s main %s", in.Root, in.AIModelDir, in.MainPath)
		}
		if in.Hash.Checked && !in.Hash.Matches {
			t.Fatalf("Open succeeded with a mismatched hash")
		}
		if in.Size != int64(len(main)) {
			t.Fatalf("Size %d, want %d", in.Size, len(main))
		}
	})
}
