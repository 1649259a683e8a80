package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/passes"
)

// complete answers from the registries: every command, every flag of each
// command's FlagSet, every pass, every declared option.
func TestCompleteFromRegistries(t *testing.T) {
	cmds := complete([]string{""}).words
	for n := range commands {
		if !slices.Contains(cmds, n) {
			t.Errorf("command %s not offered: %q", n, cmds)
		}
	}
	for name, c := range commands {
		fs := newFlagSet(c, &Env{})
		c.Setup(fs)
		got := complete([]string{name, "--"}).words
		fs.VisitAll(func(f *pflag.Flag) {
			if !slices.Contains(got, "--"+f.Name) {
				t.Errorf("%s: --%s not offered: %q", name, f.Name, got)
			}
		})
	}
	if got := complete([]string{"rewrite", "--enable", ""}).words; !slices.Equal(got, passes.Names()) {
		t.Errorf("--enable: %q, want %q", got, passes.Names())
	}
	for _, n := range passes.Names() {
		p, _ := passes.Lookup(n)
		got := complete([]string{"rewrite", "--set", n + "."})
		if !got.noSpace || len(got.words) != len(p.Options()) {
			t.Errorf("--set %s.: %+v, want its %d options", n, got, len(p.Options()))
		}
		for _, o := range p.Options() {
			if len(o.Values) == 0 {
				continue
			}
			vals := complete([]string{"rewrite", "--set", n + "." + o.Name + "="}).words
			if len(vals) != len(o.Values) {
				t.Errorf("--set %s.%s=: %q, want %q", n, o.Name, vals, o.Values)
			}
		}
	}
}

// The bash script, sourced by bash with the completion variables bash sets
// on <Tab>, asks the anefix on PATH (here the test binary running main)
// and fills COMPREPLY. Expected words come from the registries' documented
// names (passes' and options' names as PASSES.md lists them).
func TestBashCompletionScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to test the completion script: ", err)
	}
	bin := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n" + envRunMain + "=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "anefix"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	code, script, errs := runCLI(t, "", "completion", "bash")
	if code != exitOK {
		t.Fatalf("completion bash: %d %s", code, errs)
	}
	scriptPath := filepath.Join(bin, "anefix.bash")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string // the command line up to the cursor
		want []string
	}{
		{"anefix re", []string{"reduce", "rewrite"}},
		{"anefix check --js", []string{"--json"}},
		{"anefix rewrite --enable pal", []string{"palettize"}},
		{"anefix rewrite --disable dce,fold-c", []string{"dce,fold-casts"}},
		{"anefix rewrite --print-ir-after a", []string{"arm-d", "all"}},
		{"anefix rewrite --set quantize-w", []string{"quantize-weights."}},
		{"anefix rewrite --set palettize.gr", []string{"palettize.granularity=", "palettize.group-size="}},
		// bash splits at '=': the candidates are what follows it.
		{"anefix rewrite --set fold-io-unsqueeze.other-users=", []string{"reshape", "skip"}},
		{"anefix rewrite --set palettize.per-channel-scale=t", []string{"true"}},
		{"anefix synth --arm ", []string{"A", "B", "C", "D", "E"}},
		{"anefix synth --emit=p", []string{"pretty"}},
		{"anefix check --architecture h1", []string{"h16g", "h18p"}},
		{"anefix completion ", []string{"bash", "fish", "zsh"}},
		{"anefix help ch", []string{"check"}},
	}
	for _, c := range cases {
		// COMP_WORDS as bash splits them (COMP_WORDBREAKS: '=' and ':' are words of their own).
		words := strings.Fields(strings.NewReplacer("=", " = ").Replace(c.line))
		if strings.HasSuffix(c.line, " ") || strings.HasSuffix(c.line, "=") {
			words = append(words, "")
		}
		var arr strings.Builder
		for _, w := range words {
			arr.WriteString(" '" + w + "'")
		}
		prog := "source '" + scriptPath + "'\n" +
			"COMP_LINE='" + c.line + "'; COMP_POINT=${#COMP_LINE}\n" +
			"COMP_WORDS=(" + arr.String() + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1))\n" +
			"_anefix; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%q: %v: %s", c.line, err, stderr.String())
			continue
		}
		got := strings.Fields(out.String())
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: COMPREPLY %q, want %q (stderr %q)", c.line, got, c.want, stderr.String())
		}
	}
}

// zsh and fish are not installed on the test machine, so their scripts are
// checked for their structure only: each asks `anefix __complete` with
// its shell's name and hands the candidates to the shell's own builtin.
func TestZshFishCompletionScripts(t *testing.T) {
	for shell, want := range map[string][]string{
		"zsh":  {"#compdef anefix", "anefix __complete zsh", "compadd", "_files", "compdef _anefix anefix"},
		"fish": {"anefix __complete fish", "complete -c anefix", "__fish_complete_path", "commandline -ct"},
	} {
		code, script, _ := runCLI(t, "", "completion", shell)
		if code != exitOK {
			t.Errorf("completion %s: exit %d", shell, code)
		}
		for _, w := range want {
			if !strings.Contains(script, w) {
				t.Errorf("%s script lacks %q", shell, w)
			}
		}
	}
	if code, _, errs := runCLI(t, "", "completion", "tcsh"); code != exitUsage || !strings.Contains(errs, "want bash, zsh or fish") {
		t.Errorf("completion tcsh: %d %q", code, errs)
	}
}
