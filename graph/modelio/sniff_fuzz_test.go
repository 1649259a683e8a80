package modelio

import (
	"strings"
	"testing"
)

// FuzzNotModel: the sniffer that names what a non-model file is never
// panics, is deterministic, and never calls MLIR text a non-model (text
// that starts like a module must reach the parser, whose error is the
// useful one).
func FuzzNotModel(f *testing.F) {
	for _, s := range []string{
		"# anefix\n\nA manual.\n",
		`{"format": "llm"}`,
		"PK\x03\x04rest",
		"\x1f\x8b\x08\x00",
		"bplist00\xd1\x01\x02",
		"\x7fELF\x02\x01\x01",
		"<?xml version=\"1.0\"?><plist/>",
		"module {\n}\n",
		"// comment\n\"coreai.graph\"() ({}) : () -> ()\n",
		"\xff\xfe\x00",
		"",
	} {
		f.Add("x.mlir", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		a, b := notModel(name, data), notModel(name, data)
		if a != b {
			t.Fatalf("not deterministic: %q vs %q", a, b)
		}
		if a != "" && strings.HasPrefix(string(data), "module {") {
			t.Fatalf("MLIR text called a non-model: %q", a)
		}
	})
}
