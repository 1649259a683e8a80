package passes

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// randomOrder returns a random subset of the table's passes in a random
// order that keeps every ordering constraint (a random topological sort).
func randomOrder(r *rand.Rand) []string {
	var pick []string
	for _, n := range Names() {
		if r.IntN(2) == 0 {
			pick = append(pick, n)
		}
	}
	var out []string
	for len(pick) > 0 {
		var ready []int
		for i, n := range pick {
			free := true
			for _, c := range orderRules(table, Constraints) {
				if c.After == n && slices.Contains(pick, c.Before) {
					free = false
				}
			}
			if free {
				ready = append(ready, i)
			}
		}
		i := ready[r.IntN(len(ready))]
		out = append(out, pick[i])
		pick = slices.Delete(pick, i, i+1)
	}
	return out
}

// randomSets sets each option of the passes and of the setting groups,
// with probability 1/2, to a value its declaration generates; covered
// counts each pass.option set.
func randomSets(r *rand.Rand, names []string, covered map[string]int) []string {
	var sets []string
	add := func(owner string, p *Pass) {
		_, d := p.newOptions()
		for _, x := range d.list {
			if r.IntN(2) == 0 {
				continue
			}
			k := owner + "." + x.info().Name
			sets = append(sets, k+"="+x.sample(r))
			covered[k]++
		}
	}
	for _, g := range settingGroups {
		add(g.Name, g)
	}
	for _, n := range names {
		add(n, lookup(n))
	}
	return sets
}

// TestPipelineRoundTrip: for random pipelines (subsets and orders the
// constraints allow, every option of every pass and setting set to values
// generated from its type and allowed values), print → parse → print is
// the same string and the parsed pipeline is the same pipeline.
func TestPipelineRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	covered := map[string]int{}
	built := 0
	for range 400 {
		names := randomOrder(r)
		sets := randomSets(r, names, covered)
		pl, err := Build(Spec{Passes: names, Set: sets})
		if err != nil {
			// Only values that are wrong together (arm-d's replace
			// naming a kind composites and regions no longer name).
			if !strings.Contains(err.Error(), "pass arm-d: option replace") {
				t.Fatalf("Build(%q, %q): %v", names, sets, err)
			}
			continue
		}
		built++
		s := pl.String()
		back, err := ParsePipeline(s)
		if err != nil {
			t.Fatalf("ParsePipeline(%s): %v", s, err)
		}
		if s2 := back.String(); s2 != s {
			t.Fatalf("print → parse → print differs:\n%s\n%s", s, s2)
		}
		samePipeline(t, s, pl, back)
	}
	if built < 300 {
		t.Errorf("only %d of 400 random pipelines built", built)
	}
	for _, g := range settingGroups {
		for _, o := range g.Options() {
			if covered[g.Name+"."+o.Name] == 0 {
				t.Errorf("setting %s.%s never generated", g.Name, o.Name)
			}
		}
	}
	for _, n := range Names() {
		for _, o := range lookup(n).Options() {
			if covered[n+"."+o.Name] < 5 {
				t.Errorf("option %s.%s generated %d times", n, o.Name, covered[n+"."+o.Name])
			}
		}
	}
}

func samePipeline(t *testing.T, s string, a, b *Pipeline) {
	t.Helper()
	if !slices.Equal(a.Names(), b.Names()) {
		t.Fatalf("%s: passes %q, parsed %q", s, a.Names(), b.Names())
	}
	for i := range a.Steps {
		if !reflect.DeepEqual(a.Steps[i].Options, b.Steps[i].Options) {
			t.Fatalf("%s: %s options %+v, parsed %+v", s, a.Steps[i].Pass.Name, a.Steps[i].Options, b.Steps[i].Options)
		}
	}
	if !reflect.DeepEqual(a.Context.Settings, b.Context.Settings) {
		t.Fatalf("%s: settings %+v, parsed %+v", s, a.Context.Settings, b.Context.Settings)
	}
}

// TestPipelineString: the default pipeline's string, which the docs and
// the bundle record show (a value that needs quotes gets them).
func TestPipelineString(t *testing.T) {
	pl, err := Build(Spec{Passes: []string{"fold-casts", "dce"}, Set: []string{"states.include-kv=true", "states.affixes=next, out"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `states{pairs="" auto=true kinds=` + strings.Join(defaultSettings().States.Kinds, ",") + ` affixes=next,out include-kv=true},fold-casts,dce{graphs=true resources=true}`
	if got := pl.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	pl, err = Build(Spec{Passes: []string{"externalize-constant"}, Set: []string{`externalize-constant.name=a {b} "c"`}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pl.String(), `externalize-constant{constant=tied-head min-bytes=4096 name="a {b} \"c\""}`; !strings.HasSuffix(got, want) {
		t.Errorf("got %s, want suffix %s", got, want)
	}
	// Options a pipeline string leaves out keep their defaults, and are
	// not marked as set.
	pl, err = ParsePipeline("dce{graphs=false}, fold-casts ")
	if err == nil {
		t.Fatalf("dce before fold-casts accepted: %s", pl)
	}
	pl, err = ParsePipeline(" fold-casts , dce{ graphs=false }")
	if err != nil {
		t.Fatal(err)
	}
	if o := pl.Steps[1].Options.(*DCEOptions); o.Graphs || !o.Resources || !slices.Equal(pl.Steps[1].Set, []string{"graphs"}) {
		t.Errorf("dce options %+v, set %q", o, pl.Steps[1].Set)
	}
}

// TestParsePipelineErrors: what the parser refuses, each as a usage error
// naming the place.
func TestParsePipelineErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "--pipeline: at the end: want a pass or setting group name"},
		{"dce,", "--pipeline: at the end: want a pass or setting group name"},
		{"dce;fold-casts", `--pipeline: at byte 3 (";fold-casts"): want , between passes`},
		{"dce{graphs}", `at byte 10 ("}"): want option=value or } in dce{…}`},
		{"dce{graphs=true", "at the end: want option=value or } in dce{…}"},
		{`dce{graphs="true}`, "unterminated or malformed quoted value"},
		{"dce{graphs=a{b}", `quote a value holding '{'`},
		{"nope", `--pipeline: unknown pass "nope" (valid: arm-d,`},
		{"dce,fold-casts", `pass "fold-casts" must run before "dce"`},
		{"dce,dce", `pass "dce" appears twice in the pipeline`},
		{"states,states", `setting group "states" appears twice`},
		{"dce{graph=true}", `--pipeline dce{graph=true}: pass "dce" has no option "graph" (did you mean graphs?) (valid: graphs, resources)`},
		{"dce{graphs=maybe}", `--pipeline dce{graphs=maybe}: option graphs wants true or false, got "maybe"`},
		{"states{pairs=a}", `--pipeline states{pairs=a}: option pairs: "a" is not input=output`},
		{"promote-states{form=x}", `option form: "x" is not auto, attribute or handle`},
		{"promote-states{names=a}", "promote-states.names is a pipeline-wide setting now"},
		{"arm-d{replace=mlp}", `pass arm-d: option replace: "mlp" is not recurrence, rope or sdpa`},
	} {
		_, err := ParsePipeline(c.in)
		if !IsUsage(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want a usage error with %q", c.in, err, c.want)
		}
	}
	if _, err := Build(Spec{Pipeline: "dce", Set: []string{"dce.graphs=false"}}); !IsUsage(err) || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("--pipeline with --set: err = %v", err)
	}
}

// FuzzParsePipeline: no input panics, and what parses prints to a string
// that parses to the same string.
func FuzzParsePipeline(f *testing.F) {
	pl, err := Build(Spec{Passes: Names()})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pl.String())
	f.Add(`states{pairs="a=b"},externalize-constant{name="x\ty"},dce`)
	f.Add("arm-d{groups=1,2 regions=recurrence=a.py:3|id:x_*},dce")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePipeline(s)
		if err != nil {
			if !IsUsage(err) {
				t.Fatalf("%q: not a usage error: %v", s, err)
			}
			return
		}
		s1 := p.String()
		p2, err := ParsePipeline(s1)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, s1, err)
		}
		if s2 := p2.String(); s2 != s1 {
			t.Fatalf("%q: %q then %q", s, s1, s2)
		}
	})
}
