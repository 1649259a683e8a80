package ane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// TestFamiliesHazards runs check on anefix's LFM2-, Mamba2-, xLSTM- and RWKV-style
// stand-ins (testdata/families, synthetic weights) as written and after the
// default rewrite. The xLSTM cell's exp(−m) (the exp whose result feeds
// the denominator's maximum) goes to +inf in fp16 once the running max m
// falls below −11.09 (verify --numerics ane --ranges shows it); check must
// name it, in the fp32 island the rewrite retypes and in the fp16 result.
// Its fp16 norm after the block sums squares of a value derived from the
// state C: named too.
// States that are only moved (the conv windows, the KV caches, RWKV's token
// shifts) must not be named; the Mamba2 SSM state's and the RWKV time mix
// state's gated norms must.
func TestFamiliesHazards(t *testing.T) {
	for _, c := range []struct {
		name string
		// want: substrings each of some state-derived hazard's "op: detail";
		// every state-derived hazard must match one of them.
		want []string
	}{
		{"lfm2", nil},
		{"mamba2", []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from state "ssm_state"`}},
		// The block's output reads the matrix memory C with no bounding op
		// and is added to the stream: the next norm (fp16 as written) sums
		// squares of a value derived from C (a state's taint is named before
		// the stream's, hazard_unbounded.go).
		{"xlstm", []string{`coreai.exp: exp (overflows fp16 past 11.09) of a value derived from state "m"`,
			`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from state "C"`}},
		// The time mix's read of its matrix state accumulates like Mamba2's
		// SSM state and feeds the gated norm; the two token-shift states are
		// only moved (the previous token's x) and must not be named.
		{"rwkv", []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from state "wkv_state"`}},
	} {
		for _, rewritten := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: "/as written", true: "/rewritten"}[rewritten], func(t *testing.T) {
				m := parseFamily(t, c.name)
				if rewritten {
					p, err := passes.Build(passes.Spec{})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
						t.Fatal(err)
					}
				}
				rep, err := Check(m)
				if err != nil {
					t.Fatal(err)
				}
				var stateFindings []string
				stabiliser := false
				for _, f := range rep.AllHazards() {
					if f.Rule != hazardUnbounded || !strings.Contains(f.Detail, "state ") {
						continue
					}
					s := f.OpName + ": " + f.Detail
					stateFindings = append(stateFindings, s)
					if f.Op != nil && f.Op.NumResults() == 1 {
						for _, u := range f.Op.Result(0).Uses() {
							if strings.HasSuffix(u.Op.Name, "broadcasting_maximum") && strings.HasSuffix(f.Op.Name, ".exp") {
								stabiliser = true
							}
						}
					}
				}
				for _, s := range stateFindings {
					ok := false
					for _, w := range c.want {
						ok = ok || strings.Contains(s, w)
					}
					if !ok {
						t.Errorf("unexpected state hazard: %s", s)
					}
				}
				if len(c.want) > 0 && len(stateFindings) == 0 {
					t.Errorf("no state hazard named; want %q", c.want)
				}
				if c.name == "xlstm" && !stabiliser {
					t.Errorf("exp(−m) (the exp feeding the maximum) is not named: %q", stateFindings)
				}
				if c.name == "xlstm" {
					where := map[bool]string{false: "fp32 island the default rewrite", true: "computed in fp16"}[rewritten]
					for _, s := range stateFindings {
						if strings.HasPrefix(s, "coreai.exp") && !strings.Contains(s, where) {
							t.Errorf("finding does not say %q: %s", where, s)
						}
					}
				}
			})
		}
	}
}

// TestUnboundedOnSynthArm: on synth arm A (graph/synth), the default
// rewrite keeps the norms in fp32 and retypes the gated-delta recurrence,
// whose exps and squares read no accumulating state: check names no
// unbounded input. With strip-fp32-casts.islands=all the norms compute in
// fp16: check names the RMSNorms of the residual stream and the gated norm
// of the recurrence's read of rec_state, the overflows that keep
// exporters' norms in fp32 (issue 29). With residual-scale at k=auto the
// stream is divided by 2^6, which the rule's guess (passes/anefacts/
// stream.go) needs, and the residual-stream norms are no longer named; at
// k=5 they still are; the gated norm of rec_state stays named either way
// (residual-scale does not touch the state).
func TestUnboundedOnSynthArm(t *testing.T) {
	for _, c := range []struct {
		set, enable        []string
		wantResid, wantRec bool
	}{
		{nil, nil, false, false},
		{[]string{"strip-fp32-casts.islands=all"}, nil, true, true},
		{[]string{"strip-fp32-casts.islands=all"}, []string{"residual-scale"}, false, true},
		{[]string{"strip-fp32-casts.islands=all", "residual-scale.k=5"}, []string{"residual-scale"}, true, true},
	} {
		m := genArm(t, synth.ArmA)
		p, err := passes.Build(passes.Spec{Set: c.set, Enable: c.enable})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(m, passes.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(m)
		if err != nil {
			t.Fatal(err)
		}
		resid, rec := 0, 0
		for _, f := range rep.AllHazards() {
			if f.Rule != hazardUnbounded {
				continue
			}
			switch {
			case strings.Contains(f.Detail, "sum of squares") && strings.Contains(f.Detail, "the residual stream"):
				resid++
			case strings.Contains(f.Detail, "sum of squares") && strings.Contains(f.Detail, `state "rec_state"`):
				rec++
			default:
				t.Errorf("%v: unexpected finding %s: %s", c.set, f.OpName, f.Detail)
			}
		}
		t.Logf("%v %v: %d residual-stream norms, %d gated norms of rec_state named", c.set, c.enable, resid, rec)
		if (resid > 0) != c.wantResid || (rec > 0) != c.wantRec {
			t.Errorf("%v %v: %d residual norms, %d rec_state norms named; want some: %v, %v", c.set, c.enable, resid, rec, c.wantResid, c.wantRec)
		}
	}
}

// TestResidualScaleClearsStreamHazard: on anefix's LFM2-, Mamba2-, xLSTM-
// and RWKV-style stand-ins (testdata/families), strip-fp32-casts.islands=all
// puts the residual stream's RMSNorms in fp16 and check names their sums of
// squares; residual-scale (k=auto: 2^-6 here) scales every contribution to
// the stream and check names none of them; the state-derived hazards are
// not the pass's business and are counted apart.
func TestResidualScaleClearsStreamHazard(t *testing.T) {
	for _, name := range []string{"lfm2", "mamba2", "xlstm", "rwkv"} {
		for _, rs := range []bool{false, true} {
			m := parseFamily(t, name)
			spec := passes.Spec{Set: []string{"strip-fp32-casts.islands=all"}}
			if rs {
				spec.Enable = []string{"residual-scale"}
			}
			p, err := passes.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := p.Run(m, passes.RunOptions{VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			stream := 0
			for _, f := range rep.AllHazards() {
				if f.Rule == hazardUnbounded && strings.Contains(f.Detail, "the residual stream") {
					stream++
				}
			}
			t.Logf("%s, residual-scale %v: %d residual-stream hazards", name, rs, stream)
			if want := !rs; (stream > 0) != want {
				t.Errorf("%s, residual-scale %v: %d residual-stream sums of squares named, want some: %v (pass notes: %v)", name, rs, stream, want, ch)
			}
		}
	}
}

// parseFamily parses testdata/families/NAME.mlir.
func parseFamily(t *testing.T, name string) *graph.Module {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "families", name+".mlir")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse(path, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
