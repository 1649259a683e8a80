package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite --verify's report is verify's, so it goes where `anefix verify`
// prints it: stdout; with --json stdout holds the JSON rewrite report
// alone and the verify report goes to stderr. It once went to stderr
// always.
func TestRewriteVerifyReportOnStdout(t *testing.T) {
	in := rwArmA
	const table = "mean KLD" // a line of verify's teacher-forced report
	for _, asJSON := range []bool{false, true} {
		args := []string{"rewrite", in, "-o", filepath.Join(t.TempDir(), "out.aimodel"), "--passes", "dce", "--verify"}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK && code != exitGate {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !asJSON {
			if !strings.Contains(out, table) || strings.Contains(errs, table) {
				t.Errorf("%v: verify's report not on stdout alone:\nstdout %q\nstderr %q", args, out, errs)
			}
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%v: stdout is not the JSON report alone: %v\n%q", args, err, out)
		}
		if !strings.Contains(errs, table) {
			t.Errorf("%v: verify's report not on stderr: %q", args, errs)
		}
	}
}
