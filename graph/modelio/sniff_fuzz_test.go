package modelio

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzNotModel: the sniffer that names what a non-model file is never
// panics, is deterministic, never calls MLIR text a non-model (text that
// starts like a module must reach the parser, whose error is the useful
// one), and never echoes the file's bytes raw: after the name, the message
// is valid UTF-8 without a control character (an ELF file's message once
// carried `?ELF????…` through the parse error it was given with).
func FuzzNotModel(f *testing.F) {
	for _, s := range []string{
		"# anefix\n\nA manual.\n",
		`{"format": "llm"}`,
		"PK\x03\x04rest",
		"\x1f\x8b\x08\x00",
		"bplist00\xd1\x01\x02",
		"\x7fELF\x02\x01\x01",
		"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\x10#\x00\x00\x00\x00\x00\x00@\x00",
		"<?xml version=\"1.0\"?><plist/>",
		"module {\n}\n",
		"// comment\n\"coreai.graph\"() ({}) : () -> ()\n",
		"\xff\xfe\x00",
		"hello \x1b[31mred\x1b[0m\n",
		"",
	} {
		f.Add("x.mlir", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		a, binA := notModel(name, data)
		b, binB := notModel(name, data)
		if a != b || binA != binB {
			t.Fatalf("not deterministic: %q %v vs %q %v", a, binA, b, binB)
		}
		if a != "" && strings.HasPrefix(string(data), "module {") {
			t.Fatalf("MLIR text called a non-model: %q", a)
		}
		if binA && a == "" {
			t.Fatalf("binary but no message")
		}
		rest := strings.TrimPrefix(a, name)
		if !utf8.ValidString(rest) || strings.IndexFunc(rest, unicode.IsControl) >= 0 {
			t.Fatalf("the message echoes the file's bytes raw: %q", rest)
		}
	})
}
