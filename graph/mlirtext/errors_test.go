package mlirtext

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseErrors: bad input gives file:line:col, the offending line and a
// caret, never a panic.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"undeclared value", "\"x.a\"() ({\n  \"x.b\"(%v) : (i32) -> ()\n}) : () -> ()", 2, 9, "use of undeclared SSA value name '%v'"},
		{"type mismatch", "%0 = \"x.a\"() : () -> i32\n\"x.b\"(%0) : (f32) -> ()", 2, 7, "expects different type"},
		{"redefinition", "%0 = \"x.a\"() : () -> i32\n%0 = \"x.a\"() : () -> i32", 2, 1, "redefinition of SSA value '%0'"},
		{"result count", "%0:2 = \"x.a\"() : () -> i32", 1, 8, "defines 1 results but was provided 2"},
		{"missing colon", "\"x.a\"() loc(unknown)", 1, 9, "expected ':'"},
		{"bad type", "\"x.a\"() : () -> tensor<2xfoo>", 1, 26, "unknown type 'foo'"},
		{"bad dim", "\"x.a\"() : () -> tensor<2x>", 1, 26, "expected type"},
		{"unclosed region", "\"x.a\"() ({\n  \"x.b\"() : () -> ()\n", 3, 1, "expected '}'"},
		{"undefined block", "\"x.a\"() ({\n  \"x.b\"()[^bb7] : () -> ()\n}) : () -> ()", 2, 11, "undefined block '^bb7'"},
		{"undefined attr alias", "\"x.a\"() {a = #nope} : () -> ()", 1, 14, "undefined symbol alias id 'nope'"},
		{"undefined loc alias", "\"x.a\"() : () -> () loc(#nope)", 1, 24, "location alias 'nope' was never defined"},
		{"bad int range", "\"x.a\"() {a = 300 : si8} : () -> ()", 1, 14, "out of range"},
		{"dense shape", "\"x.a\"() {a = dense<[1, 2]> : tensor<3xi32>} : () -> ()", 1, 20, "does not match type"},
		{"dense hex size", "\"x.a\"() {a = dense<\"0x0102\"> : tensor<3xi32>} : () -> ()", 1, 20, "hex data size is invalid"},
		// 2^62 elements of 4 bytes: the size wraps to 0 in int64, which
		// empty data matched.
		{"dense hex size wraps", "\"x.a\"() {a = dense<\"0x\"> : tensor<4611686018427387904xi32>} : () -> ()", 1, 20, "hex data size is invalid"},
		{"float as int", "\"x.a\"() {a = dense<[1, 2]> : tensor<2xf32>} : () -> ()", 1, 21, "expected floating-point elements"},
		{"duplicate key", "\"x.a\"() {a = 1, a = 2} : () -> ()", 1, 17, "duplicate key 'a'"},
		{"bad blob", "\"x.a\"() : () -> ()\n{-#\n  dialect_resources: {\n    builtin: {\n      w: \"0x0200000XZ\"\n    }\n  }\n#-}", 5, 10, "resource blob"},
		{"blob align", "\"x.a\"() : () -> ()\n{-# dialect_resources: { builtin: { w: \"0x030000000000\" } } #-}", 2, 43, "not a power of two"},
		// Past graph.MaxBlobAlignment (2^16), the bytecode reader's limit:
		// 2^17 was written as bytecode anefix refused, 2^31 grew past 11 GB.
		{"blob align 2^17", "\"x.a\"() : () -> ()\n{-# dialect_resources: { builtin: { w: \"0x000002000000\" } } #-}", 2, 43, "alignment 131072 is not a power of two up to 65536"},
		{"blob align 2^31", "\"x.a\"() : () -> ()\n{-# dialect_resources: { builtin: { w: \"0x000000800000\" } } #-}", 2, 43, "alignment 2147483648 is not a power of two up to 65536"},
		{"unknown metadata", "{-# stuff: {} #-}", 1, 5, "unknown key 'stuff'"},
		{"custom op of other dialect", "%0 = arith.addf %a, %b : f32", 1, 6, "custom syntax of op 'arith.addf' is not supported"},
		{"pretty wrong result count", "module {\n  coreai.graph @g(%a: tensor<2xf16>) -> tensor<2xf16> {\n    %0 = coreai.exp %a : tensor<2xf16> -> (tensor<2xf16>, tensor<2xf16>)\n  }\n}", 3, 24, "has 2 result types but binds 1"},
		{"pretty operand count", "module {\n  coreai.graph @g(%a: tensor<2xf16>) {\n    %0 = coreai.exp %a, %a : tensor<2xf16> -> tensor<2xf16>\n  }\n}", 3, 28, "2 operands present, but expected 1"},
		// The caret sits after what is there, not on the next line's token.
		{"pretty missing arrow", "module {\n  coreai.graph @g(%a: tensor<2xf16>) {\n    %0 = coreai.exp %a : tensor<2xf16>\n    coreai.output %0 : tensor<2xf16>\n  }\n}", 3, 39, "expected '->' or 'to'"},
		{"pretty missing signature", "module {\n  coreai.graph @g(%a: tensor<2xf16>) {\n    %0 = coreai.exp %a\n    coreai.output %0 : tensor<2xf16>\n  }\n}", 3, 23, "expected ':' and the op's type signature"},
		{"missing keyword operand", "module {\n  coreai.graph @g(%a: tensor<2xf16>, %i: tensor<1x1xsi32>) {\n    %0 = coreai.gather_nd %a with %i : (tensor<2xf16>, tensor<1x1xsi32>) to tensor<1xf16>\n  }\n}", 3, 30, "expected 'at' in coreai.gather_nd"},
		{"enum without value", "module {\n  coreai.graph @g(%a: tensor<2xf16>) {\n    %0 = coreai.gelu %a approximate = tanh : tensor<2xf16> -> tensor<2xf16>\n  }\n}", 3, 39, "expected '<' and an enum value"},
		{"bad dialect loc", "\"x.a\"() : () -> () loc(#debuginfo.location<src = [>)", 1, 51, "unbalanced"},
		{"graph without name", "module {\n  coreai.graph (%a: f32) {\n  }\n}", 2, 16, "expected symbol name"},
		{"unterminated string", "\"x.a\"() {s = \"abc} : () -> ()", 1, 14, "unterminated string"},
		{"deep nesting", strings.Repeat("[", 5000), 1, 1000, "nesting deeper"},
		{"unbalanced dialect attr", "\"x.a\"() {a = #d.x<[>} : () -> ()", 1, 20, "unbalanced"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.in
			if tc.name == "deep nesting" {
				text = "\"x.a\"() {a = " + tc.in
				tc.col += len("\"x.a\"() {a = ")
			}
			_, _, err := Parse("bad.mlir", text)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if pe.File != "bad.mlir" || pe.Line != tc.line || pe.Col != tc.col || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("got %s:%d:%d %q\nwant %d:%d containing %q\n%v", pe.File, pe.Line, pe.Col, pe.Msg, tc.line, tc.col, tc.msg, err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 3 || !strings.HasSuffix(lines[2], "^") {
				t.Errorf("error lacks the offending line and caret:\n%v", err)
			}
		})
	}
}

// TestDenseShapes: nested literals of every shape decode to the right
// element order and shape checks catch ragged lists.
func TestDenseShapes(t *testing.T) {
	tests := []struct {
		lit, typ, want string // want: printed attribute or "error"
	}{
		{"[[1.0, 2.0, 3.0, 4.0]]", "tensor<1x4xf16>", "dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<1x4xf16>"},
		{"[[1], [2], [3]]", "tensor<3x1xsi32>", "dense<[[1], [2], [3]]> : tensor<3x1xsi32>"},
		{"[[[1, 2, 3]], [[4, 5, 6]]]", "tensor<2x1x3xi8>", "dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi8>"},
		{"[]", "tensor<0xf32>", "dense<> : tensor<0xf32>"}, // as mlir-opt prints it
		{"", "tensor<0x3xui32>", "dense<> : tensor<0x3xui32>"},
		{"7", "tensor<2x3xui8>", "dense<7> : tensor<2x3xui8>"},
		{"[[1, 2], [3]]", "tensor<2x2xi8>", "error"},
		{"[[1, 2, 3]]", "tensor<3x1xi8>", "error"},
	}
	for _, tc := range tests {
		m, _, err := Parse("d.mlir", `"x.a"() {v = dense<`+tc.lit+`> : `+tc.typ+`} : () -> ()`)
		if tc.want == "error" {
			if err == nil {
				t.Errorf("dense<%s> : %s accepted", tc.lit, tc.typ)
			}
			continue
		}
		if err != nil {
			t.Errorf("dense<%s> : %s: %v", tc.lit, tc.typ, err)
			continue
		}
		if got := m.Body().First().Attr("v").String(); got != tc.want {
			t.Errorf("dense<%s> : %s printed %s, want %s", tc.lit, tc.typ, got, tc.want)
		}
	}
}

// TestErrorLinePrintable: the echoed line never carries control bytes or
// invalid UTF-8 to the terminal (a binary file piped in), and the caret
// stays under the error's column.
func TestErrorLinePrintable(t *testing.T) {
	tests := []struct {
		name, line string
		col        int
		want       string // echoed line
	}{
		{"escape sequence", "ab\x1b[2Jcd", 5, "ab?[2Jcd"},
		{"nul and bell", "\x00x\x07", 2, "?x?"},
		{"invalid utf-8", "a\xf1\xff b", 4, "a?? b"},
		{"c1 control", "x\u009by", 1, "x?y"},
		{"tab", "\tz", 2, " z"},
		{"plain text unchanged", "héllo", 1, "héllo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := (&Error{File: "f", Line: 1, Col: tc.col, Msg: "m", LineText: tc.line}).Error()
			lines := strings.Split(msg, "\n")
			if len(lines) != 3 || lines[1] != "  "+tc.want {
				t.Fatalf("echoed line %q, want %q", lines[1], "  "+tc.want)
			}
			if lines[2] != "  "+strings.Repeat(" ", tc.col-1)+"^" {
				t.Errorf("caret line %q for column %d", lines[2], tc.col)
			}
		})
	}
	// Through the parser, on random binary input.
	_, _, err := Parse("bin", "\xf1\x1b]0;pwned\x07\x00\x9b")
	if err == nil {
		t.Fatal("binary input parsed")
	}
	for _, c := range err.Error() {
		if c != '\n' && (c < 0x20 || c == 0x7f || c == utf8.RuneError || c >= 0x80 && c < 0xa0) {
			t.Fatalf("error carries control or invalid bytes: %q", err.Error())
		}
	}
}
