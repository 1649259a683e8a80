package passes

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestDefaultsMatchPipeline: a pass run directly (Defaults) gets the same
// options as the default pipeline gives it, and its options print back to
// the declared defaults.
func TestDefaultsMatchPipeline(t *testing.T) {
	pl, err := Build(Spec{Passes: Names()})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pl.Steps {
		d, err := s.Pass.Defaults()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d, s.Options) {
			t.Errorf("%s: Defaults %+v, pipeline %+v", s.Pass.Name, d, s.Options)
		}
		vals := s.Pass.Values(s.Options)
		if len(vals) != len(s.Pass.Options()) {
			t.Fatalf("%s: %d values for %d options", s.Pass.Name, len(vals), len(s.Pass.Options()))
		}
		for i, o := range s.Pass.Options() {
			if vals[i].Name != o.Name || vals[i].Value != o.Default {
				t.Errorf("%s: value %d = %+v, want %s=%s", s.Pass.Name, i, vals[i], o.Name, o.Default)
			}
		}
	}
	if got := Defaults[DCEOptions](); !got.Graphs || !got.Resources {
		t.Errorf("dce defaults = %+v", got)
	}
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions[ArmDOptions]("prune=false", "replace=sdpa, rope")
	if err != nil || o.Prune || !reflect.DeepEqual(o.Replace, []string{"sdpa", "rope"}) || !o.DropUnusedComposites {
		t.Fatalf("got %+v, %v", o, err)
	}
	for _, c := range []struct{ set, want string }{
		{"prnue=false", `arm-d: no option "prnue" (did you mean prune?) (valid: replace, composites`},
		{"prune", "want option=value"},
		{"prune=maybe", "option prune wants true or false"},
		{"groups=0", "option groups:"},
	} {
		if _, err := ParseOptions[ArmDOptions](c.set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.set, err, c.want)
		}
	}
	type stray struct{ X bool }
	if _, err := ParseOptions[stray](); err == nil || !strings.Contains(err.Error(), "no pass in the table") {
		t.Errorf("stray type: err = %v", err)
	}
	// A pass run with another pass's options struct is refused, not misread.
	if _, err := lookup("dce").Run(graph.NewModule(), Defaults[ArmDOptions]()); err == nil || !strings.Contains(err.Error(), "want *passes.DCEOptions") {
		t.Errorf("wrong options type: err = %v", err)
	}
}

// Options structs whose declarations checkOptions must refuse.
type (
	twiceOpts   struct{ A, B bool }
	unnamedOpts struct{ A bool }
	badDefault  struct{ N int }
	lossyOpts   struct{ L []string }
)

func (o *twiceOpts) declare(d *Decls) {
	Declare(d, &o.A, Option[bool]{Name: "a"})
	Declare(d, &o.B, Option[bool]{Name: "a"})
}
func (o *unnamedOpts) declare(d *Decls) { Declare(d, &o.A, Option[bool]{}) }
func (o *badDefault) declare(d *Decls) {
	Declare(d, &o.N, Option[int]{Name: "n", Check: func(n int) error {
		if n < 1 {
			return fmt.Errorf("want >= 1")
		}
		return nil
	}})
}

// A list default whose element holds a comma would read back as two.
func (o *lossyOpts) declare(d *Decls) {
	Declare(d, &o.L, Option[[]string]{Name: "l", Default: []string{"a,b"}})
}

// TestCheckOptions: the table refuses declarations that repeat a name,
// lack one, or whose default is refused or does not print back.
func TestCheckOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   runner
		want string
	}{
		{"ok", bind(func(*graph.Module, *DCEOptions) (*Change, error) { return nil, nil }), ""},
		{"twice", bind(func(*graph.Module, *twiceOpts) (*Change, error) { return nil, nil }), `option "a" declared twice`},
		{"unnamed", bind(func(*graph.Module, *unnamedOpts) (*Change, error) { return nil, nil }), `without a name`},
		{"bad default", bind(func(*graph.Module, *badDefault) (*Change, error) { return nil, nil }), "default of option n: option n: want >= 1"},
		{"lossy default", bind(func(*graph.Module, *lossyOpts) (*Change, error) { return nil, nil }), `prints as "a,b"`},
	} {
		err := checkOptions(&Pass{Name: "x", Func: c.fn})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRunChecksHandBuiltOptions: a pass run directly with values Build
// would refuse fails before its body runs, with Build's message (the body
// never checks its options).
func TestRunChecksHandBuiltOptions(t *testing.T) {
	for _, c := range []struct {
		pass string
		opts Options
		want string
	}{
		{"promote-states", &promoteStatesOptions{Form: "hande"}, `option form: "hande" is not auto, attribute or handle`},
		{"states-as-outputs", &statesAsOutputsOptions{}, "option suffix: want a non-empty suffix"},
		{"externalize-constant", &externalizeConstantOptions{Constant: " ", MinBytes: 1}, "option constant: want tied-head"},
		{"finite-masks", &finiteMasksOptions{Value: maskValue{"x", 0}}, `option value: want a number such as -40000, got "x"`},
		{"scale-state", &scaleStateOptions{Exponents: []stateExponent{{"s", 99}}}, "option exponents: s: exponent 99 is outside"},
		{"fold-io-unsqueeze", &foldIOUnsqueezeOptions{Ops: []string{"coreai.add"}, OtherUsers: "skip"}, `option ops: "coreai.add" is not`},
		{"palettize", func() Options { o := Defaults[palettizeOptions](); o.Bits = 5; return o }(), `option bits: "5" is not 1, 2, 3, 4, 6 or 8`},
		{"arm-d", func() Options { o := Defaults[ArmDOptions](); o.Replace = []string{"mlp"}; return o }(), `option replace: "mlp" is not recurrence, rope or sdpa`},
	} {
		_, err := lookup(c.pass).Run(graph.NewModule(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.pass, err, c.want)
		}
	}
}
