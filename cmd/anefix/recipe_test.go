package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

// TestCIGateRecipe runs testdata/recipes/ci-gate.sh, the JSON/CI recipe
// the README shows, as written: sh, with `anefix` on PATH (this test
// binary, TestMain's envRunMain) and jq. The default rewrite of synth arm A
// passes both gates; leaving strip-fp32-casts out stops it at check with
// the blocker named; 4-bit palettization stops it at verify's default
// gates (TestVerifyTeacherGates: same top-1 below 0.9).
func TestCIGateRecipe(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		oracle.Unavailable(t, "jq", "apt-get install jq", err)
	}
	recipe, err := filepath.Abs(filepath.Join("..", "..", "testdata", "recipes", "ci-gate.sh"))
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(armAPath)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\n" + envRunMain + "=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "anefix"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + filepath.Dir(jq) + string(os.PathListSeparator) + "/usr/bin:/bin"
	for _, c := range []struct {
		name    string
		flags   []string
		code    int
		want    []string
		notWant string
	}{
		{"default rewrite", nil, 0, []string{"mean KLD ", "same top-1 "}, "blocker"},
		{"blocker left", []string{"--disable", "strip-fp32-casts"}, 1, []string{"blocker element-type x", "fix with strip-fp32-casts"}, "mean KLD"},
		{"numbers lost", []string{"--enable", "palettize", "--set", "palettize.bits=4"}, 1, []string{"mean KLD ", "(min 0.9)"}, "blocker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("sh", append([]string{recipe, model}, c.flags...)...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), c.notWant) {
				t.Errorf("output has %q:\n%s", c.notWant, out)
			}
		})
	}
}
