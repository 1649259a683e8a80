package passes_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// FuzzWeightRules gives any text to palettize's or quantize-weights'
// rules option (--set pass.rules=TEXT): no panic; a refused value is a
// usage error that names the option; an accepted one prints in pipeline
// text that parses back to the same options and the same text, and the
// pass runs on testdata/passes' module (every constant a candidate) with
// a rules table of one entry per rule plus the pass's own, each weight in
// exactly one. Seeds (testdata/fuzz/FuzzWeightRules): separators alone,
// empty patterns, escapes and quotes, braces, huge numbers, spaces, NUL,
// newlines, non-ASCII, settings of the other pass.
func FuzzWeightRules(f *testing.F) {
	f.Add("*self_attn*|*linear_attn*:bits=6:group-size=16,*mlp*:bits=4,*embed*:skip", uint8(0))
	f.Add("*mlp*:dtype=si4:granularity=per-block:block-size=16", uint8(1))
	src, err := os.ReadFile("../testdata/passes/palettize.mlir")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		pass := []string{"palettize", "quantize-weights"}[which%2]
		p, err := passes.Build(passes.Spec{Passes: []string{pass}, Set: []string{pass + ".rules=" + text, pass + ".min-elements=0"}})
		if err != nil {
			if !passes.IsUsage(err) || !strings.Contains(err.Error(), "option rules") {
				t.Fatalf("%q: not a usage error naming the option: %v", text, err)
			}
			return
		}
		s := p.String()
		back, err := passes.ParsePipeline(s)
		if err != nil {
			t.Fatalf("%q: its pipeline text %s does not parse: %v", text, s, err)
		}
		if back.String() != s || !reflect.DeepEqual(back.Steps[0].Options, p.Steps[0].Options) {
			t.Fatalf("%q: pipeline text %s reads back as %s", text, s, back.String())
		}
		m, _, err := mlirtext.Parse("palettize.mlir", string(src))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
		if err != nil {
			return // a rule's settings wrong together (method=uniform with cluster-dim=2): an error, named
		}
		ch := res.Steps[0].Change
		rules := 0
		for _, v := range p.Steps[0].Pass.Values(p.Steps[0].Options) {
			if v.Name == "rules" && v.Value != "" {
				rules = strings.Count(v.Value, ",") + 1
			}
		}
		if rules > 0 {
			weights := 0
			for _, u := range ch.Rules {
				weights += len(u.Weights)
			}
			if len(ch.Rules) != rules+1 || weights != 1 {
				t.Fatalf("%q: %d rules: table %+v, want %d entries holding the module's one weight once", text, rules, ch.Rules, rules+1)
			}
		}
	})
}
