package mlirtext

import (
	"fmt"
	"github.com/anefix/anefix/graph"
	"strings"
	"testing"
)

func lexAll(t *testing.T, in string) ([]token, *Error) {
	t.Helper()
	l := NewLexer(NewSource("t.mlir", in))
	var out []token
	for {
		tk := l.Next()
		if tk.Kind == EOF {
			return out, l.Err()
		}
		out = append(out, tk)
	}
}

func TestLexerTokens(t *testing.T) {
	tests := []struct {
		in   string
		want string // "kind:text" joined by spaces
	}{
		{`%0:2 = "d.op"(%a, %b#1)`, `%identifier:%0 ':':: integer:2 '=':= string:"d.op" '(':( %identifier:%a ',':, %identifier:%b #identifier:#1 ')':)`},
		{`^bb0 @f @"a b" #loc1 !coreai.token`, `^identifier:^bb0 @symbol:@f @symbol:@"a b" #identifier:#loc1 !identifier:!coreai.token`},
		{`{-# x #-}`, `'{-#':{-# identifier:x '#-}':#-}`},
		{`-> :: ... ? * + -`, `'->':-> '::'::: '...':... '?':? '*':* '+':+ '-':-`},
		{`1.5e-3 0x7FC00000 42 2.`, `float:1.5e-3 integer:0x7FC00000 integer:42 float:2.`},
		{`1e5`, `integer:1 identifier:e5`},
		{`tensor<1x4xf16> // comment`, `identifier:tensor '<':< integer:1 identifier:x4xf16 '>':>`},
		{`"a\"b\\\0A\t"`, `string:"a\"b\\\0A\t"`},
		{`%arg-1 %$x %_a.b`, `%identifier:%arg-1 %identifier:%$x %identifier:%_a.b`},
		{`sym.name$x_1`, `identifier:sym.name$x_1`},
	}
	for _, tc := range tests {
		toks, err := lexAll(t, tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var parts []string
		for _, tk := range toks {
			parts = append(parts, tk.Kind.String()+":"+tk.Text)
			if tc.in[tk.Pos:tk.End] != tk.Text {
				t.Errorf("%q: token %q has wrong span", tc.in, tk.Text)
			}
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestLexerErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{"a\n  \"abc", 2, 3, "unterminated string"},
		{"x\n\"ab\nc\"", 2, 1, "not terminated before end of line"},
		{`"a\q"`, 1, 3, "unknown escape"},
		{"ok\n ok &", 2, 5, "unexpected character '&'"},
		{"% x", 1, 1, "invalid % identifier"},
		{"@1", 1, 1, "@ identifier"},
		{"\x00", 1, 1, "unexpected byte 0x00"},
	}
	for _, tc := range tests {
		_, err := lexAll(t, tc.in)
		if err == nil {
			t.Errorf("%q: no error", tc.in)
			continue
		}
		if err.Line != tc.line || err.Col != tc.col || !strings.Contains(err.Msg, tc.msg) {
			t.Errorf("%q: got %d:%d %q, want %d:%d %q", tc.in, err.Line, err.Col, err.Msg, tc.line, tc.col, tc.msg)
		}
		s := err.Error()
		if !strings.HasPrefix(s, "t.mlir:") || !strings.Contains(s, "^") {
			t.Errorf("%q: error text lacks position or caret:\n%s", tc.in, s)
		}
	}
}

func TestErrorCaret(t *testing.T) {
	src := NewSource("f.mlir", "line one\n  bad token here\n")
	e := src.ErrorAt(strings.Index(src.Text, "token"), "boom")
	want := "f.mlir:2:7: boom\n    bad token here\n        ^"
	if e.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", e.Error(), want)
	}
}

func TestQuoteUnquote(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b", "back\\slash", "nl\n\ttab", "\x00\xff", "qwen3_5_ios.py"} {
		q := graph.QuoteString(s)
		u, ok := unquote(q)
		if !ok || u != s {
			t.Errorf("Quote/Unquote(%q) = %q -> %q, %v", s, q, u, ok)
		}
	}
	if got := graph.QuoteString("a\"b\n\x01"); got != `"a\22b\0A\01"` {
		t.Errorf("Quote spelled %s, want MLIR's \\XX form", got)
	}
	for _, bad := range []string{`"\`, `x`, `"\q"`, `"\4"`} {
		if _, ok := unquote(bad); ok {
			t.Errorf("Unquote(%q) accepted", bad)
		}
	}
}

func TestBalancedBody(t *testing.T) {
	tests := []struct {
		in  string // text after '<'
		end int    // offset of the closing '>' or -1 for error
	}{
		{`"rms_norm" = {a = [1, 2]}>rest`, 25},
		{`(i32) -> i32>`, 12},
		{`tensor<1x4xf16>>`, 15},
		{`"a>b">`, 5},
		{`[>`, -1},
		{`abc`, -1},
	}
	for _, tc := range tests {
		l := NewLexer(NewSource("t", "<"+tc.in))
		end, err := l.BalancedBody(1)
		if tc.end < 0 {
			if err == nil {
				t.Errorf("%q: want error", tc.in)
			}
			continue
		}
		if err != nil || end-1 != tc.end {
			t.Errorf("%q: got %d, %v; want %d", tc.in, end-1, err, tc.end)
		}
	}
}

// TestErrorLongLine: an error inside a megabyte-long line (a weight blob)
// shows a window of the line around the column, caret under the culprit.
func TestErrorLongLine(t *testing.T) {
	line := `w: "0x02000000` + strings.Repeat("00", 500000) + `ZZ` + strings.Repeat("00", 1000) + `"`
	src := NewSource("big.mlir", "{-#\n"+line+"\n#-}")
	off := strings.Index(src.Text, "ZZ")
	e := src.ErrorAt(off, "invalid hex digit")
	lines := strings.Split(e.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %d", len(lines))
	}
	if len(lines[1]) > 200 {
		t.Errorf("context line is %d bytes long", len(lines[1]))
	}
	caret := strings.Index(lines[2], "^")
	if caret < 0 || caret >= len(lines[1]) || lines[1][caret:caret+2] != "ZZ" {
		t.Errorf("caret at %d does not point at ZZ:\n%s\n%s", caret, lines[1], lines[2])
	}
	if e.Line != 2 || e.Col != len(`w: "0x02000000`)+1000000+1 {
		t.Errorf("position %d:%d", e.Line, e.Col)
	}
}

// TestLineColScansOnce: implicit locations are found by scanning forward
// from the previous one, so parsing reads the text about once for them,
// also when ops nest regions (an op's position is taken before its body).
func TestLineColScansOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("\"builtin.module\"() ({\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  \"t.r\"() ({\n    %%a%d = \"t.a\"() : () -> i32\n    \"t.b\"(%%a%d) : (i32) -> ()\n  }) : () -> ()\n", i, i)
	}
	b.WriteString("}) : () -> ()\n")
	p := newParser("nest.mlir", b.String())
	p.parseFile()
	if p.err != nil {
		t.Fatal(p.err)
	}
	if n := p.src.scanned; n > b.Len() {
		t.Errorf("LineCol scanned %d bytes for %d bytes of text", n, b.Len())
	}
	l, c := p.src.LineCol(b.Len() - 2)
	if l != 2000*4+2 || c != 13 {
		t.Errorf("last position at %d:%d, want %d:13", l, c, 2000*4+2)
	}
}
