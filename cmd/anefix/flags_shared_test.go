package main

import (
	"sort"
	"testing"

	"github.com/spf13/pflag"
)

// TestSharedFlagsDeclaredOnce walks every command's flag set and fails
// when one flag name has two help texts, two defaults, two types or two
// shorthands across commands: a flag several commands take is declared
// once (flags.go), so `--ignore-hash` cannot mean four things again.
func TestSharedFlagsDeclaredOnce(t *testing.T) {
	type decl struct {
		cmd, usage, def, typ, short string
	}
	seen := map[string][]decl{}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fs := newFlagSet(c, &Env{})
		c.Setup(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			seen[f.Name] = append(seen[f.Name], decl{n, f.Usage, f.DefValue, f.Value.Type(), f.Shorthand})
		})
	}
	shared := 0
	for name, ds := range seen {
		if len(ds) < 2 {
			continue
		}
		shared++
		for _, d := range ds[1:] {
			if d.usage != ds[0].usage || d.def != ds[0].def || d.typ != ds[0].typ || d.short != ds[0].short {
				t.Errorf("--%s: %s declares %q (default %q, %s, -%s), %s declares %q (default %q, %s, -%s)",
					name, ds[0].cmd, ds[0].usage, ds[0].def, ds[0].typ, ds[0].short, d.cmd, d.usage, d.def, d.typ, d.short)
			}
		}
	}
	// The walk must see the flags the commands share, or it checks nothing.
	if shared < 5 {
		t.Errorf("only %d flags shared by two or more commands; the walk did not see the commands' flags", shared)
	}
}
