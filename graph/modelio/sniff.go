package modelio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/anefix/anefix/graph/bundle"
)

// mlirStart matches how MLIR text can begin (after blank lines and //
// comments): a module, an op in generic ("...") or custom (dialect.op)
// form, a result (%x =), an attribute or type alias (#a =, !t =), a
// resource section ({-#) or a block label.
var mlirStart = regexp.MustCompile(`^(module(\s*[{@]|\s+attributes\b)|"|%|\^|[#!][A-Za-z_]|\{-#|[A-Za-z_][\w$]*\.[A-Za-z_])`)

// notModel says what data (a single file that is not MLIR bytecode) is
// when it is plainly not MLIR text, so that the parse error it would give
// ("invalid # identifier" for a README) is not all the user sees; "" when
// it may be MLIR text (then the parser's error is the useful one). binary
// says the data is not text at all: a parse error would then only echo
// its bytes (`?ELF????…`), so the message stands alone.
func notModel(name string, data []byte) (msg string, binary bool) {
	what, binary := describe(name, data)
	if what == "" {
		return "", false
	}
	return fmt.Sprintf("%s is not a model: it is %s; %s", name, what, bundle.Accepted), binary
}

// describe names what data is, or "" when it may be MLIR text, and says
// whether it is binary. The words never quote a byte of a binary file.
func describe(name string, data []byte) (what string, binary bool) {
	head := data[:min(len(data), 512)]
	for _, m := range []struct{ magic, what string }{
		{"PK\x03\x04", "a zip archive (unpack it and give the .aimodel inside)"},
		{"\x1f\x8b", "a gzip archive (unpack it first)"},
		{"bplist00", "a binary property list (a compiled package's manifest? give the .aimodelc directory to inspect)"},
		{"\x7fELF", "an ELF executable"},
		{"\xcf\xfa\xed\xfe", "a Mach-O executable"},
		{"\xca\xfe\xba\xbe", "a universal Mach-O executable"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.what, true
		}
	}
	if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:max(0, len(head)-utf8.UTFMax)]) {
		if mlirStart.MatchString(skipBlankAndComments(string(head))) {
			// MLIR text with a stray byte (a Latin-1 comment, a damaged
			// file; found by FuzzNotModel): the parser says where.
			return "", false
		}
		return "a binary file but not MLIR bytecode (which starts with the magic 4D 4C EF 52)", true
	}
	text := skipBlankAndComments(string(data))
	switch {
	case mlirStart.MatchString(text):
		return "", false
	case text == "":
		return "", false // an empty module is valid MLIR text
	case (text[0] == '{' || text[0] == '[') && json.Valid(data):
		if filepath.Base(name) == "metadata.json" {
			return "a JSON file (an LLM bundle's metadata.json? give the bundle's directory)", false
		}
		return "a JSON file", false
	case strings.HasPrefix(text, "<?xml") || strings.HasPrefix(text, "<!DOCTYPE plist"):
		return "an XML file", false
	case strings.HasSuffix(strings.ToLower(name), ".md") || strings.HasPrefix(text, "# "):
		return "Markdown text", false
	}
	first, _, _ := strings.Cut(text, "\n")
	if len(first) > 60 {
		first = first[:60] + "…"
	}
	return fmt.Sprintf("text that does not begin as MLIR does (its first line: %q)", first), false
}

// skipBlankAndComments drops leading white space and // comment lines.
func skipBlankAndComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(s, "//") {
			return s
		}
		_, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return ""
		}
		s = rest
	}
}
