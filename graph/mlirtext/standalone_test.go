package mlirtext

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestParseAttrAndType: a standalone attribute or type reads when the whole
// text is one (what MLIR's parseAttribute/parseType accept on a bytecode
// file's textual entry), and is refused with the column and the reason
// otherwise. The pooled parser carries nothing from one text to the next:
// each case runs after the one before it, the refused ones included.
func TestParseAttrAndType(t *testing.T) {
	cases := []struct {
		attr bool
		text string
		want string // "" = reads; else part of the error
	}{
		{true, `#coreai.debuginfo<"fx">`, ""},
		{true, `affine_map<(d0, d1) -> (d1, d0)>`, ""},
		{true, `#debuginfo.metadata<sources = [{identifiers = ["mul"], name = "torch"}]>`, ""},
		{true, `#arith.overflow<none>`, ""},
		{true, `dense<[1, 2]> : tensor<2xi32>`, ""},
		{true, `loc("x.py":1:2)`, ""},
		{true, `#t.a<scope = #unknown_alias>`, ""}, // no alias is defined: kept as written
		{true, "#\x9coreai.debuginfo<\"fx\">", "1:1: invalid # identifier"},
		{true, "\xdccoreai.x<1>", "1:1: unexpected byte 0xDC"},
		{true, `#coreai.debuginfo<"fx>`, "unterminated string in dialect body"},
		{true, `#coreai.debuginfo<"fx"`, "unterminated dialect body"},
		{true, `affine_map<(d0, d1) > (d1, d0)>`, "1:23: unexpected '(' after the attribute"},
		{true, `#t.a<x> }`, "unexpected '}' after the attribute"},
		{true, `#alias`, "undefined symbol alias id 'alias'"},
		{true, ``, "expected attribute value, found end of file"},
		{false, `!coreai.token`, ""},
		{false, `tensor<2x?xf16>`, ""},
		{false, `(i32, f16) -> tensor<4xf32>`, ""},
		{false, `vector<4xf32>`, ""},
		{false, "f\xc7E4M3FN", "unknown type 'f'"},
		{false, "!\x9coreai.token", "invalid ! identifier"},
		{false, `i32 i32`, "unexpected 'i32' after the type"},
		{false, `tensor<2xf16`, "1:13"},
	}
	for _, c := range cases {
		var err error
		if c.attr {
			_, err = ParseAttr("entry", c.text)
		} else {
			_, err = ParseType("entry", c.text)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want an error containing %q", c.text, err, c.want)
		}
	}
}

// FuzzParseStandalone: ParseAttr and ParseType (the bytecode reader's check
// of textual entries) either fail with a positioned *Error or read, never
// panic; what reads prints as text that reads back to the same printout;
// and the pooled parser carries nothing over: the same text gives the same
// answer again after another text (the fuzzer's second input) went through
// the pool. Seeds are TestParseAttrAndType's cases.
func FuzzParseStandalone(f *testing.F) {
	for _, s := range []string{
		`#coreai.debuginfo<"fx">`, `affine_map<(d0, d1) -> (d1, d0)>`,
		`#debuginfo.metadata<sources = [{identifiers = ["mul"], name = "torch"}]>`,
		`dense<[1, 2]> : tensor<2xi32>`, `loc("x.py":1:2)`, `#t.a<scope = #unknown_alias>`,
		"#\x9coreai.debuginfo<\"fx\">", `#coreai.debuginfo<"fx"`, `#t.a<x> }`, `#alias`, ``,
		`!coreai.token`, `tensor<2x?xf16>`, `(i32, f16) -> tensor<4xf32>`, `vector<4xf32>`, `tensor<2xf16`,
	} {
		f.Add(s, `dense<1> : tensor<i32>`)
	}
	type answer struct {
		text string
		err  string
	}
	parse := func(t *testing.T, text string, attr bool) answer {
		var v interface{ String() string }
		var err error
		if attr {
			var a graph.Attr
			a, err = ParseAttr("entry", text)
			v = a
		} else {
			var ty graph.Type
			ty, err = ParseType("entry", text)
			v = ty
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%q: error of type %T: %v", text, err, err)
			}
			return answer{err: err.Error()}
		}
		return answer{text: v.String()}
	}
	f.Fuzz(func(t *testing.T, text, other string) {
		for _, attr := range []bool{true, false} {
			first := parse(t, text, attr)
			parse(t, other, attr)
			if again := parse(t, text, attr); again != first {
				t.Fatalf("%q read as %+v, then as %+v after %q", text, first, again, other)
			}
			if first.err != "" {
				continue
			}
			if back := parse(t, first.text, attr); back.err != "" || back.text != first.text {
				t.Fatalf("%q printed as %q, which reads back as %+v", text, first.text, back)
			}
		}
	})
}
