package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/anefix/anefix/graph/oracle"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	bcMain   = append(append([]byte{}, Magic...), []byte("\x06producer\x00 old bytecode body")...)
	bcNew    = append(append([]byte{}, Magic...), []byte("\x06producer\x00 NEW bytecode body, longer")...)
	textMain = []byte("module {\n}\n")
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// rawSha is the digest as Apple's toolchain writes main.hash: 32 raw bytes.
func rawSha(b []byte) string {
	s := sha256.Sum256(b)
	return string(s[:])
}

// files writes a tree: keys are slash paths, values are contents; a value
// starting with "->" makes a symbolic link to the rest.
func files(t *testing.T, root string, tree map[string]string) {
	t.Helper()
	names := make([]string, 0, len(tree))
	for n := range tree {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		v := tree[n]
		if target, ok := strings.CutPrefix(v, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// aimodel returns the tree of a valid .aimodel below prefix.
func aimodel(prefix string) map[string]string {
	return map[string]string{
		prefix + "main.mlirb":      string(bcMain),
		prefix + "main.hash":       rawSha(bcMain),
		prefix + "metadata.json":   `{"author":"t"}`,
		prefix + "extra/notes.txt": "carried over",
	}
}

func llmBundle() map[string]string {
	tree := aimodel("m.aimodel/")
	tree["metadata.json"] = `{"schema":"0.2","kind":"llm","assets":{"main":"m.aimodel"}}`
	tree["tokenizer/tokenizer.json"] = `{"vocab":{}}`
	tree["tokenizer/link.json"] = "->tokenizer.json"
	return tree
}

// snapshot records every path, mode and content below root so tests can
// prove an input was not modified.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[filepath.ToSlash(rel)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func encode(b []byte) Encoder {
	return func(w io.Writer) error {
		// Small writes exercise the buffering and the magic check.
		for i := 0; i < len(b); i += 3 {
			if _, err := w.Write(b[i:min(i+3, len(b))]); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestOpenKinds(t *testing.T) {
	tests := []struct {
		name     string
		tree     map[string]string
		path     string // relative to the temp dir
		kind     Kind
		bytecode bool
		text     string
		asset    string
		warn     string
	}{
		{name: "text", tree: map[string]string{"a.mlir": string(textMain)}, path: "a.mlir", kind: KindText, text: string(textMain)},
		{name: "text named mlirb", tree: map[string]string{"a.mlirb": string(textMain)}, path: "a.mlirb", kind: KindText, text: string(textMain)},
		{name: "bytecode named mlir", tree: map[string]string{"a.mlir": string(bcMain)}, path: "a.mlir", kind: KindBytecode, bytecode: true},
		{name: "short file", tree: map[string]string{"a": "M<"}, path: "a", kind: KindText, text: "M<"},
		{name: "empty text file", tree: map[string]string{"a.mlir": ""}, path: "a.mlir", kind: KindText, text: ""},
		{name: "aimodel", tree: aimodel("m.aimodel/"), path: "m.aimodel", kind: KindAIModel, bytecode: true},
		{name: "aimodel via symlink", tree: func() map[string]string { m := aimodel("m.aimodel/"); m["l"] = "->m.aimodel"; return m }(), path: "l", kind: KindAIModel, bytecode: true},
		{name: "aimodel without hash", tree: map[string]string{"m/main.mlirb": string(bcMain)}, path: "m", kind: KindAIModel, bytecode: true, warn: "main.hash is missing"},
		{name: "aimodel with text main", tree: map[string]string{"m/main.mlirb": string(textMain), "m/main.hash": sha(textMain)}, path: "m", kind: KindAIModel, text: string(textMain), warn: "not MLIR bytecode"},
		{name: "llm bundle", tree: llmBundle(), path: ".", kind: KindLLMBundle, bytecode: true, asset: "m.aimodel"},
		{name: "llm bundle asset via inside symlink", tree: func() map[string]string {
			m := aimodel("real/m.aimodel/")
			m["metadata.json"] = `{"assets":{"main":"m.aimodel"}}`
			m["m.aimodel"] = "->real/m.aimodel"
			return m
		}(), path: ".", kind: KindLLMBundle, bytecode: true, asset: "m.aimodel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files(t, dir, tc.tree)
			in, err := Open(filepath.Join(dir, tc.path), OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Kind != tc.kind || in.Bytecode != tc.bytecode || in.AssetMain != tc.asset {
				t.Errorf("kind=%v bytecode=%v asset=%q, want %v %v %q", in.Kind, in.Bytecode, in.AssetMain, tc.kind, tc.bytecode, tc.asset)
			}
			if tc.bytecode {
				if in.Text != nil {
					t.Errorf("Text set for bytecode")
				}
				got := make([]byte, in.Size)
				if _, err := in.File.ReadAt(got, 0); err != nil || !bytes.Equal(got, bcMain) {
					t.Errorf("File content %q, %v", got, err)
				}
			} else if string(in.Text) != tc.text {
				t.Errorf("Text = %q, want %q", in.Text, tc.text)
			}
			if tc.kind.IsDir() {
				if tc.warn == "" && (!in.Hash.Checked || !in.Hash.Matches) {
					t.Errorf("hash not verified: %+v", in.Hash)
				}
				if tc.warn == "" && len(in.Metadata) == 0 {
					t.Errorf("aimodel metadata.json not read")
				}
			}
			joined := strings.Join(in.Warnings, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want one containing %q", joined, tc.warn)
			}
		})
	}
}

func TestOpenStdin(t *testing.T) {
	tests := []struct {
		in      []byte
		kind    Kind
		wantErr string
	}{
		{textMain, KindText, ""},
		{bcMain, KindBytecode, ""},
		{nil, kindUnknown, "stdin is empty"},
	}
	for _, tc := range tests {
		in, err := Open("-", OpenOptions{Stdin: bytes.NewReader(tc.in)})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("stdin %q: err %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, in.Size)
		in.File.ReadAt(got, 0)
		if in.Kind != tc.kind || !bytes.Equal(got, tc.in) || in.MainPath != "-" {
			t.Errorf("stdin %q: kind %v content %q main %q", tc.in, in.Kind, got, in.MainPath)
		}
		in.Close()
	}
}

func TestOpenRefuses(t *testing.T) {
	outside := t.TempDir()
	files(t, outside, aimodel("evil.aimodel/"))
	files(t, outside, map[string]string{"secret": "x"})
	tests := []struct {
		name string
		tree map[string]string
		path string
		opts OpenOptions
		want string
	}{
		{name: "missing", path: "nope", want: "no such file"},
		{name: "plain dir", tree: map[string]string{"d/x": "1"}, path: "d", want: "neither an .aimodel"},
		{name: "hash mismatch", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = rawSha([]byte("other")); return m }(), path: ".", want: "main.hash (raw) holds the digest " + sha([]byte("other")) + " but the SHA-256 of "},
		{name: "hex hash mismatch", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = sha([]byte("other")); return m }(), path: ".", want: "main.hash (hex) holds the digest"},
		// Issue 12 items 10 and 11: these used to open (an empty module) or
		// fail with a text parser's message.
		{name: "empty main.mlirb", tree: map[string]string{"m/main.mlirb": "", "m/main.hash": rawSha(nil)}, path: "m", want: "m/main.mlirb is empty (0 bytes)"},
		{name: "empty .mlirb file", tree: map[string]string{"a.mlirb": ""}, path: "a.mlirb", want: "is empty (0 bytes)"},
		{name: "magic prefix", tree: map[string]string{"a": "ML"}, path: "a", want: "a is 2 byte(s), the start of the MLIR bytecode magic"},
		{name: "no main.mlirb, metadata without assets", tree: map[string]string{"d/metadata.json": "{}"}, path: "d", want: "has no main.mlirb, so it is not an .aimodel"},
		{name: "hash mismatch upper-case right hash is fine", tree: func() map[string]string {
			m := aimodel("")
			m["main.hash"] = strings.ToUpper(sha(bcMain)) + "\n"
			return m
		}(), path: "."},
		{name: "hash not hex", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = "hello"; return m }(), path: ".", want: `main.hash: want the 32-byte SHA-256 digest Apple's toolchain writes (or the 64 hex digits earlier anefix versions wrote), but it holds 5 bytes (text "hello"); use --ignore-hash`},
		{name: "hash 31 raw bytes", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = rawSha(bcMain)[:31]; return m }(), path: ".", want: "holds 31 bytes (hex "},
		{name: "hash hex with two newlines", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = sha(bcMain) + "\n\n"; return m }(), path: ".", want: "holds 66 bytes"},
		{name: "hash hex with CRLF", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = sha(bcMain) + "\r\n"; return m }(), path: ".", want: "holds 66 bytes"},
		{name: "sha256sum line", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = sha(bcMain) + "  main.mlirb\n"; return m }(), path: ".", want: "holds 77 bytes"},
		{name: "hash file too big", tree: func() map[string]string { m := aimodel(""); m["main.hash"] = strings.Repeat("a", 5000); return m }(), path: ".", want: "more than"},
		{name: "assets.main dotdot", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"../evil.aimodel"}}`}, path: "b", want: "escapes the bundle"},
		{name: "assets.main nested dotdot", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"x/../../evil.aimodel"}}`}, path: "b", want: "escapes the bundle"},
		{name: "assets.main absolute", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"` + filepath.Join(outside, "evil.aimodel") + `"}}`}, path: "b", want: "absolute path"},
		{name: "assets.main dot", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"."}}`}, path: "b", want: "bundle directory itself"},
		{name: "assets.main empty", tree: map[string]string{"b/metadata.json": `{"assets":{"main":""}}`}, path: "b", want: "empty path"},
		{name: "assets.main symlink out", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"m.aimodel"}}`, "b/m.aimodel": "->" + filepath.Join(outside, "evil.aimodel")}, path: "b", want: "outside the bundle"},
		{name: "assets.main missing dir", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"m.aimodel"}}`}, path: "b", want: "no such file"},
		{name: "assets.main is a file", tree: map[string]string{"b/metadata.json": `{"assets":{"main":"m.aimodel"}}`, "b/m.aimodel": "x"}, path: "b", want: "not a directory"},
		{name: "assets.main not string", tree: map[string]string{"b/metadata.json": `{"assets":{"main":3}}`}, path: "b", want: "not a string"},
		{name: "no assets.main", tree: map[string]string{"b/metadata.json": `{"assets":{}}`}, path: "b", want: "not an LLM bundle"},
		{name: "metadata not json", tree: map[string]string{"b/metadata.json": `{`}, path: "b", want: "not valid JSON"},
		{name: "metadata symlink out", tree: map[string]string{"b/metadata.json": "->" + filepath.Join(outside, "secret")}, path: "b", want: "outside the bundle"},
		{name: "symlink out in aimodel", tree: func() map[string]string {
			m := aimodel("")
			m["extra/leak"] = "->" + filepath.Join(outside, "secret")
			return m
		}(), path: ".", want: "points outside the bundle"},
		{name: "relative symlink out in bundle", tree: func() map[string]string { m := llmBundle(); m["tokenizer/up"] = "->../../.."; return m }(), path: ".", want: "points outside the bundle"},
		{name: "main.mlirb symlink out", tree: map[string]string{"main.mlirb": "->" + filepath.Join(outside, "evil.aimodel", "main.mlirb")}, path: ".", want: "outside the bundle"},
		{name: "dangling symlink", tree: func() map[string]string { m := aimodel(""); m["extra/dead"] = "->nowhere"; return m }(), path: ".", want: "cannot be followed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files(t, dir, tc.tree)
			before := snapshot(t, dir)
			in, err := Open(filepath.Join(dir, tc.path), tc.opts)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				in.Close()
				return
			}
			if err == nil {
				in.Close()
				t.Fatalf("Open succeeded, want error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !equalMaps(before, snapshot(t, dir)) {
				t.Errorf("Open modified its input")
			}
		})
	}
}

func TestOpenSpecialFile(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, aimodel(""))
	if err := syscall.Mkfifo(filepath.Join(dir, "extra", "pipe"), 0o644); err != nil {
		oracle.Unavailable(t, "mkfifo in the temporary directory", "run the tests on a file system with named pipes (TMPDIR)", err)
	}
	_, err := Open(dir, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "special file") {
		t.Fatalf("err = %v, want special file refusal", err)
	}
	// A fifo given directly must be refused too, not read (which would hang).
	_, err = Open(filepath.Join(dir, "extra", "pipe"), OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "neither a regular file nor a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestHashIgnoreAndDefer(t *testing.T) {
	dir := t.TempDir()
	tree := aimodel("")
	tree["main.hash"] = sha([]byte("other"))
	files(t, dir, tree)

	var warned []string
	in, err := Open(dir, OpenOptions{IgnoreHash: true, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	if len(warned) != 1 || !strings.Contains(warned[0], "--ignore-hash") || in.Hash.Matches || !in.Hash.Checked || in.Hash.Got != sha(bcMain) {
		t.Errorf("IgnoreHash: warnings %q, hash %+v", warned, in.Hash)
	}

	in, err = Open(dir, OpenOptions{DeferHash: true})
	if err != nil {
		t.Fatalf("DeferHash Open must not fail before CheckHash: %v", err)
	}
	defer in.Close()
	for range 2 { // the verdict is sticky
		if err := in.CheckHash(); err == nil || !strings.Contains(err.Error(), "--ignore-hash") {
			t.Errorf("CheckHash = %v, want mismatch", err)
		}
	}
}

func TestResolveInside(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"a/b": "x", "up": "->..", "in": "->a"})
	root, _ = filepath.EvalSymlinks(root)
	tests := []struct {
		rel  string
		ok   bool
		want string
	}{
		{"a/b", true, "a/b"},
		{"a/../a/b", true, "a/b"},
		{"in/b", true, "a/b"},
		{"../x", false, ""},
		{"up", false, ""},
		{"up/x", false, ""},
		{"/etc/passwd", false, ""},
		{"", false, ""},
		{".", false, ""},
		{"a/./..", false, ""},
	}
	for _, tc := range tests {
		got, err := resolveInside(root, tc.rel)
		if (err == nil) != tc.ok {
			t.Errorf("resolveInside(%q) = %q, %v; want ok=%v", tc.rel, got, err, tc.ok)
			continue
		}
		if tc.ok && got != filepath.Join(root, tc.want) {
			t.Errorf("resolveInside(%q) = %q, want %q", tc.rel, got, tc.want)
		}
	}
}

func FuzzResolveInside(f *testing.F) {
	for _, s := range []string{"a", "../a", "a/../../b", "/abs", ".", "in/../..", "up/x", "a\x00b", "a//b"} {
		f.Add(s)
	}
	root := f.TempDir()
	for _, d := range []string{"a", "b/c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.Symlink("..", filepath.Join(root, "up"))
	os.Symlink("b", filepath.Join(root, "in"))
	root, _ = filepath.EvalSymlinks(root)
	f.Fuzz(func(t *testing.T, rel string) {
		p, err := resolveInside(root, rel)
		if err == nil && (!within(root, p) || p == root) {
			t.Fatalf("resolveInside(%q) = %q escapes %q", rel, p, root)
		}
	})
}

func FuzzAssetsMain(f *testing.F) {
	for _, s := range []string{`{"assets":{"main":"m.aimodel"}}`, `{"assets":{"main":3}}`, `{`, `null`, `{"assets":null}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := assetsMain(b)
		if err != nil && s != "" {
			t.Fatalf("error %v with result %q", err, s)
		}
	})
}

func TestTeeHasher(t *testing.T) {
	data := make([]byte, 3*teeChunk+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, step := range []int{1, 1000, teeChunk - 1, teeChunk, 2*teeChunk + 5, len(data)} {
		var out bytes.Buffer
		th := newTeeHasher(&out, nil)
		for i := 0; i < len(data); i += step {
			th.Write(data[i:min(i+step, len(data))])
		}
		sum, err := th.finish()
		if err != nil || sum != sha(data) || !bytes.Equal(out.Bytes(), data) {
			t.Errorf("step %d: sum %s err %v, want %s; copy equal %v", step, sum, err, sha(data), bytes.Equal(out.Bytes(), data))
		}
	}
}

var errEncode = errors.New("encoder failed on purpose")

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
