package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/passes"
)

// Shell completion. The scripts `anefix completion SHELL` prints are thin:
// on every <Tab> they run `anefix __complete SHELL WORD...` (the words
// after "anefix", the last one being completed, maybe empty), which
// answers from the registries themselves: the command table, each
// command's FlagSet, the pass table and each pass's declared options. A
// new command, flag, pass or option completes without touching this file.

func init() {
	register(&command{
		Name:    "completion",
		Usage:   "completion bash|zsh|fish",
		Summary: "print a shell completion script (commands, flags, passes, pass options and values)",
		Help: `Prints a script that completes anefix's commands, flags, pass names
(--enable, --disable, --passes, --print-ir-after), --set pass.option=value
(option names, and values where an option lists them) and the values of
flags that take one of a few words. The script asks the anefix on PATH, so
it stays right when anefix changes.

Examples:
  source <(anefix completion bash)              # bash, this shell
  anefix completion bash > ~/.local/share/bash-completion/completions/anefix
  anefix completion zsh > "${fpath[1]}/_anefix"  # zsh (compinit loads it)
  anefix completion fish > ~/.config/fish/completions/anefix.fish`,
		Setup: runWith(func(*struct{}, *pflag.FlagSet) {}, runCompletion),
	})
}

func runCompletion(env *Env, _ *struct{}, args []string) error {
	if len(args) != 1 {
		return usagef("completion takes one shell: bash, zsh or fish")
	}
	script, ok := completionScripts[args[0]]
	if !ok {
		return usagef("completion: unknown shell %q: want bash, zsh or fish", args[0])
	}
	_, err := io.WriteString(env.Stdout, script)
	return err
}

// Annotations a flag's declaration may carry to say what its values are.
const (
	valuesAnnotation   = "anefix_values"  // the words it takes
	listAnnotation     = "anefix_list"    // a comma list of the words listed
	passListAnnotation = "anefix_passes"  // pass names (a comma list); the words listed are taken too
	passSetAnnotation  = "anefix_passset" // pass.option=value
)

// flagValues says that flag name of fs takes one of values.
func flagValues(fs *pflag.FlagSet, name string, values ...string) {
	annotate(fs, name, valuesAnnotation, values)
}

// flagListValues says that flag name of fs takes a comma list of values.
func flagListValues(fs *pflag.FlagSet, name string, values ...string) {
	annotate(fs, name, listAnnotation, values)
}

// flagPasses says that flag name of fs takes pass names (and also the
// words extra, such as "all").
func flagPasses(fs *pflag.FlagSet, name string, extra ...string) {
	annotate(fs, name, passListAnnotation, extra)
}

// flagPassSet says that flag name of fs takes pass.option=value.
func flagPassSet(fs *pflag.FlagSet, name string) { annotate(fs, name, passSetAnnotation, nil) }

func annotate(fs *pflag.FlagSet, name, key string, values []string) {
	if err := fs.SetAnnotation(name, key, values); err != nil {
		panic("anefix: " + err.Error()) // a flag not declared: a programming error
	}
}

// completion is the answer to one <Tab>: the candidates for the word, and
// whether the shell should complete file names instead (files; the path
// follows filePrefix in the word: "--report=") or leave the cursor after
// the candidate without a space (noSpace: "palettize.").
type completion struct {
	words      []string
	files      bool
	filePrefix string
	noSpace    bool
}

// complete answers for words, the command line after "anefix" up to the
// cursor; the last word is the one being completed.
func complete(words []string) completion {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	if len(before) == 0 {
		if strings.HasPrefix(cur, "-") {
			return matching(cur, []string{"--help", "--version"})
		}
		return matching(cur, append(commandNames(), "help", "version"))
	}
	if before[0] == "--version" || before[0] == "version" {
		if len(before) == 1 {
			return matching(cur, []string{"--json"})
		}
		return completion{}
	}
	if before[0] == "help" {
		if len(before) == 1 {
			return matching(cur, commandNames())
		}
		return completion{}
	}
	c, ok := commands[before[0]]
	if !ok {
		return completion{files: true}
	}
	if c.Name == "completion" {
		if len(before) == 1 {
			return matching(cur, slices.Sorted(mapKeys(completionScripts)))
		}
		return completion{}
	}
	fs := newFlagSet(c, &Env{})
	c.Setup(fs)
	// A value for the flag just before: --enable <Tab>.
	if prev := before[len(before)-1]; len(before) > 1 && strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
		if f := lookupFlag(fs, prev); f != nil && takesValue(f) {
			return flagValue(f, cur)
		}
	}
	if strings.HasPrefix(cur, "-") {
		if name, val, ok := strings.Cut(cur, "="); ok {
			if f := lookupFlag(fs, name); f != nil && takesValue(f) {
				r := flagValue(f, val)
				for i, w := range r.words {
					r.words[i] = name + "=" + w
				}
				if r.files {
					r.filePrefix = name + "="
				}
				return r
			}
			return completion{}
		}
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, "--"+f.Name)
			}
		})
		names = append(names, "--help")
		return matching(cur, names)
	}
	if c.Name == "passes" {
		// Its one argument is a pass or settings group name, not a file.
		if slices.ContainsFunc(before[1:], func(w string) bool { return !strings.HasPrefix(w, "-") }) {
			return completion{}
		}
		return matching(cur, append(passes.Names(), settingNames()...))
	}
	return completion{files: true}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// lookupFlag finds "--name" or "-x" in fs.
func lookupFlag(fs *pflag.FlagSet, word string) *pflag.Flag {
	if name, ok := strings.CutPrefix(word, "--"); ok {
		return fs.Lookup(name)
	}
	if s, ok := strings.CutPrefix(word, "-"); ok && len(s) == 1 {
		return fs.ShorthandLookup(s)
	}
	return nil
}

// takesValue reports whether f reads the next word as its value.
func takesValue(f *pflag.Flag) bool { return f.NoOptDefVal == "" && f.Value.Type() != "bool" }

// flagValue completes cur as a value of f, from its annotations; a flag
// without them takes a path.
func flagValue(f *pflag.Flag, cur string) completion {
	if vals, ok := f.Annotations[valuesAnnotation]; ok {
		return matching(cur, vals)
	}
	if vals, ok := f.Annotations[listAnnotation]; ok {
		return listValue(cur, vals)
	}
	if extra, ok := f.Annotations[passListAnnotation]; ok {
		return listValue(cur, append(passes.Names(), extra...))
	}
	if _, ok := f.Annotations[passSetAnnotation]; ok {
		return passSetValue(cur)
	}
	return completion{files: true}
}

// listValue completes the last element of cur, a comma list of values.
func listValue(cur string, values []string) completion {
	done, last := "", cur
	if i := strings.LastIndex(cur, ","); i >= 0 {
		done, last = cur[:i+1], cur[i+1:]
	}
	r := matching(last, values)
	for i, w := range r.words {
		r.words[i] = done + w
	}
	return r
}

// passSetValue completes pass.option=value from the pass table and the
// options each pass (or settings group) declares.
func passSetValue(cur string) completion {
	groups := append(slices.Clone(tablePasses()), passes.SettingGroups()...)
	name, rest, dotted := strings.Cut(cur, ".")
	if !dotted {
		var ws []string
		for _, p := range groups {
			ws = append(ws, p.Name+".")
		}
		r := matching(cur, ws)
		r.noSpace = true
		return r
	}
	var p *passes.Pass
	for _, g := range groups {
		if g.Name == name {
			p = g
		}
	}
	if p == nil {
		return completion{}
	}
	opt, val, hasVal := strings.Cut(rest, "=")
	if !hasVal {
		var ws []string
		for _, o := range p.Options() {
			ws = append(ws, name+"."+o.Name+"=")
		}
		r := matching(cur, ws)
		r.noSpace = true
		return r
	}
	for _, o := range p.Options() {
		if o.Name != opt {
			continue
		}
		vals := o.Values
		if o.Kind == "bool" {
			vals = []string{"true", "false"}
		}
		r := matching(val, vals)
		for i, w := range r.words {
			r.words[i] = name + "." + opt + "=" + w
		}
		return r
	}
	return completion{}
}

// tablePasses is every pass of the table, in its order.
func tablePasses() []*passes.Pass {
	var out []*passes.Pass
	for _, n := range passes.Names() {
		p, _ := passes.Lookup(n)
		out = append(out, p)
	}
	return out
}

// matching keeps the candidates that start with prefix.
func matching(prefix string, candidates []string) completion {
	var r completion
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			r.words = append(r.words, c)
		}
	}
	return r
}

// runComplete is the hidden `anefix __complete SHELL WORD...`: the first
// line says what the shell does (files, nospace or words; "files PREFIX"
// when the path follows PREFIX in the word, as in --report=PATH), the
// others are the candidates. bash splits words at '=' and ':'
// (COMP_WORDBREAKS), so it gets each candidate from after the last of those
// in the word.
func runComplete(env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "anefix __complete: want SHELL WORD...")
		return exitUsage
	}
	shell, words := args[0], args[1:]
	r := complete(words)
	switch {
	case r.files:
		fmt.Fprintln(env.Stdout, strings.TrimSpace("files "+r.filePrefix))
	case r.noSpace:
		fmt.Fprintln(env.Stdout, "nospace")
	default:
		fmt.Fprintln(env.Stdout, "words")
	}
	cut := 0
	if shell == "bash" && len(words) > 0 {
		cut = strings.LastIndexAny(words[len(words)-1], "=:") + 1
	}
	for _, w := range r.words {
		fmt.Fprintln(env.Stdout, w[min(cut, len(w)):])
	}
	return exitOK
}

var completionScripts = map[string]string{
	"bash": `# bash completion for anefix (anefix completion bash)
_anefix() {
	local line=${COMP_LINE:0:COMP_POINT}
	local -a words
	read -ra words <<<"$line"
	if [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]]; then
		words+=("")
	fi
	# The words as anefix reads them: without the quotes typed around them.
	words=("${words[@]//[\'\"]/}")
	local cur=${words[${#words[@]}-1]}
	local IFS=$'\n'
	local -a out
	out=($(anefix __complete bash "${words[@]:1}" 2>/dev/null)) || return 0
	case ${out[0]} in
	files*)
		local prefix=${out[0]#files}
		prefix=${prefix# }
		local path=${cur#"$prefix"}
		# bash's own word starts after the path's last '=' or ':'.
		local brk=${path%"${path##*[=:]}"}
		COMPREPLY=($(compgen -f -- "$path"))
		COMPREPLY=("${COMPREPLY[@]#"$brk"}")
		compopt -o filenames 2>/dev/null
		;;
	nospace)
		COMPREPLY=("${out[@]:1}")
		compopt -o nospace 2>/dev/null
		;;
	*)
		COMPREPLY=("${out[@]:1}")
		;;
	esac
}
complete -F _anefix anefix
`,
	"zsh": `#compdef anefix
# zsh completion for anefix (anefix completion zsh)
_anefix() {
	local -a out
	# The words as anefix reads them: unquoted; zsh has already taken the
	# quote that opens the word being completed off PREFIX.
	out=("${(@f)$(anefix __complete zsh "${(@Q)words[2,CURRENT-1]}" "${(Q)PREFIX}" 2>/dev/null)}")
	case $out[1] in
	files) _files ;;
	files\ *) compset -P "${(b)out[1]#files }" && _files ;;
	nospace) compadd -S '' -- "${(@)out[2,-1]}" ;;
	*) compadd -- "${(@)out[2,-1]}" ;;
	esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_anefix "$@"
else
	compdef _anefix anefix
fi
`,
	"fish": `# fish completion for anefix (anefix completion fish)
function __anefix_complete
	# commandline -opc unquotes the words before the cursor, not the one
	# being completed.
	set -l cur (commandline -ct | string unescape)
	set -l words (commandline -opc)[2..-1] $cur
	set -l out (anefix __complete fish $words 2>/dev/null)
	switch "$out[1]"
	case files
		__fish_complete_path $cur
	case 'files *'
		set -l prefix (string sub -s 7 -- $out[1])
		set -l path (string sub -s (math (string length -- $prefix) + 1) -- $cur)
		printf '%s\n' $prefix(__fish_complete_path $path)
	case '*'
		printf '%s\n' $out[2..-1]
	end
end
complete -c anefix -f -a '(__anefix_complete)'
`,
}
