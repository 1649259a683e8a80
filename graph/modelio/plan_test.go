package modelio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
)

func TestPlanOutput(t *testing.T) {
	pretty := &Loaded{Input: &bundle.Input{Kind: bundle.KindText}, Form: FormPretty}
	cases := []struct {
		dst, emit string
		version   int
		src       *Loaded
		kind      bundle.Kind
		form      string
		usage     string // a UsageError containing this, "" for none
	}{
		{"out.aimodel", "", 0, nil, bundle.KindAIModel, FormBytecode, ""},
		{"out.mlir", "", 0, pretty, bundle.KindText, FormPretty, ""},
		{"out.mlir", "generic", 0, pretty, bundle.KindText, FormGeneric, ""},
		{"-", "bytecode", 3, pretty, bundle.KindBytecode, FormBytecode, ""},
		{"out.aimodel", "pretty", 0, nil, 0, "", "holds MLIR bytecode"},
		{"out.mlir", "bytecode", 0, nil, 0, "", "is a .mlir text file"},
		{"out.mlir", "", 5, nil, 0, "", "--bytecode-version 5: the output out.mlir is MLIR text"},
		{"out.mlir", "text", 0, nil, 0, "", `--emit "text": want generic, pretty or bytecode`},
	}
	for _, c := range cases {
		p, err := PlanOutput(c.dst, c.src, c.emit, c.version, false)
		var ue *UsageError
		switch {
		case c.usage != "":
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.usage) {
				t.Errorf("%s --emit %q: want a usage error %q, got %v", c.dst, c.emit, c.usage, err)
			}
		case err != nil:
			t.Errorf("%s --emit %q: %v", c.dst, c.emit, err)
		case p.Kind != c.kind || p.Form != c.form || p.BytecodeVersion != c.version:
			t.Errorf("%s --emit %q: plan %+v, want %s %s", c.dst, c.emit, p, c.kind, c.form)
		}
	}
}

func TestCheckAbsentAndFlags(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.mlir")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckAbsent(f, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("existing output: %v", err)
	}
	for _, dst := range []string{f + ".new", "-", ""} {
		if err := CheckAbsent(dst, false); err != nil {
			t.Errorf("%q: %v", dst, err)
		}
	}
	if err := CheckAbsent(f, true); err != nil {
		t.Errorf("--force: %v", err)
	}
	var ue *UsageError
	if err := CheckFlags("", 7); !errors.As(err, &ue) {
		t.Errorf("--bytecode-version 7: %v", err)
	}
	if err := CheckFlags(FormPretty, 6); err != nil {
		t.Errorf("valid flags: %v", err)
	}
}
