package mlirtext

import (
	"strings"
	"testing"
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
