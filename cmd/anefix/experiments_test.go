package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/ane/compiler"
)

// The "to settle" experiments check prints name anefix command lines; each
// must run as written (with IN and OUT filled in, and the stand-in
// compiler), not fail as a usage error.
func TestSuspectExperimentsRun(t *testing.T) {
	t.Setenv(compiler.EnvCompiler, standIn(t))
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "fallback")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	armD := filepath.Join("..", "..", "testdata", "synth", "armD.aimodel")
	cmdRe := regexp.MustCompile("`(anefix [^`]+)`")
	n := 0
	for _, r := range ane.Rules {
		for _, m := range cmdRe.FindAllStringSubmatch(r.ExperimentText(), -1) {
			n++
			args := strings.Fields(m[1])[1:]
			hasIn := false
			for i, a := range args {
				switch a {
				case "IN":
					args[i], hasIn = armD, true
				case "OUT":
					args[i] = filepath.Join(t.TempDir(), "out.aimodel")
				}
			}
			if !hasIn { // a fragment such as `anefix compile --require-ane` "both"
				args = append(args, armD)
			}
			code, _, stderr := runCLI(t, "", args...)
			if code != exitOK && code != exitGate {
				t.Errorf("%s: %q as %v: exit %d\n%s", r.ID, m[1], args, code, stderr)
			}
		}
	}
	if n == 0 {
		t.Fatal("no anefix command found in the rules' experiments")
	}
}
