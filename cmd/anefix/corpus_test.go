package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph/oracle"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// corpusBytecode lists the bytecode files Apple's toolchain wrote (the
// corpus beside the repository; never copied into it). Without the corpus
// the test skips, or fails under ANEFIX_REQUIRE_ORACLES or CI.
func corpusBytecode(t *testing.T) []string {
	t.Helper()
	return oracle.CorpusFiles(t, ".mlirb", ".mpsgraph")
}

// TestCorpusConvertInspect: `convert F -o G` writes every real bytecode file
// back byte-identical (G keeps F's name, so the output kind follows the
// content), and `inspect --json` reports the producer, the top-level op, the
// dialects with their version entries and the ops, consistently with the
// text report.
func TestCorpusConvertInspect(t *testing.T) {
	for _, f := range corpusBytecode(t) {
		t.Run(strings.TrimPrefix(f, oracle.CorpusDir()+"/"), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), filepath.Base(f))
			if code, _, errs := runCLI(t, "", "convert", f, "-o", out); code != exitOK {
				t.Fatalf("convert: exit %d: %s", code, errs)
			}
			want, _ := os.ReadFile(f)
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("convert output differs from the input (%d vs %d bytes, %v)", len(got), len(want), err)
			}

			code, js, errs := runCLI(t, "", "inspect", f, "--json")
			if code != exitOK {
				t.Fatalf("inspect --json: exit %d: %s", code, errs)
			}
			rep := &pb.InspectReport{}
			if err := protojson.Unmarshal([]byte(js), rep); err != nil {
				t.Fatal(err)
			}
			in := rep.GetInput()
			if in.GetBytecodeProducer() != "MLIR22.0.0git" || in.GetBytecodeVersion() != 6 {
				t.Errorf("producer %q version %d", in.GetBytecodeProducer(), in.GetBytecodeVersion())
			}
			var wantTop string
			switch base := filepath.Base(f); {
			case strings.HasPrefix(base, "main-"):
				wantTop = "aicode.serialization.asset"
			case strings.HasPrefix(base, "original_model_"):
				wantTop = "mps.module"
			case strings.HasPrefix(base, "specialized_model_"):
				wantTop = "builtin.module"
				if len(rep.GetGraphs()) != 1 || rep.GetGraphs()[0].GetName() == "" {
					t.Errorf("graphs %v, want the one named func.func", rep.GetGraphs())
				}
			}
			if rep.GetTopLevelOp() != wantTop {
				t.Errorf("top-level op %q, want %q", rep.GetTopLevelOp(), wantTop)
			}
			versioned, ops := 0, int64(0)
			for _, d := range rep.GetDialects() {
				if d.GetHasVersion() {
					versioned++
				}
			}
			for _, c := range rep.GetModuleOpCounts() {
				ops += int64(c.GetCount())
			}
			if versioned == 0 || ops == 0 || len(rep.GetOpaquePropertyOps()) == 0 {
				t.Errorf("%d versioned dialects, %d ops, %d opaque-property op names", versioned, ops, len(rep.GetOpaquePropertyOps()))
			}
			code, text, errs := runCLI(t, "", "inspect", f)
			if code != exitOK || !strings.Contains(text, "module "+wantTop+"  (") || !strings.Contains(text, "producer MLIR22.0.0git") {
				t.Errorf("inspect text: exit %d %s\n%s", code, errs, text)
			}
		})
	}
}

// TestRewriteMlirOpt22FuncModule: a func.func module written by mlir-opt 22
// (MLIR 22's native layouts, no_inline in the properties) goes through
// `convert` byte-identical and through `rewrite` (strip-fp32-casts removes a
// cast pair, the functions' properties are re-encoded in MLIR 22's layout),
// and mlir-opt 22 reads the rewrite as the IR of the same module without the
// casts.
func TestRewriteMlirOpt22FuncModule(t *testing.T) {
	mlirOpt := oracle.MlirOpts[1].Require(t)
	const body = `module {
  func.func @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) attributes {no_inline} {
    %0 = "coreai.cast"(%arg0) : (tensor<4xf16>) -> tensor<4xf32>
    %1 = "coreai.cast"(%0) : (tensor<4xf32>) -> tensor<4xf16>
    %2 = func.call @id(%1) : (tensor<4xf16>) -> tensor<4xf16>
    return %2 : tensor<4xf16>
  }
  func.func private @id(%a: tensor<4xf16>) -> tensor<4xf16> {
    return %a : tensor<4xf16>
  }
}
`
	dir := t.TempDir()
	opt := func(args ...string) string {
		t.Helper()
		out, err := oracle.RunMlirOpt(mlirOpt, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	in, want := filepath.Join(dir, "in.mlir"), filepath.Join(dir, "want.mlir")
	os.WriteFile(in, []byte(body), 0o644)
	os.WriteFile(want, []byte(strings.NewReplacer(
		"    %0 = \"coreai.cast\"(%arg0) : (tensor<4xf16>) -> tensor<4xf32>\n", "",
		"    %1 = \"coreai.cast\"(%0) : (tensor<4xf32>) -> tensor<4xf16>\n", "",
		"@id(%1)", "@id(%arg0)").Replace(body)), 0o644)
	bc := filepath.Join(dir, "in.mlirb")
	opt(in, "--emit-bytecode", "-o", bc)

	conv := filepath.Join(dir, "conv.mlirb")
	if code, _, errs := runCLI(t, "", "convert", bc, "-o", conv); code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(bc)
	b, _ := os.ReadFile(conv)
	if !bytes.Equal(a, b) {
		t.Fatalf("convert of mlir-opt 22's bytecode is not byte-identical")
	}
	out := filepath.Join(dir, "out.mlirb")
	if code, _, errs := runCLI(t, "", "rewrite", bc, "-o", out); code != exitOK {
		t.Fatalf("rewrite: exit %d: %s", code, errs)
	}
	got, wantText := opt("--mlir-print-op-generic", out), opt("--mlir-print-op-generic", want)
	if got != wantText || !strings.Contains(got, "no_inline,") {
		t.Errorf("mlir-opt 22 reads the rewrite as\n%s\nwant\n%s", got, wantText)
	}
}
