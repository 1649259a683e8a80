package mlirtext

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input either fails with a positioned *Error or parses;
// what parses prints in both forms, and the printout parses back to the
// same printout (no panic, no hang, no loss). Seeds are the test files;
// crashers found by `go test -fuzz FuzzParse` land in testdata/fuzz and run
// as regression cases with every `go test`.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"generic", "pretty", "coreai", "coreai/aliased"} {
		files, _ := filepath.Glob(filepath.Join(testdataDir, dir, "*.mlir"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
		}
	}
	f.Add(`"x.a"() ({^bb0(%a: i32): "x.b"(%a)[^bb0] : (i32) -> ()}) : () -> ()`)
	f.Add("module {\n  coreai.graph @g(%a: tensor<2xf16>) -> tensor<2xf16> {\n    %0 = coreai.exp %a : tensor<2xf16> -> tensor<2xf16>\n    coreai.output %0 : tensor<2xf16>\n  }\n}")
	// Small cases of coreai-torch's forms, so mutations reach each branch.
	f.Add("%0 = coreai.create_token : !coreai.token\n%1, %2 = coreai.read_handle %h, %0 : (<tensor<1x4xf32>>, !coreai.token) -> (tensor<1x4xf32>, !coreai.token)")
	f.Add("%1 = coreai.pad %x, %p, %v mode = <constant> : (tensor<2xf32>, tensor<2xui32>, tensor<f32>) -> tensor<4xf32> loc(#debuginfo.location<src = loc(\"m.py\":1:0)>)")
	f.Add("%0 = coreai.if %c {\n  coreai.yield %a : tensor<f32>\n} else {\n  coreai.yield %b : tensor<f32>\n} : tensor<i1> -> tensor<f32>")
	f.Add("%0 = coreai.scatter_nd %x with %u at %i {\n^bb0(%a: tensor<f32>, %b: tensor<f32>):\n  coreai.yield %b : tensor<f32>\n} : (tensor<5xf32>, tensor<2xf32>, tensor<2x1xsi32>) to tensor<5xf32>")
	f.Add("%0 = coreai.gather_along_axis %x at %i along %a : (tensor<5xf32>, tensor<2xsi32>, tensor<si32>) to tensor<2xf32>")
	f.Add("%5 = coreai.metal4_kernel kernel_args(%a), threads_per_grid %g, threads_per_thread_group %t, result_shapes(%s) {kernel_name = \"k\"} : (tensor<2xf16>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> tensor<2xf16>")
	// Repeated spellings the parser shares (locations, their frames,
	// function types, dictionaries), with aliases and escapes among them.
	loc := `loc(fused<#debuginfo.metadata<sources = [{identifiers = ["add"], name = "torch"}]>>["add"("/m/q.py":3:0), "/m/q.py":328:0])`
	f.Add("module {\n  %0 = \"t.c\"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32> " + loc + "\n  %1 = \"t.c\"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32> " + loc +
		"\n  %2 = \"t.a\"(%0, %1) {n = 1 : i64} : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32> loc(fused[\"x\"(\"a\\22(b\":1:2), #l])\n}\n#l = loc(\"z\":1:1)\n")
	f.Add("%0 = \"t.c\"() : () -> i32 loc(callsite(\"f\" at \"g\":1:2))\n%1 = \"t.c\"() : () -> i32 loc(callsite(\"f\" at \"g\":1:2))\n%2 = \"t.c\"() : () -> i32 loc(#debuginfo.location<a -> b>)")
	// SSA names the reader keeps in implicit locations (graph.TextName):
	// result groups, odd characters, the same name in nested regions.
	f.Add("%w$.-_1:2 = \"t.c\"() : () -> (i32, i32)\n%0 = \"t.r\"() ({\n  %w$.-_1 = \"t.c\"() : () -> i32\n}) : () -> i32\n%x = \"t.c\"() : () -> i32 loc(unknown)")
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := Parse("fuzz.mlir", text)
		// Sharing equal spellings changes nothing a module holds: the
		// parser without it reads the same or fails the same way.
		m0, _, err0 := parseUnshared("fuzz.mlir", text)
		if (err == nil) != (err0 == nil) || err != nil && err.Error() != err0.Error() {
			t.Fatalf("shared: %v; unshared: %v", err, err0)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, form := range []Form{FormGeneric, FormPretty} {
			out, err := Format(m, form)
			if errors.Is(err, errTooDeep) {
				// Read in one form within the limit, deeper in the
				// other (generic spells a signature as properties):
				// refused rather than written unreadable.
				continue
			}
			if err != nil {
				t.Fatalf("%v print: %v", form, err)
			}
			if out0, err := Format(m0, form); err != nil || string(out0) != string(out) {
				t.Fatalf("%v: the module parsed without sharing prints differently (%v):\n%s", form, err, firstDiff(string(out0), string(out)))
			}
			m2, _, err := Parse("fuzz2.mlir", string(out))
			if err != nil {
				t.Fatalf("%v printout does not parse: %v\n%s", form, err, out)
			}
			out2, err := Format(m2, form)
			if err != nil {
				t.Fatal(err)
			}
			if string(out2) != string(out) {
				t.Fatalf("%v printout is not a fixed point:\n%s", form, firstDiff(string(out), string(out2)))
			}
		}
	})
}
