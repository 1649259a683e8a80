package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/oracle"
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

// completionCase is one <Tab> at the end of line (the command line up to
// the cursor): the candidates the shell offers for the word being
// completed. The same cases run in bash, zsh and fish. Expected words are
// the registries' documented names (commands, flags, passes' and options'
// names and values as PASSES.md and each command's help list them).
type completionCase struct {
	line string
	want []string // the candidates zsh and fish offer: whole words
	// bash, when set, is what bash offers instead: bash splits the word
	// at '=' and ':' (COMP_WORDBREAKS) and completes only what follows.
	bash []string
	// nospace: a unique candidate is left without a space after it (the
	// word goes on: "palettize." then an option).
	nospace bool
}

// completionFile and colonFile are the files of the directory the shells
// complete in: a word that is not a command, flag or flag value completes
// as a path.
const (
	completionFile = "afile.mlir"
	colonFile      = "c:d.mlir"
)

var completionCases = []completionCase{
	{line: "anefix re", want: []string{"reduce", "rewrite"}},
	{line: "anefix check --js", want: []string{"--json"}},
	{line: "anefix check af", want: []string{completionFile}},
	{line: "anefix rewrite --enable pal", want: []string{"palettize"}},
	{line: "anefix rewrite --disable dce,fold-c", want: []string{"dce,fold-casts"}},
	{line: "anefix rewrite --print-ir-after a", want: []string{"all", "arm-d"}},
	{line: "anefix rewrite --set quantize-w", want: []string{"quantize-weights."}, nospace: true},
	{line: "anefix rewrite --set palettize.gr", want: []string{"palettize.granularity=", "palettize.group-size="}, nospace: true},
	{line: "anefix rewrite --set palettize.bi", want: []string{"palettize.bits="}, nospace: true},
	{line: "anefix rewrite --set fold-io-unsqueeze.other-users=", want: []string{"fold-io-unsqueeze.other-users=reshape", "fold-io-unsqueeze.other-users=skip"},
		bash: []string{"reshape", "skip"}},
	{line: "anefix rewrite --set palettize.method=u", want: []string{"palettize.method=uniform", "palettize.method=unique"}, bash: []string{"uniform", "unique"}},
	{line: "anefix rewrite --set palettize.bits=", want: []string{"palettize.bits=1", "palettize.bits=2", "palettize.bits=3", "palettize.bits=4", "palettize.bits=6", "palettize.bits=8"},
		bash: []string{"1", "2", "3", "4", "6", "8"}},
	{line: "anefix rewrite --set quantize-weights.granularity=per-b", want: []string{"quantize-weights.granularity=per-block"}, bash: []string{"per-block"}},
	{line: "anefix rewrite --set palettize.per-channel-scale=t", want: []string{"palettize.per-channel-scale=true"}, bash: []string{"true"}},
	{line: "anefix synth --arm ", want: []string{"A", "B", "C", "D", "E"}},
	{line: "anefix synth --emit=p", want: []string{"--emit=pretty"}, bash: []string{"pretty"}},
	{line: "anefix check --architecture h1", want: []string{"h16g", "h18p"}},
	{line: "anefix check --ops --only gpu,b", want: []string{"gpu,blocked"}},
	{line: "anefix verify --numerics ", want: []string{"ane", "ieee"}},
	{line: "anefix verify --ane-family p", want: []string{"pre-a16"}},
	{line: "anefix synth --weights l", want: []string{"linear-int4"}},
	{line: "anefix convert --bytecode-version ", want: []string{"1", "2", "3", "4", "5", "6"}},
	{line: "anefix completion ", want: []string{"bash", "fish", "zsh"}},
	{line: "anefix help ch", want: []string{"check"}},
	{line: "anefix passes pal", want: []string{"palettize"}},
	{line: "anefix passes --json quant", want: []string{"quantize-weights"}},
	{line: "anefix rewrite --set=quantize-w", want: []string{"--set=quantize-weights."}, bash: []string{"quantize-weights."}, nospace: true},
	{line: "anefix synth --arm=", want: []string{"--arm=A", "--arm=B", "--arm=C", "--arm=D", "--arm=E"}, bash: []string{"A", "B", "C", "D", "E"}},
	{line: "anefix rewrite -o x.mlir --emit b", want: []string{"bytecode"}},
	{line: "anefix rewrite x.mlir --passes dce --set dce.g", want: []string{"dce.graphs="}, nospace: true},
	{line: "anefix check 'af", want: []string{completionFile}},
	{line: "anefix check c:", want: []string{colonFile}, bash: []string{"d.mlir"}},
	{line: "anefix rewrite --set 'palettize.bi", want: []string{"palettize.bits="}, nospace: true},
	{line: "anefix --v", want: []string{"--version"}},
	{line: "anefix --version --j", want: []string{"--json"}},
	{line: "anefix rewrite --report=af", want: []string{"--report=" + completionFile}, bash: []string{completionFile}},
	{line: "anefix rewrite --report af", want: []string{completionFile}},
}

// completionShells writes, in a new directory, an "anefix" that runs this
// test binary as anefix (TestMain's envRunMain) and the script `anefix
// completion SHELL` prints for each shell (zsh's as _anefix, the name
// compinit loads it by); it returns the directory and a directory holding
// only completionFile, to complete in.
func completionShells(t *testing.T) (bin, work string) {
	t.Helper()
	bin, work = t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n" + envRunMain + "=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "anefix"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	for shell, name := range map[string]string{"bash": "anefix.bash", "zsh": "_anefix", "fish": "anefix.fish"} {
		code, script, errs := runCLI(t, "", "completion", shell)
		if code != exitOK {
			t.Fatalf("completion %s: %d %s", shell, code, errs)
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{completionFile, colonFile} {
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin, work
}

// shellCmd runs shell (a path) with args in work, finding anefix in bin
// first, and returns its stdout; a shell that fails or hangs fails the test.
// HOME is bin, so that the shells' history and settings stay in the test's
// directory.
func shellCmd(t *testing.T, bin, work, shell string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TERM=dumb", "HOME="+bin, "XDG_CONFIG_HOME="+bin, "XDG_DATA_HOME="+bin, "HISTFILE="+filepath.Join(bin, "history"))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v: %s", shell, args, err, stderr.String())
	}
	return out.String()
}

// sortedSet is words without repeats, sorted: the shells' order of
// candidates is their own (zsh sorts them when it lists them).
func sortedSet(words []string) []string {
	out := slices.Clone(words)
	slices.Sort(out)
	return slices.Compact(out)
}

// bash sources the script and calls its function with the completion
// variables bash sets on <Tab> (COMP_WORDS split at COMP_WORDBREAKS' '='
// and ':'), and
// prints COMPREPLY; compopt, which only works inside a real completion, is
// replaced by a function that reports what the script asked.
func TestBashCompletionScript(t *testing.T) {
	bash := oracle.Tool(t, "bash", "apt-get install bash")
	bin, work := completionShells(t)
	for _, c := range completionCases {
		words := strings.Fields(strings.NewReplacer("=", " = ", ":", " : ").Replace(c.line))
		if strings.HasSuffix(c.line, " ") || strings.HasSuffix(c.line, "=") || strings.HasSuffix(c.line, ":") {
			words = append(words, "")
		}
		var arr strings.Builder
		for _, w := range words {
			arr.WriteString(" " + quoteShellWord(w))
		}
		prog := "source " + quoteShellWord(filepath.Join(bin, "anefix.bash")) + "\n" +
			"compopt() { printf '<compopt'; printf ' %s' \"$@\"; printf '>\\n'; }\n" +
			"COMP_LINE=" + quoteShellWord(c.line) + "; COMP_POINT=${#COMP_LINE}\n" +
			"COMP_WORDS=(" + arr.String() + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1))\n" +
			"_anefix; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
		var got []string
		nospace := false
		for _, l := range strings.Split(strings.TrimSuffix(shellCmd(t, bin, work, bash, "--norc", "--noprofile", "-c", prog), "\n"), "\n") {
			switch {
			case l == "<compopt -o nospace>":
				nospace = true
			case strings.HasPrefix(l, "<compopt"): // -o filenames
			default:
				got = append(got, l)
			}
		}
		want := c.want
		if c.bash != nil {
			want = c.bash
		}
		if !slices.Equal(sortedSet(got), want) || nospace != c.nospace {
			t.Errorf("%q: COMPREPLY %q nospace %v, want %q nospace %v", c.line, got, nospace, want, c.nospace)
		}
	}
}

// fish completes a command line without a terminal: complete -C prints
// the candidates fish would offer.
func TestFishCompletionScript(t *testing.T) {
	fish := oracle.Tool(t, "fish", "apt-get install fish, or run .ci/run")
	bin, work := completionShells(t)
	for _, c := range completionCases {
		prog := "source " + fishQuote(filepath.Join(bin, "anefix.fish")) + "; complete -C " + fishQuote(c.line)
		got := strings.Fields(shellCmd(t, bin, work, fish, "--no-config", "-c", prog))
		if !slices.Equal(sortedSet(got), c.want) {
			t.Errorf("%q: fish offers %q, want %q", c.line, got, c.want)
		}
	}
}

// fishQuote makes s one word for fish: in single quotes, where only \\
// and \' are escapes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// zshDrive runs an interactive zsh -f in a terminal (zsh's own zpty),
// runs the setup line there, waits for it to print READY2, types keys and
// prints what the terminal shows until the end marker. The argument
// strings the test types never contain the markers they wait for
// (READY$((1+1)), "<E""ND>"), so the echo of the typing cannot match.
const zshDrive = `zmodload zsh/zpty || exit 3
zpty s "$1"
zpty -w s "$2"
zpty -r -m s out '*READY2*' || exit 4
zpty -w -n s "$3"
zpty -r -m s out "*$4*" || exit 5
print -r -- "$out"
zpty -d s
`

// inTerminal runs shell (a command line) in a terminal through zshDrive.
func inTerminal(t *testing.T, zsh, bin, work, shell, setup, keys, end string) string {
	t.Helper()
	drive := filepath.Join(bin, "drive.zsh")
	if err := os.WriteFile(drive, []byte(zshDrive), 0o644); err != nil {
		t.Fatal(err)
	}
	return shellCmd(t, bin, work, zsh, "-f", drive, shell, setup, keys, end)
}

// zsh runs its completion system for real (compinit, which loads _anefix
// from fpath the way the help says to install it) in a terminal, with
// compadd wrapped to print the words it takes (compadd -O: after zsh's own
// matching against the word on the line; after the part of the word
// compset -P took off, IPREFIX) and whether it was told to add no suffix
// (-S with an empty suffix).
func TestZshCompletionScript(t *testing.T) {
	zsh := oracle.Tool(t, "zsh", "apt-get install zsh, or run .ci/run")
	bin, work := completionShells(t)
	setup := "PS1=; fpath=(" + bin + " $fpath); autoload -U compinit && compinit -u -D; " +
		`compadd() { local -a m; builtin compadd -O m "$@"; m=("$IPREFIX"${^m}); print -rn -- "<""A"; (( ${@[(I)-S]} )) && print -rn -- " S=${@[${@[(I)-S]}+1]}"; print -rn -- ">"; printf "<""M>%s</""M>" "${m[@]}"; print -r -- "</""A>"; builtin compadd "$@"; }; ` +
		`__done() { print -r -- "<E""ND>"; }; comppostfuncs=(__done); print READY$((1+1))`
	adds := regexp.MustCompile(`<A( S=)?>(.*?)</A>`)
	match := regexp.MustCompile(`<M>(.*?)</M>`)
	for _, c := range completionCases {
		out := inTerminal(t, zsh, bin, work, "zsh -f -i", setup, c.line+"\t", "<END>")
		var got []string
		nospace := false
		for _, a := range adds.FindAllStringSubmatch(out, -1) {
			ms := match.FindAllStringSubmatch(a[2], -1)
			for _, m := range ms {
				got = append(got, m[1])
			}
			nospace = nospace || a[1] != "" && len(ms) > 0
		}
		if !slices.Equal(sortedSet(got), c.want) || nospace != c.nospace {
			t.Errorf("%q: zsh offers %q nospace %v, want %q nospace %v (terminal: %q)", c.line, got, nospace, c.want, c.nospace, out)
		}
	}
}

// One <Tab> in each shell, in a terminal, on the cases with one
// candidate: the line must become the candidate, followed by a space
// unless the word goes on (nospace). This is what a user sees; the tests
// above check the candidates.
func TestCompletionLineAfterTab(t *testing.T) {
	zsh := oracle.Tool(t, "zsh", "apt-get install zsh, or run .ci/run")
	fish := oracle.Tool(t, "fish", "apt-get install fish, or run .ci/run")
	bash := oracle.Tool(t, "bash", "apt-get install bash")
	bin, work := completionShells(t)
	shells := []struct{ name, cmd, setup string }{
		{"bash", bash + " --norc --noprofile -i", "PS1=; source " + filepath.Join(bin, "anefix.bash") +
			`; bind -x '"\C-x": printf "<%s>%s</%s>\n" L "$READLINE_LINE" L'; echo READY$((1+1))`},
		{"zsh", zsh + " -f -i", "PS1=; fpath=(" + bin + " $fpath); autoload -U compinit && compinit -u -D; " +
			`show() { printf "<%s>%s</%s>\n" L "$BUFFER" L; }; zle -N show; bindkey '^X' show; print READY$((1+1))`},
		{"fish", fish + " --no-config -i", "function fish_prompt; end; source " + filepath.Join(bin, "anefix.fish") +
			`; bind \cx 'printf "<%s>%s</%s>\n" L (commandline) L'; echo READY(math 1+1)`},
	}
	line := regexp.MustCompile(`<L>(.*?)</L>`)
	for _, c := range completionCases {
		if len(c.want) != 1 {
			continue
		}
		for _, sh := range shells {
			out := inTerminal(t, zsh, bin, work, sh.cmd, sh.setup, c.line+"\t\x18", "</L>")
			m := line.FindStringSubmatch(out)
			cut := strings.LastIndex(c.line, " ") + 1
			// A word opened with a quote keeps it; the shell closes it
			// after a finished word. After a word that goes on, bash
			// closes it too (the value typed next joins the word), zsh
			// and fish leave it open.
			q := ""
			if w := c.line[cut:]; strings.HasPrefix(w, "'") {
				q = "'"
			}
			wants := []string{c.line[:cut] + q + c.want[0] + q + " "}
			if c.nospace {
				wants = []string{c.line[:cut] + c.want[0]}
				if q != "" {
					wants = []string{c.line[:cut] + q + c.want[0] + q, c.line[:cut] + q + c.want[0]}
				}
			}
			if m == nil || !slices.Contains(wants, m[1]) {
				t.Errorf("%s: %q<Tab> gives %q, want one of %q (terminal: %q)", sh.name, c.line, m, wants, out)
			}
		}
	}
}

func TestCompletionUnknownShell(t *testing.T) {
	if code, _, errs := runCLI(t, "", "completion", "tcsh"); code != exitUsage || !strings.Contains(errs, "want bash, zsh or fish") {
		t.Errorf("completion tcsh: %d %q", code, errs)
	}
}

// A command flag that takes one of a closed set of words declares them
// (flagValues, flagListValues, flagPasses, flagPassSet) so that completion
// offers them. The command itself tells a closed set: given a made-up word
// (and arguments that otherwise run), it refuses it as a usage error naming
// the flag. Every string flag of every command is tried that way, except
// the ones openFlags lists with what they take instead; each declared value
// must run, and the made-up word must be refused.
func TestClosedFlagsDeclareValues(t *testing.T) {
	// openFlags take values of a syntax, not a set: a made-up word may be
	// refused, or not tried (the command runs other programs).
	openFlags := map[string]string{
		"output": "a path ending in .aimodel, .mlirb or .mlir, or -", "prompt-ids": "token ids",
		"function": "a graph of the inputs", "pipeline": "pipeline text (--print-pipeline)", "report": "a path",
		"tokens": "a file", "at": "a source location", "op": "an op id of the input", "compiled": "a path",
		"html": "a path", "dot": "a path", "source": "a path", "test": "a shell command", "cache": "a directory",
		"compiler": "a path", "keep": "a directory", "platform": "coreai-build's own word, passed through",
		"preferred-compute": "coreai-build's own word, passed through",
	}
	dir := t.TempDir()
	model := func(arm string) string {
		p := filepath.Join(dir, arm+".mlir")
		if code, _, errs := runCLI(t, "", "synth", "--arm", arm, "--ctx", "8", "--layers", "1", "-o", p); code != exitOK {
			t.Fatalf("synth --arm %s: %d %s", arm, code, errs)
		}
		return p
	}
	a, b := model("A"), model("B")
	// Arguments with which each command runs (OUT: a new output path);
	// nil: the command runs other programs, so only openFlags may hold its
	// string flags.
	runs := map[string][]string{
		"check":   {a},
		"convert": {a, "-o", "OUT"},
		"diff":    {a, b},
		"inspect": {a},
		"rewrite": {a, "-o", "OUT"},
		"synth":   {"--arm", "A", "--ctx", "8", "--layers", "1", "-o", "OUT"},
		"verify":  {a, b},
		"bisect":  nil, "reduce": nil, "compile": nil, "passes": nil, "completion": nil,
	}
	n := 0
	// refused runs name with --flag value, writing text and then bytecode
	// (--emit and --bytecode-version take only one of them): refused when
	// both are usage errors naming the flag.
	refused := func(name, flag, value string) (bool, string) {
		var errs string
		for _, ext := range []string{".mlir", ".mlirb"} {
			n++
			args := slices.Clone(runs[name])
			if i := slices.Index(args, "OUT"); i >= 0 {
				args[i] = filepath.Join(dir, fmt.Sprintf("out%d%s", n, ext))
			}
			code, _, e := runCLI(t, "", append(append([]string{name}, args...), "--"+flag, value)...)
			if code != exitUsage || !strings.Contains(e, "--"+flag) {
				return false, e
			}
			errs += e
		}
		return true, errs
	}
	declared := 0
	for _, name := range slices.Sorted(mapKeys(commands)) {
		run, known := runs[name]
		if !known {
			t.Errorf("command %s: no arguments to run it with here", name)
			continue
		}
		fs := newFlagSet(commands[name], &Env{})
		commands[name].Setup(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			if _, open := openFlags[f.Name]; open || f.Hidden {
				return
			}
			vals, hasVals := f.Annotations[valuesAnnotation]
			if list, ok := f.Annotations[listAnnotation]; ok {
				vals, hasVals = list, true
			}
			_, passList := f.Annotations[passListAnnotation]
			_, passSet := f.Annotations[passSetAnnotation]
			switch {
			case passList || passSet:
				return // the pass table's names (TestCompleteFromRegistries)
			case !hasVals && !slices.Contains([]string{"string", "stringSlice", "stringArray"}, f.Value.Type()):
				return
			case run == nil:
				if !hasVals {
					t.Errorf("%s --%s: a string flag of a command this test cannot run; list it in openFlags", name, f.Name)
				}
				return
			}
			if bad, errs := refused(name, f.Name, "zq-not-a-value"); hasVals && !bad {
				t.Errorf("%s --%s declares values %q but a made-up word is not refused naming it: %q", name, f.Name, vals, errs)
			} else if !hasVals && bad {
				t.Errorf("%s --%s refuses a made-up word (%q) but declares no values for completion", name, f.Name, errs)
			}
			if hasVals {
				declared++
			}
			for _, v := range vals {
				if bad, errs := refused(name, f.Name, v); bad {
					t.Errorf("%s --%s %s: a declared value is refused: %q", name, f.Name, v, errs)
				}
			}
		})
	}
	if declared == 0 {
		t.Error("no flag declares values: the checks above never ran")
	}
}
