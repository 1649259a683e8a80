package passes

import (
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
		if len(vals) != len(s.Pass.Options) {
			t.Fatalf("%s: %d values for %d options", s.Pass.Name, len(vals), len(s.Pass.Options))
		}
		for i, o := range s.Pass.Options {
			if want, _ := ParseOption(o, o.Default); vals[i].Name != o.Name || vals[i].Value != FormatOption(want) {
				t.Errorf("%s: value %d = %+v, want %s=%s", s.Pass.Name, i, vals[i], o.Name, FormatOption(want))
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
		{"prnue=false", `arm-d: no option "prnue" (valid: replace, composites`},
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

// TestCheckOptions: the table refuses an options struct that does not
// match the declared options.
func TestCheckOptions(t *testing.T) {
	run := func(*graph.Module, *DCEOptions) (*Change, error) { return nil, nil }
	type wrongKind struct {
		Graphs    string `opt:"graphs"`
		Resources bool   `opt:"resources"`
	}
	type extra struct {
		Graphs    bool `opt:"graphs"`
		Resources bool `opt:"resources"`
		Other     bool `opt:"other"`
	}
	type missing struct {
		Graphs bool `opt:"graphs"`
	}
	for _, c := range []struct {
		name string
		fn   runner
		want string
	}{
		{"ok", bind(run), ""},
		{"wrong kind", bind(func(*graph.Module, *wrongKind) (*Change, error) { return nil, nil }), "is string, want bool"},
		{"extra field", bind(func(*graph.Module, *extra) (*Change, error) { return nil, nil }), "Other is not a declared option"},
		{"missing field", bind(func(*graph.Module, *missing) (*Change, error) { return nil, nil }), `no field tagged opt:"resources"`},
	} {
		err := checkOptions(&Pass{Name: "dce", Func: c.fn, About: dceAbout})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
