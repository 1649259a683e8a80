package modelio

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/oracle"
)

const hybrid = "../../testdata/mlir/generic/hybrid_layer.mlir"

// canon is the canonical generic printout with debug info of mlir-opt 19
// and of mlir-opt 22, one after the other, so that comparing two files'
// canon compares them under both releases.
func canon(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, tl := range oracle.MlirOpts {
		out, err := oracle.RunMlirOpt(tl.Require(t), "", "--mlir-print-op-generic", "--mlir-print-debuginfo", path)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("// " + tl.Name + "\n")
		b.Write(out)
	}
	return b.String()
}

func load(t *testing.T, path string) *Loaded {
	t.Helper()
	ld, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ld.Close() })
	if err := graph.Verify(ld.Module); err != nil {
		t.Fatal(err)
	}
	return ld
}

// text -> .aimodel -> .mlirb and -> text again: every step is equal under
// mlir-opt, and the .aimodel has the hash and metadata an .aimodel needs.
func TestRoundTripThroughKinds(t *testing.T) {
	dir := t.TempDir()
	src := load(t, hybrid)
	if src.Form != FormGeneric || src.Input.Kind != bundle.KindText {
		t.Fatalf("form %s kind %s", src.Form, src.Input.Kind)
	}
	aim := filepath.Join(dir, "x.aimodel")
	if _, err := Save(aim, src.Module, src, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile(filepath.Join(aim, "main.mlirb"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(main)
	hash, _ := os.ReadFile(filepath.Join(aim, "main.hash"))
	if !bytes.Equal(hash, sum[:]) { // raw: the input was a single file
		t.Errorf("main.hash %x is not the raw SHA-256 %x of main.mlirb", hash, sum)
	}
	if _, err := os.Stat(filepath.Join(aim, "metadata.json")); err != nil {
		t.Errorf("no metadata.json: %v", err)
	}
	want := canon(t, hybrid)
	if got := canon(t, filepath.Join(aim, "main.mlirb")); got != want {
		t.Fatalf("aimodel differs from input under mlir-opt:\n%s\nvs\n%s", got, want)
	}

	ai := load(t, aim)
	if ai.Form != FormBytecode || ai.Input.Kind != bundle.KindAIModel {
		t.Fatalf("form %s kind %s", ai.Form, ai.Input.Kind)
	}
	// Directory input, path without extension: mirrors the directory kind.
	mirror := filepath.Join(dir, "copy")
	if res, err := Save(mirror, ai.Module, ai, SaveOptions{}); err != nil || res.Kind != bundle.KindAIModel {
		t.Fatalf("mirror: %v %+v", err, res)
	}
	back := filepath.Join(dir, "back.mlir")
	if _, err := Save(back, ai.Module, ai, SaveOptions{Emit: FormPretty}); err != nil {
		t.Fatal(err)
	}
	// mlir-opt cannot parse the coreai printed form (only Apple's dialect
	// can): read it back with anefix and compare its generic printout.
	pr := load(t, back)
	if pr.Form != FormPretty {
		t.Fatalf("back.mlir read as %s", pr.Form)
	}
	gen := filepath.Join(dir, "back_generic.mlir")
	if _, err := Save(gen, pr.Module, pr, SaveOptions{Emit: FormGeneric}); err != nil {
		t.Fatal(err)
	}
	if got := canon(t, gen); got != want {
		t.Fatalf("pretty text from aimodel differs under mlir-opt")
	}
	// Unchanged bytecode in, same bytes out (tables kept).
	again := filepath.Join(dir, "again.mlirb")
	if _, err := Save(again, ai.Module, ai, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(again)
	if !bytes.Equal(b2, main) {
		t.Errorf("rewriting unchanged bytecode changed %d bytes", len(main))
	}
}

func TestStdinAndStdout(t *testing.T) {
	text, err := os.ReadFile(hybrid)
	if err != nil {
		t.Fatal(err)
	}
	ld, err := Load("-", LoadOptions{Stdin: bytes.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	var out bytes.Buffer
	if _, err := Save("-", ld.Module, ld, SaveOptions{Stdout: &out, Emit: FormBytecode}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out.Bytes(), bundle.Magic) {
		t.Fatalf("stdout is not bytecode")
	}
	ld2, err := Load("-", LoadOptions{Stdin: bytes.NewReader(out.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	defer ld2.Close()
	if ld2.Form != FormBytecode {
		t.Fatalf("form %s", ld2.Form)
	}
}

func TestOutputKind(t *testing.T) {
	cases := []struct {
		dst, emit string
		src       *Loaded
		want      bundle.Kind
	}{
		{"out.aimodel", "", nil, bundle.KindAIModel},
		{"out.mlir", "", nil, bundle.KindText},
		{"out.mlirb", "", nil, bundle.KindBytecode},
		{"-", "", nil, bundle.KindBytecode},
		{"-", "generic", nil, bundle.KindText},
		{"out", "", &Loaded{Input: &bundle.Input{Kind: bundle.KindAIModel}, Form: FormBytecode}, bundle.KindAIModel},
		{"-", "", &Loaded{Input: &bundle.Input{Kind: bundle.KindText}, Form: FormPretty}, bundle.KindText},
		{"out", "bytecode", &Loaded{Input: &bundle.Input{Kind: bundle.KindText}, Form: FormGeneric}, bundle.KindBytecode},
	}
	for _, c := range cases {
		if got := outputKind(c.dst, c.src, c.emit); got != c.want {
			t.Errorf("OutputKind(%q, emit %q) = %s, want %s", c.dst, c.emit, got, c.want)
		}
	}
}

func TestSaveRefusesTextIntoAIModel(t *testing.T) {
	src := load(t, hybrid)
	_, err := Save(filepath.Join(t.TempDir(), "x.aimodel"), src.Module, src, SaveOptions{Emit: FormGeneric})
	if err == nil || !strings.Contains(err.Error(), "holds MLIR bytecode") {
		t.Fatalf("got %v", err)
	}
	if _, err := Save("x.mlir", src.Module, src, SaveOptions{Emit: "yaml"}); err == nil {
		t.Fatal("unknown form accepted")
	}
}

// An .aimodel saved unchanged takes its main.hash from the input's
// verification (the bytes are identical); a changed one hashes its own
// bytes. Either way main.hash must be the SHA-256 of the main.mlirb written.
func TestSaveAIModelHash(t *testing.T) {
	const armA = "../../testdata/synth/armA.aimodel"
	in, err := os.ReadFile(filepath.Join(armA, "main.mlirb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, change := range []bool{false, true} {
		ld := load(t, armA)
		if change {
			ld.Module.Op.Attrs = ld.Module.Op.Attrs.With("anefix.test", &graph.UnitAttr{})
		}
		res, err := Save(filepath.Join(t.TempDir(), "o.aimodel"), ld.Module, ld, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main, err := os.ReadFile(res.MainPath)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(main, in) == change {
			t.Errorf("change=%v: output equal to the input: %v", change, !change)
		}
		sum := sha256.Sum256(main)
		want := hex.EncodeToString(sum[:])
		hash, _ := os.ReadFile(filepath.Join(filepath.Dir(res.MainPath), "main.hash"))
		// Raw, as the shipped input's main.hash is.
		if !bytes.Equal(hash, sum[:]) || res.Hash != want {
			t.Errorf("change=%v: main.hash %x (result %s), want %s", change, hash, res.Hash, want)
		}
	}
}

// A blob a pass removed stays declared, without data, in bytecode written
// with the input's tables (graph/bytecode keeps resource handles stable);
// reading that file back and printing it as text must work and leave the
// declaration out, as mlir-opt does (issue 20: dce after
// externalize-constant wrote .aimodels that convert --emit generic refused).
func TestRemovedBlobReadsBackAsText(t *testing.T) {
	dir := t.TempDir()
	ld := load(t, "../../testdata/synth/armA.aimodel")
	ld.Module.AddResource("anefix_test_extra", 2, graph.MemBlob{1, 2, 3, 4})
	one := filepath.Join(dir, "one.aimodel")
	if _, err := Save(one, ld.Module, ld, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ld1 := load(t, one)
	ld1.Module.RemoveResource("anefix_test_extra") // what dce does to an unreferenced blob
	two := filepath.Join(dir, "two.aimodel")
	if _, err := Save(two, ld1.Module, ld1, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ld2 := load(t, two)
	if r := ld2.Module.Resource("anefix_test_extra"); r == nil || r.Blob != nil {
		t.Fatalf("the removed blob should be read back as a declaration without data, got %+v", r)
	}
	var out bytes.Buffer
	if _, err := Save("-", ld2.Module, ld2, SaveOptions{Stdout: &out, Emit: FormGeneric}); err != nil {
		t.Fatalf("the written model does not print as text: %v", err)
	}
	if strings.Contains(out.String(), "anefix_test_extra") {
		t.Errorf("the text keeps the removed blob's declaration")
	}
	if !strings.Contains(out.String(), "dialect_resources") {
		t.Errorf("the text lost the other resources")
	}
}

// Save checks the module whole before writing: a referenced weight without
// bytes is refused, naming the key, and nothing is written.
func TestSaveRefusesIncompleteModule(t *testing.T) {
	dir := t.TempDir()
	ld := load(t, "../../testdata/synth/armA.aimodel")
	r := ld.Module.Resources[0]
	r.Blob = nil
	for _, dst := range []string{filepath.Join(dir, "x.aimodel"), filepath.Join(dir, "x.mlir"), "-"} {
		var out bytes.Buffer
		_, err := Save(dst, ld.Module, ld, SaveOptions{Stdout: &out})
		if err == nil || !strings.Contains(err.Error(), "dense_resource<"+r.Key+"> has no data") || !strings.Contains(err.Error(), "nothing is written") {
			t.Fatalf("%s: got %v", dst, err)
		}
		if _, err := os.Lstat(dst); dst != "-" && err == nil {
			t.Errorf("%s was written", dst)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes went to stdout", dst, out.Len())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// finalNewlines keeps every newline inside the text, however the writes
// split it, and replaces only the run that ends it.
func TestFinalNewlinesWriter(t *testing.T) {
	const text = "a\n\nb\nc\n\n"
	for split := 0; split <= len(text); split++ {
		for want := 0; want <= 3; want++ {
			var out bytes.Buffer
			f := &finalNewlines{w: &out}
			for _, part := range []string{text[:split], text[split:]} {
				if n, err := f.Write([]byte(part)); err != nil || n != len(part) {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if err := f.end(want); err != nil {
				t.Fatal(err)
			}
			if got, w := out.String(), "a\n\nb\nc"+strings.Repeat("\n", want); got != w {
				t.Errorf("split %d, %d newlines: %q, want %q", split, want, got, w)
			}
		}
	}
}
