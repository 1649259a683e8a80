package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs one command line in-process and returns exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // substring of stdout+stderr
	}{
		{nil, exitUsage, "Usage: anefix <command>"},
		{[]string{"--help"}, exitOK, "Exit codes"},
		{[]string{"nosuch"}, exitUsage, `unknown command "nosuch"`},
		{[]string{"help", "nosuch"}, exitUsage, `unknown command "nosuch"`},
		{[]string{"help", "check"}, exitOK, "Usage: anefix check"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: code %d, output %q", c.args, code, out+errs)
		}
	}
}

// Every command must document itself with an example and reject unknown
// flags with exit 2.
func TestEveryCommandHasHelpAndExample(t *testing.T) {
	for name := range commands {
		code, out, _ := runCLI(t, "", name, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: anefix "+name) || !strings.Contains(out, "anefix "+name+" ") {
			t.Errorf("%s --help: code %d, output:\n%s", name, code, out)
		}
		if !strings.Contains(strings.ToLower(out), "example") {
			t.Errorf("%s --help has no example", name)
		}
		code, _, errs := runCLI(t, "", name, "--no-such-flag")
		if code != exitUsage || !strings.Contains(errs, "--no-such-flag") {
			t.Errorf("%s --no-such-flag: code %d, stderr %q", name, code, errs)
		}
	}
}

// A flag's usage line states its default once (pflag appends "(default
// X)" to any non-zero default, so the text must not say it again).
func TestFlagDefaultsStatedOnce(t *testing.T) {
	for name := range commands {
		_, out, _ := runCLI(t, "", name, "--help")
		for _, l := range strings.Split(out, "\n") {
			if strings.Count(l, "(default") > 1 {
				t.Errorf("%s --help: %q", name, strings.TrimSpace(l))
			}
		}
	}
}
