package mlirtext

import (
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
	for _, dir := range []string{"generic", "pretty"} {
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
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := Parse("fuzz.mlir", text)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, form := range []Form{FormGeneric, FormPretty} {
			out, err := Format(m, form)
			if err != nil {
				t.Fatalf("%v print: %v", form, err)
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
