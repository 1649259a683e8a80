package passes

import (
	"errors"
	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

func TestCheckTable(t *testing.T) {
	if err := checkTable(table, Constraints); err != nil {
		t.Fatal(err)
	}
	if err := CheckOrder(Names()); err != nil {
		t.Fatal(err)
	}
	a, b := lookup("arm-d"), lookup("dce")
	st, fc := lookup("strip-fp32-casts"), lookup("fold-casts")
	noRun := &Pass{Name: "x"}
	unknown := *fc
	unknown.Preserves = []*Analysis{{Name: "made-up"}}
	for _, c := range []struct {
		name        string
		table       []*Pass
		constraints []Constraint
		want        string
	}{
		{"order broken", []*Pass{fc, st}, []Constraint{{"strip-fp32-casts", "fold-casts", "why"}}, `"strip-fp32-casts" must come before "fold-casts"`},
		{"runs last", []*Pass{b, a}, nil, `pass "dce" runs last (it removes what the other passes leave dead`},
		{"unknown analysis", []*Pass{&unknown}, nil, `pass "fold-casts" names an analysis the pipeline does not compute`},
		{"unknown pass", []*Pass{a}, []Constraint{{"arm-d", "dce", "why"}}, "not in the table"},
		{"repeated", []*Pass{a, a}, nil, "repeated"},
		{"no function", []*Pass{noRun}, nil, "without a function"},
	} {
		if err := checkTable(c.table, c.constraints); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func defaultOn() []string {
	var out []string
	for _, n := range Names() {
		if p, _ := Lookup(n); p.DefaultOn {
			out = append(out, n)
		}
	}
	return out
}

func without(xs []string, drop string) []string {
	var out []string
	for _, x := range xs {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}

func TestBuild(t *testing.T) {
	cases := []struct {
		name      string
		spec      Spec
		want      []string // pass names; nil when an error is expected
		wantErr   string   // substring of a *UsageError
		wantValid string   // one name the error must list as valid
	}{
		{name: "default", spec: Spec{}, want: defaultOn()},
		{name: "disable", spec: Spec{Disable: []string{"dce"}}, want: without(defaultOn(), "dce")},
		{name: "exact list", spec: Spec{Passes: []string{"strip-fp32-casts"}}, want: []string{"strip-fp32-casts"}},
		{name: "exact list order kept", spec: Spec{Passes: []string{"fold-casts", "dce"}}, want: []string{"fold-casts", "dce"}},
		{name: "unknown pass", spec: Spec{Passes: []string{"nope"}}, wantErr: `unknown pass "nope"`, wantValid: "strip-fp32-casts"},
		{name: "unknown enable", spec: Spec{Enable: []string{"nope"}}, wantErr: `--enable: unknown pass "nope"`, wantValid: "dce"},
		{name: "unknown disable", spec: Spec{Disable: []string{"nope"}}, wantErr: `--disable: unknown pass "nope"`, wantValid: "dce"},
		{name: "enable and disable", spec: Spec{Enable: []string{"dce"}, Disable: []string{"dce"}}, wantErr: "both enabled and disabled"},
		{name: "passes with toggles", spec: Spec{Passes: []string{"dce"}, Disable: []string{"dce"}}, wantErr: "cannot be combined"},
		{name: "order broken", spec: Spec{Passes: []string{"fold-casts", "strip-fp32-casts"}}, wantErr: `"strip-fp32-casts" must run before "fold-casts": fold-casts cleans up`},
		// dce declares it runs last; no constraint names it.
		{name: "after dce", spec: Spec{Passes: []string{"dce", "fold-casts"}}, wantErr: `pass "fold-casts" must run before "dce": dce runs last: it removes what the other passes leave dead`},
		{name: "after dce, no constraint before", spec: Spec{Passes: []string{"dce", "promote-states"}}, wantErr: `pass "promote-states" must run before "dce": dce runs last`},
		{name: "repeated", spec: Spec{Passes: []string{"dce", "dce"}}, wantErr: "appears twice"},
		{name: "set unknown pass", spec: Spec{Set: []string{"nope.x=1"}}, wantErr: `unknown pass "nope"`, wantValid: "fold-casts"},
		{name: "set unknown option", spec: Spec{Set: []string{"strip-fp32-casts.clampp=true"}}, wantErr: `has no option "clampp"`, wantValid: "clamp"},
		{name: "set bad bool", spec: Spec{Set: []string{"strip-fp32-casts.clamp=yes please"}}, wantErr: "wants true or false"},
		{name: "set pass outside --passes", spec: Spec{Passes: []string{"dce"}, Set: []string{"strip-fp32-casts.clamp=true"}}, wantErr: "not in the pipeline (add it to --passes)"},
		{name: "set pass outside the default", spec: Spec{Set: []string{"arm-d.prune=false"}}, wantErr: "not in the pipeline (add it with --enable arm-d)"},
		{name: "set malformed pair", spec: Spec{Set: []string{"states.pairs=conv_state"}}, wantErr: `"conv_state" is not input=output`},
		{name: "set pair without output", spec: Spec{Set: []string{"states.pairs=a=b,c="}}, wantErr: `"c=" is not input=output`},
		{name: "moved option says where", spec: Spec{Set: []string{"promote-states.kinds=conv"}}, wantErr: `--set states.kinds=conv`},
		{name: "unknown setting", spec: Spec{Set: []string{"states.nope=1"}}, wantErr: `setting group "states" has no option "nope"`},
		{name: "set unknown rank op", spec: Spec{Set: []string{"fold-io-unsqueeze.ops=coreai.nope"}}, wantErr: `"coreai.nope" is not coreai.expand_dims, coreai.shrink_dims or coreai.reshape`},
		{name: "set bad other-users", spec: Spec{Set: []string{"fold-io-unsqueeze.other-users=bogus"}}, wantErr: `"bogus" is not reshape or skip`},
		{name: "set bad form", spec: Spec{Set: []string{"promote-states.form=tensor"}}, wantErr: `"tensor" is not auto, attribute or handle`},
		{name: "set unknown arm-d kind", spec: Spec{Passes: []string{"arm-d"}, Set: []string{"arm-d.replace=recurrence,mlp"}}, wantErr: `pass arm-d: option replace: "mlp" is not recurrence, rope or sdpa`},
		{name: "arm-d kind defined by composites", spec: Spec{Passes: []string{"arm-d"}, Set: []string{"arm-d.composites=mlp=mlp_block", "arm-d.replace=mlp"}}, want: []string{"arm-d"}},
		{name: "set bad composites", spec: Spec{Passes: []string{"arm-d"}, Set: []string{"arm-d.composites=garbage"}}, wantErr: `"garbage" is not kind=a|b`},
		{name: "set bad regions", spec: Spec{Passes: []string{"arm-d"}, Set: []string{"arm-d.regions=rope="}}, wantErr: `"rope=" is not kind=a|b`},
		{name: "set malformed", spec: Spec{Set: []string{"clamp"}}, wantErr: "want pass.option=value"},
		{name: "set pass not in pipeline", spec: Spec{Disable: []string{"dce"}, Set: []string{"dce.graphs=false"}}, wantErr: "not in the pipeline"},
		{name: "set option without options", spec: Spec{Set: []string{"fold-casts.x=1"}}, wantErr: `has no option "x"`, wantValid: "(none)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Build(tc.spec)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want usage error with %q", err, tc.wantErr)
				}
				if tc.wantValid != "" && !slices.Contains(ue.Valid, tc.wantValid) {
					t.Errorf("valid list %v lacks %q", ue.Valid, tc.wantValid)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Names(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pipeline = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBuildOptions(t *testing.T) {
	p, err := Build(Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.clamp=true", "strip-fp32-casts.islands=a*, b"}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Steps[0]
	o := s.Options.(*stripFP32CastsOptions)
	if !o.Clamp || !o.IO || !reflect.DeepEqual(o.Islands, []string{"a*", "b"}) {
		t.Errorf("options = %+v", o)
	}
	if !reflect.DeepEqual(s.Set, []string{"clamp", "islands"}) {
		t.Errorf("set = %v", s.Set)
	}
}

// TestRunStopsOnInvalidIR uses a pass outside the registry that breaks the
// IR, to check verify-each names it and stops before the next pass.
func TestRunStopsOnInvalidIR(t *testing.T) {
	m := ptParse(t, `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.exp %x : tensor<4xf16> -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`)
	ran := false
	breaker := &Pass{Name: "breaker", Func: bind(func(m *graph.Module, _ *noOptions) (*Change, error) {
		m.Graphs()[0].SetOutputType(0, graph.Tensor(graph.F32, 4))
		return &Change{}, nil
	})}
	after := &Pass{Name: "after", Func: bind(func(*graph.Module, *noOptions) (*Change, error) { ran = true; return nil, nil })}
	p := &Pipeline{Steps: []Step{{Pass: breaker, Options: &noOptions{}}, {Pass: after, Options: &noOptions{}}}}
	var printed []string
	res, err := p.Run(m, RunOptions{VerifyEach: true, AfterPass: func(n string, _ *graph.Module) error { printed = append(printed, n); return nil }})
	var pe *PassError
	if !errors.As(err, &pe) || pe.Pass != "breaker" || !pe.Verify || !strings.Contains(err.Error(), "pass breaker left invalid IR") {
		t.Fatalf("err = %v", err)
	}
	if ran || len(res.Steps) != 1 || len(printed) != 0 {
		t.Errorf("pipeline went on: ran=%v steps=%d printed=%v", ran, len(res.Steps), printed)
	}
	// Without verification the breakage goes unnoticed and both passes run.
	ran = false
	if _, err := p.Run(m, RunOptions{}); err != nil || !ran {
		t.Errorf("without verify-each: err=%v ran=%v", err, ran)
	}
}

// VerifyAfter checks once at the end: both passes run, and the error is
// not a PassError (no pass is named) but says how to find the pass.
func TestRunVerifyAfter(t *testing.T) {
	m := ptParse(t, `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
}`)
	breaker := &Pass{Name: "breaker", Func: bind(func(m *graph.Module, _ *noOptions) (*Change, error) {
		m.Graphs()[0].SetOutputType(0, graph.Tensor(graph.F32, 4))
		return &Change{}, nil
	})}
	for _, c := range []struct {
		steps []Step
		want  string
	}{
		{nil, ""},
		{[]Step{{Pass: breaker, Options: &noOptions{}}}, "rerun with --verify-each to find the pass"},
	} {
		res, err := (&Pipeline{Steps: c.steps}).Run(m, RunOptions{VerifyAfter: true})
		var pe *PassError
		if (c.want == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), c.want) || errors.As(err, &pe)) {
			t.Errorf("steps %d: err = %v, want %q", len(c.steps), err, c.want)
		}
		if res == nil || len(res.Steps) != len(c.steps) {
			t.Errorf("steps %d: result %+v", len(c.steps), res)
		}
	}
}

func TestRunPanicBecomesError(t *testing.T) {
	m := graph.NewModule()
	p := &Pipeline{Steps: []Step{{Pass: &Pass{Name: "boom", Func: bind(func(*graph.Module, *noOptions) (*Change, error) { panic("kaboom") })}, Options: &noOptions{}}}}
	_, err := p.Run(m, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "pass boom: internal error") || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunTimingsAndCensus(t *testing.T) {
	m := ptParse(t, `module {
  coreai.graph @main(%x: tensor<4xf16>, %i: tensor<2xsi32>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16>
    coreai.output %1 : tensor<4xf16>
  }
}`)
	p, err := Build(Spec{Passes: []string{"strip-fp32-casts", "fold-casts", "dce"}})
	if err != nil {
		t.Fatal(err)
	}
	tick := time.Unix(0, 0)
	clock := func() time.Time { tick = tick.Add(time.Millisecond); return tick }
	var after []string
	res, err := p.Run(m, RunOptions{VerifyEach: true, Clock: clock, AfterPass: func(n string, _ *graph.Module) error { after = append(after, n); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Census{"f16": 2, "f32": 1, "si32": 1}); !reflect.DeepEqual(res.CensusBefore, want) {
		t.Errorf("census before = %v, want %v", res.CensusBefore, want)
	}
	if want := (Census{"f16": 1, "si32": 1}); !reflect.DeepEqual(res.CensusAfter, want) {
		t.Errorf("census after = %v, want %v", res.CensusAfter, want)
	}
	if !reflect.DeepEqual(after, p.Names()) {
		t.Errorf("after-pass hook saw %v", after)
	}
	for _, s := range res.Steps {
		if s.Duration != time.Millisecond || s.Verify != time.Millisecond {
			t.Errorf("%s: duration %v verify %v", s.Pass, s.Duration, s.Verify)
		}
	}
	if res.Duration <= 0 {
		t.Errorf("total duration %v", res.Duration)
	}
}

// FuzzBuild feeds arbitrary --passes/--set text to Build: it must never
// panic, and every refusal must be a usage error (exit 2 in the CLI).
func FuzzBuild(f *testing.F) {
	f.Add("", "strip-fp32-casts.clamp=true")
	f.Add("strip-fp32-casts,dce", "strip-fp32-casts.islands=_to_copy_*,*.py:199")
	f.Add("dce,fold-casts", "dce.graphs=maybe")
	f.Add("nope", "=")
	f.Add(",,", "a.b.c=d=e")
	f.Fuzz(func(t *testing.T, list, set string) {
		var names []string
		if list != "" {
			names = strings.Split(list, ",")
		}
		_, err := Build(Spec{Passes: names, Set: []string{set}})
		var ue *UsageError
		if err != nil && !errors.As(err, &ue) {
			t.Fatalf("Build(%q, %q): %v is not a usage error", list, set, err)
		}
	})
}

// FuzzDefaultPipeline runs the default pipeline (plus arm-d) on any module
// that parses and verifies: a pass may refuse the input with an error, but
// must never panic or leave IR that fails verification.
func FuzzDefaultPipeline(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/passes/*.mlir")
	more, _ := filepath.Glob("../testdata/mlir/*/*.mlir")
	seeds = append(seeds, more...)
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	// One module per coreai op, in three forms (graph/coreaiop/zoo).
	for _, z := range zoo.Modules() {
		f.Add(string(z.Text))
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil || graph.Verify(m) != nil {
			return
		}
		p, err := Build(Spec{Enable: []string{"arm-d"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Run(m, RunOptions{VerifyEach: true})
		var pe *PassError
		if errors.As(err, &pe) && (pe.Verify || strings.Contains(pe.Err.Error(), "internal error")) {
			t.Fatalf("%v\ninput:\n%s", err, text)
		}
	})
}

func TestVerifyInput(t *testing.T) {
	m := ptParse(t, `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
}`)
	if err := VerifyInput(m, "in.mlir", "needs", "nothing runs"); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	m.Graphs()[0].SetOutputType(0, graph.Tensor(graph.F32, 4))
	err := VerifyInput(m, "in.mlir", "needs", "nothing runs")
	if err == nil || !strings.HasPrefix(err.Error(), "in.mlir: the input does not verify, so nothing runs: ") {
		t.Fatalf("invalid input: %v", err)
	}
}

// TestEnumOptions: every option that declares Values takes each of them
// and its default, and Build refuses anything else, for a list element by
// element, naming the values (issue 20: an unknown enum value was accepted
// with a note and did nothing).
func TestEnumOptions(t *testing.T) {
	n := 0
	for _, name := range Names() {
		p, _ := Lookup(name)
		for _, o := range p.Options() {
			if len(o.Values) == 0 {
				continue
			}
			n++
			spec := func(v string) Spec {
				return Spec{Passes: []string{name}, Set: []string{name + "." + o.Name + "=" + v}}
			}
			if o.Kind == "list" {
				for _, d := range strings.Split(o.Default, ",") {
					if d != "" && !slices.Contains(o.Values, d) {
						t.Errorf("%s.%s: default element %q is not among its values", name, o.Name, d)
					}
				}
			} else if !slices.Contains(o.Values, o.Default) {
				t.Errorf("%s.%s: default %q is not among its values", name, o.Name, o.Default)
			}
			for _, v := range o.Values {
				if _, err := Build(spec(v)); err != nil {
					t.Errorf("%s.%s=%s refused: %v", name, o.Name, v, err)
				}
			}
			bad := []string{o.Values[0] + "x"}
			if up := strings.ToUpper(o.Values[0]); up != o.Values[0] { // not a number's
				bad = append(bad, up)
			}
			if o.Kind == "list" {
				bad = append(bad, o.Values[0]+",nope")
			} else {
				bad = append(bad, "", " ")
			}
			for _, v := range bad {
				_, err := Build(spec(v))
				if !IsUsage(err) || !strings.Contains(err.Error(), o.Values[len(o.Values)-1]) {
					t.Errorf("%s.%s=%q: err = %v, want a usage error naming the values", name, o.Name, v, err)
				}
			}
		}
	}
	if n < 3 {
		t.Errorf("only %d enum options declared", n)
	}
}
