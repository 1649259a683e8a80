package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
)

// `check README.md` says the file is not a model and what anefix reads
// (graph/modelio's sniffing), instead of only "invalid # identifier".
func TestCheckNotAModel(t *testing.T) {
	code, _, errs := runCLI(t, "", "check", filepath.Join("..", "..", "README.md"))
	if code != exitFailure || !strings.Contains(errs, "README.md is not a model: it is Markdown text; anefix reads an .aimodel directory") {
		t.Errorf("check README.md: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "check", t.TempDir())
	if code != exitFailure || !strings.Contains(errs, "is a directory but neither an .aimodel (no main.mlirb) nor an LLM bundle (no metadata.json); anefix reads an .aimodel directory") {
		t.Errorf("check on an empty directory: exit %d, stderr %q", code, errs)
	}
}

// `check` on an executable names its kind and echoes none of its bytes
// (the parse error given with it printed `?ELF????…`).
func TestCheckExecutableNotAModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(p, []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "check", p)
	if want := "anefix check: " + p + " is not a model: it is an ELF executable; " + bundle.Accepted + "\n"; code != exitFailure || out != "" || errs != want {
		t.Errorf("check on an ELF file: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errs, want)
	}
}
