package bundle

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

const funcModule = `module {
  func.func @main(%arg0: tensor<1x4xf16>) -> tensor<1x4xf16> {
    %0 = "coreai.cast"(%arg0) : (tensor<1x4xf16>) -> tensor<1x4xf32>
    %1 = "coreai.cast"(%0) : (tensor<1x4xf32>) -> tensor<1x4xf16>
    return %1 : tensor<1x4xf16>
  }
}
`

// TestRealBytecodeBundle builds an .aimodel around a main.mlirb that
// mlir-opt wrote, checks it is detected as bytecode, rewrites the bundle by
// copying the bytecode through CopyRange and Write, and has mlir-opt read the
// result back: the bundle layer neither damages bytecode nor misdetects it.
func TestRealBytecodeBundle(t *testing.T) {
	mlirOpt := oracle.MlirOpt(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "in.mlir")
	os.WriteFile(src, []byte(funcModule), 0o644)
	model := filepath.Join(dir, "m.aimodel")
	os.Mkdir(model, 0o755)
	run := func(args ...string) []byte {
		t.Helper()
		out, err := oracle.RunMlirOpt(mlirOpt, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run(src, "--emit-bytecode", "-o", filepath.Join(model, mainFile))
	mainBytes, _ := os.ReadFile(filepath.Join(model, mainFile))
	os.WriteFile(filepath.Join(model, hashFile), []byte(sha(mainBytes)), 0o644)
	os.WriteFile(filepath.Join(model, metadataFile), []byte(`{}`), 0o644)

	in := open(t, model, OpenOptions{})
	if in.Kind != KindAIModel || !in.Bytecode || !in.Hash.Matches {
		t.Fatalf("kind %v bytecode %v hash %+v", in.Kind, in.Bytecode, in.Hash)
	}
	out := filepath.Join(dir, "out.aimodel")
	_, err := Write(out, kindUnknown, in, func(w io.Writer) error {
		return w.(rangeCopier).CopyRange(in.File, 0, in.Size)
	}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := run("--mlir-print-op-generic", "--mlir-print-debuginfo", filepath.Join(model, mainFile))
	got := run("--mlir-print-op-generic", "--mlir-print-debuginfo", filepath.Join(out, mainFile))
	if !bytes.Equal(got, want) {
		t.Errorf("mlir-opt reads the rewritten bundle differently:\n%s\nwant\n%s", got, want)
	}
	// The written bundle must itself open cleanly with a matching hash.
	again := open(t, out, OpenOptions{})
	if !again.Hash.Matches {
		t.Errorf("rewritten bundle hash %+v", again.Hash)
	}

	// Text from mlir-opt is detected as text, also through stdin.
	text := run("--mlir-print-op-generic", src)
	tin := open(t, "-", OpenOptions{Stdin: bytes.NewReader(text)})
	if tin.Kind != KindText || !bytes.Equal(tin.Text, text) {
		t.Errorf("stdin text detected as %v", tin.Kind)
	}
	bin := open(t, "-", OpenOptions{Stdin: bytes.NewReader(mainBytes)})
	if bin.Kind != KindBytecode {
		t.Errorf("stdin bytecode detected as %v", bin.Kind)
	}
}
