package main

import (
	"path/filepath"
	"strings"
	"testing"
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
