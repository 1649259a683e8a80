package main

import (
	"github.com/anefix/anefix/graph/nearest"

	"fmt"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
	"google.golang.org/protobuf/proto"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/passes"
)

func init() {
	register(&command{
		Name:    "passes",
		Usage:   "passes [NAME] [--json]",
		Summary: "list the rewrite passes, or show one pass's documentation and options",
		Help: `Without NAME, lists every pass in pipeline order with whether it runs by
default and a one-line summary. With NAME, prints the pass's full
documentation: what it does, the compiler message it answers, its options
with types and defaults (set them with rewrite --set pass.option=value), and
the ordering constraints it takes part in. NAME may also be a group of
pipeline-wide settings (states: how state inputs pair with their outputs),
which every pass reads (rewrite --set states.option=value).

Examples:
  anefix passes
  anefix passes strip-fp32-casts
  anefix passes states
  anefix passes --json | jq '.passes[].name'`,
		Setup: runWith((*passesFlags).declare, runPasses),
	})
}

// passesFlags are the passes command's flags.
type passesFlags struct{ asJSON bool }

func (f *passesFlags) declare(fs *pflag.FlagSet) {
	declareJSON(fs, &f.asJSON)
}

// runPasses is `anefix passes`.
func runPasses(env *Env, f *passesFlags, args []string) error {
	if len(args) > 1 {
		return usagef("want at most one pass name, got %d", len(args))
	}
	var list []*passes.Pass
	if len(args) == 1 {
		p, ok := passes.Lookup(args[0])
		if !ok {
			for _, g := range passes.SettingGroups() {
				if g.Name == args[0] {
					p, ok = g, true
				}
			}
		}
		if !ok {
			return usagef("unknown pass %q%s (valid: %s; settings: %s)", args[0], nearest.Hint(args[0], append(passes.Names(), settingNames()...), ""), strings.Join(passes.Names(), ", "), strings.Join(settingNames(), ", "))
		}
		list = []*passes.Pass{p}
	} else {
		for _, n := range passes.Names() {
			p, _ := passes.Lookup(n)
			list = append(list, p)
		}
	}
	if f.asJSON {
		return writePassesJSON(env.Stdout, list, len(args) == 1)
	}
	if len(args) == 1 {
		writePassDoc(env.Stdout, list[0])
		return nil
	}
	writePassList(env.Stdout, list)
	return nil
}

// writePassesJSON prints anefix.v1.PassList (or one PassInfo for NAME).
func writePassesJSON(w io.Writer, list []*passes.Pass, single bool) error {
	out := &pb.PassList{SchemaVersion: pbprint.SchemaVersion}
	for _, p := range list {
		pi := &pb.PassInfo{SchemaVersion: pbprint.SchemaVersion, Name: p.Name, DefaultOn: p.DefaultOn, Summary: p.Summary, Addresses: p.Addresses, Doc: p.Doc,
			Constraints: passConstraints(p.Name), Requires: passes.AnalysisNames(p.Requires), Preserves: passes.AnalysisNames(p.Preserves)}
		for _, o := range p.Options() {
			pi.Options = append(pi.Options, &pb.PassOptionInfo{Name: o.Name, Kind: o.Kind, Default: o.Default, Doc: o.Doc, Values: o.Values})
		}
		out.Passes = append(out.Passes, pi)
	}
	var m proto.Message = out
	if single {
		m = out.Passes[0]
	}
	b, err := protoJSON(m)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func passOnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func writePassList(w io.Writer, list []*passes.Pass) {
	width := 0
	for _, p := range list {
		width = max(width, len(p.Name))
	}
	for _, p := range list {
		fmt.Fprintf(w, "%-*s  %-3s  %s\n", width, p.Name, passOnOff(p.DefaultOn), p.Summary)
	}
	fmt.Fprintf(w, "\nPipeline-wide settings (every pass reads them; rewrite --set GROUP.NAME=VALUE):\n")
	for _, g := range passes.SettingGroups() {
		fmt.Fprintf(w, "%-*s       %s\n", width, g.Name, g.Summary)
	}
	fmt.Fprintf(w, "\nRun 'anefix passes NAME' for a pass's or a setting group's documentation and options.\n")
}

func settingNames() []string {
	var out []string
	for _, g := range passes.SettingGroups() {
		out = append(out, g.Name)
	}
	return out
}

func isSettingGroup(p *passes.Pass) bool {
	for _, g := range passes.SettingGroups() {
		if g == p {
			return true
		}
	}
	return false
}

// passConstraints lists the ordering constraints naming pass, as sentences.
func passConstraints(name string) []string {
	out := []string{}
	for _, c := range passes.Constraints {
		if c.Before == name || c.After == name {
			out = append(out, fmt.Sprintf("%s runs before %s: %s", c.Before, c.After, c.Why))
		}
	}
	if p, ok := passes.Lookup(name); ok && p.RunsLast != "" {
		out = append(out, fmt.Sprintf("%s runs last (after every other pass): %s", name, p.RunsLast))
	}
	return out
}

func writePassDoc(w io.Writer, p *passes.Pass) {
	if isSettingGroup(p) {
		fmt.Fprintf(w, "%s (pipeline-wide settings, read by every pass)\n\n%s\n", p.Name, p.Summary)
	} else {
		fmt.Fprintf(w, "%s (%s by default)\n\n%s\n", p.Name, passOnOff(p.DefaultOn), p.Summary)
	}
	if p.Addresses != "" {
		fmt.Fprintf(w, "\nAnswers the compiler message:\n  %s\n", p.Addresses)
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(p.Doc))
	fmt.Fprintf(w, "\nOptions (rewrite --set %s.NAME=VALUE):\n", p.Name)
	if len(p.Options()) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for _, o := range p.Options() {
		def := o.Default
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(w, "  %s (%s, default %s)\n      %s\n", o.Name, o.Kind, def, o.Doc)
		if len(o.Values) > 0 {
			fmt.Fprintf(w, "      values: %s\n", o.ValuesText())
		}
	}
	if len(p.Requires)+len(p.Preserves) > 0 {
		fmt.Fprintf(w, "\nAnalyses: requires %s; preserves %s\n", analysisList(p.Requires), analysisList(p.Preserves))
	}
	if cs := passConstraints(p.Name); len(cs) > 0 {
		fmt.Fprintf(w, "\nOrdering:\n")
		for _, c := range cs {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}

// analysisList spells a pass's declared analyses.
func analysisList(as []*passes.Analysis) string {
	if len(as) == 0 {
		return "none"
	}
	return strings.Join(passes.AnalysisNames(as), ", ")
}
