package mlirtext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestBoundIsUpperBound: the printer skips the parser's judgement when
// nestBound is within the limit, so the bound must never be below the
// nesting the parser meets reading the printed text (p.deepest). Checked
// on every text test input in both forms and on deep hand-made ones
// (nested regions, arrays, dictionaries, fused locations, function types).
func TestNestBoundIsUpperBound(t *testing.T) {
	var texts []string
	for _, dir := range []string{"generic", "pretty", "coreai", "coreai/aliased"} {
		files, _ := filepath.Glob(filepath.Join(testdataDir, dir, "*.mlir"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	if len(texts) < 10 {
		t.Fatalf("only %d test inputs found", len(texts))
	}
	texts = append(texts,
		strings.Repeat(`"t.r"() ({`+"\n", 300)+`"t.x"() : () -> ()`+strings.Repeat("\n}) : () -> ()", 300),
		`"t.x"() {a = `+strings.Repeat("[", 600)+"1"+strings.Repeat("]", 600)+"} : () -> ()",
		`"t.x"() {a = `+strings.Repeat("{b = ", 400)+"1 : i8"+strings.Repeat("}", 400)+"} : () -> ()",
		`"t.x"() : () -> () loc(`+strings.Repeat(`fused["a", `, 300)+`"f":1:2`+strings.Repeat("]", 300)+")",
		`"t.x"() {t = `+strings.Repeat("() -> (", 300)+"i32"+strings.Repeat(")", 300)+"} : () -> ()",
		`"t.x"() {d = dense<[[[1.0]]]> : tensor<1x1x1xf16>, o = #t.a<`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`>} : () -> () loc(#t.l<x = [[1]]>)`,
	)
	checked := 0
	for i, text := range texts {
		m, _, err := Parse("in.mlir", text)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		bound, _ := newNestBound().module(m)
		for _, form := range []Form{FormGeneric, FormPretty} {
			out, err := Format(m, form)
			if err != nil {
				t.Fatalf("input %d %v: %v", i, form, err)
			}
			p := newParser("printed.mlir", string(out))
			if _, _, err := parse(p); err != nil {
				t.Fatalf("input %d %v: printed text does not parse: %v", i, form, err)
			}
			if p.deepest > bound {
				t.Errorf("input %d %v: the parser met %d levels, the bound is %d", i, form, p.deepest, bound)
			}
			checked++
		}
	}
	if checked != 2*len(texts) {
		t.Errorf("only %d of %d printouts checked", checked, 2*len(texts))
	}
}
