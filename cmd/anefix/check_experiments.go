package main

// check's "to settle" lines: each suspect's experiment as a command that
// runs as printed on the checked input.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/passes/ane"
)

// settlePrefix starts the line holding the experiment's command (tests
// find the command by it).
const settlePrefix = "    to settle (on a Mac): "

// suspectExperiment is the text under a suspect rule's message: the rewrite
// command for input in (OUT in the working directory, named after the input
// and the rule) and what it tests; for a rule without a rewrite experiment,
// its prose.
func suspectExperiment(rule *ane.Rule, in string) string {
	if len(rule.ExperimentRewrite) == 0 {
		if rule.Experiment == "" {
			return ""
		}
		return fmt.Sprintf("    to settle: %s\n", rule.Experiment)
	}
	var b strings.Builder
	switch {
	case in == "-":
		// stdin cannot be read twice; the command needs a file.
		fmt.Fprintf(&b, "%s%s\n      (save the model to a file first and put its path for MODEL)\n",
			settlePrefix, rule.RewriteCommand("MODEL", experimentOut("model", rule), quoteShellWord))
	case quotePath(in) != in:
		// A control character would break the line (or drive the
		// terminal); the path is printed Go-quoted elsewhere.
		fmt.Fprintf(&b, "%s%s\n      (the input's path holds control characters: put it for MODEL)\n",
			settlePrefix, rule.RewriteCommand("MODEL", experimentOut("model", rule), quoteShellWord))
	default:
		if strings.HasPrefix(in, "-") {
			in = "./" + in // a relative path that would read as a flag
		}
		fmt.Fprintf(&b, "%s%s\n", settlePrefix, rule.RewriteCommand(in, experimentOut(in, rule), quoteShellWord))
	}
	if rule.Experiment != "" {
		fmt.Fprintf(&b, "      %s\n", rule.Experiment)
	}
	return b.String()
}

// experimentOut names an experiment's output: the input's base name
// without its model extension, the rule's name, .aimodel (an .aimodel is
// what the compiler takes and what carries anefix's record), in the
// working directory (the input's directory may not be writable).
func experimentOut(in string, rule *ane.Rule) string {
	base := filepath.Base(strings.TrimRight(in, "/"))
	for _, ext := range []string{".aimodel", ".mlirb", ".mlir"} {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." || base == "/" {
		base = "model"
	}
	return base + "." + strings.TrimPrefix(rule.ID, "suspect.") + ".aimodel"
}

// quoteShellWord makes s one word for a POSIX shell: as it is when it
// holds only characters no shell treats specially, else in single quotes
// (a single quote inside written as '\”).
func quoteShellWord(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./=,:@%+-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
