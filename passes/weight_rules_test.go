package passes_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
)

// TestRulesParseErrors: a rules value that cannot be right is a usage
// error before any pass runs, naming the rule (its number and text) and
// what is wrong; a good one prints back in one canonical form (pipeline
// text, --print-pipeline) with no quoting.
func TestRulesParseErrors(t *testing.T) {
	for _, c := range []struct {
		set, want string
	}{
		{"palettize.rules=*mlp*:bitz=4", `rule 1 (*mlp*:bitz=4): unknown setting "bitz" (a rule sets bits, granularity, group-size, cluster-dim, lut-dtype, per-channel-scale, method, rounding-precision)`},
		{"palettize.rules=*attn*:bits=6,*mlp*:bits=5", `rule 2 (*mlp*:bits=5): option bits: "5" is not 1, 2, 3, 4, 6 or 8`},
		{"palettize.rules=*mlp*", "rule 1 (*mlp*): want PATTERN:SETTING=VALUE"},
		{"palettize.rules=*mlp*:", "rule 1 (*mlp*:): want SETTING=VALUE or skip after the pattern"},
		{"palettize.rules=*a*||*b*:bits=6", "rule 1 (*a*||*b*:bits=6): an empty pattern"},
		{"palettize.rules=[a:bits=6", `rule 1 ([a:bits=6): bad pattern "[a"`},
		{"palettize.rules=*mlp*:skip:bits=4", "rule 1 (*mlp*:skip:bits=4): skip takes no settings"},
		{"palettize.rules=*mlp*:bits=4:bits=6", "rule 1 (*mlp*:bits=4:bits=6): setting bits given twice"},
		{"palettize.rules=*mlp*:weights=x", `unknown setting "weights"`},
		{"palettize.rules=*mlp*:granularity=per-block", `option granularity: "per-block" is not per-tensor, per-channel or per-grouped-channel`},
		{"quantize-weights.rules=*mlp*:bits=4", `rule 1 (*mlp*:bits=4): unknown setting "bits" (a rule sets dtype, qscheme, granularity, block-size)`},
		{"quantize-weights.rules=*mlp*:dtype=si2", `option dtype: "si2" is not si8, ui8, si4 or ui4 (did you mean si8?)`},
	} {
		pass, _, _ := strings.Cut(c.set, ".")
		_, err := passes.Build(passes.Spec{Passes: []string{pass}, Set: []string{c.set}})
		if err == nil || !passes.IsUsage(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a usage error holding %q", c.set, err, c.want)
		}
	}
	p, err := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: []string{"palettize.rules= *self_attn* | *linear_attn* :bits=06: group-size=16 , , *embed*: skip"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "rules=*self_attn*|*linear_attn*:bits=6:group-size=16,*embed*:skip}"
	if s := p.String(); !strings.HasSuffix(s, want) {
		t.Errorf("pipeline text %s, want it to end %s", s, want)
	}
}

// palette is what a lut_to_dense in a written module says of its weight.
type palette struct {
	bits    int   // the indices' element width
	entries int64 // palette entries (the LUT's second-to-last dim)
	group   int64 // output channels per palette (axis 0 here)
}

// readBack prints m and parses it again, then reads each palettized
// weight's palette from the ops, by its name (the indices blob is the
// weight's key + ".lut_indices"), and each weight still a constant of its
// own blob: what a reader of the written module sees, not the pass's
// records.
func readBack(t *testing.T, m *graph.Module) (map[string]palette, map[string]string, *graph.Module) {
	t.Helper()
	text, err := mlirtext.Format(m, mlirtext.FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := mlirtext.Parse("out.mlir", string(text))
	if err != nil {
		t.Fatal(err)
	}
	pals, dense := map[string]palette{}, map[string]string{}
	m2.Walk(func(op *graph.Operation) bool {
		switch op.Name {
		case "coreai.lut_to_dense":
			idx := op.Operand(0)
			key := idx.DefiningOp().Inherent("value").(*graph.DenseResourceAttr).Key
			it := idx.Type().(*graph.TensorType)
			lt := op.Operand(1).Type().(*graph.TensorType)
			pals[strings.TrimSuffix(key, ".lut_indices")] = palette{
				bits:    it.Elem.(*graph.IntegerType).Width,
				entries: lt.Shape[lt.Rank()-2],
				group:   it.Shape[0] / lt.Shape[0],
			}
		case "coreai.constant":
			if a, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok {
				dense[a.Key] = op.Result(0).Type().String()
			}
		}
		return true
	})
	return pals, dense, m2
}

// weightClass sorts tiny arm A's weights (graph/synth) as the tests'
// expectations name them.
func weightClass(name string) string {
	switch {
	case strings.Contains(name, "in_proj"):
		return "in_proj" // 68 output channels: a multiple of 4, not of 16 or 32
	case strings.Contains(name, "linear_attn.out_proj"):
		return "lin_out" // 32
	case strings.Contains(name, "k_proj"), strings.Contains(name, "v_proj"):
		return "kv" // 16
	case strings.Contains(name, "self_attn"):
		return "q_o" // 64 and 32
	case strings.Contains(name, "up_proj"):
		return "up_proj" // 64
	case strings.Contains(name, "mlp"):
		return "mlp" // 64 and 32
	case strings.Contains(name, "embed"):
		return "embed" // 256
	}
	return name
}

// TestPalettizeRulesOnArmA: tiny synth arm A (stand-in random weights)
// palettized with rules, every weight over min-elements=0. Each case says,
// per kind of weight, the palette the rules ask for, worked out from the
// rules by hand ("b/g": b bits, g channels per palette; "left": not
// palettized, with a note, since 68 channels are no multiple of the
// group; "skip": a skip rule). The palettes are read back from the
// written module; check's lut4-small-group rule must flag exactly the
// 4-bit palettes of fewer than 32 channels, whichever rule made them; and
// the rules table must list each weight under the first rule that matches
// it, the later matches as shadowed, and count the weights each left.
func TestPalettizeRulesOnArmA(t *testing.T) {
	for _, c := range []struct {
		name     string
		set      []string
		want     map[string]string // weight class → palette
		shadowed map[int]int       // rule → weights it matched but an earlier rule took
	}{
		{"first match wins, default for the rest",
			[]string{"bits=8", "rules=*mlp*:bits=4,*up_proj*:bits=6,*attn*:bits=6"},
			map[string]string{"mlp": "4/32", "up_proj": "4/32", "q_o": "6/32", "kv": "left", "lin_out": "6/32", "in_proj": "left", "embed": "8/32"},
			map[int]int{2: 4}},
		{"order decides",
			[]string{"bits=8", "rules=*up_proj*:bits=6,*mlp*:bits=4,*attn*:bits=6"},
			map[string]string{"mlp": "4/32", "up_proj": "6/32", "q_o": "6/32", "kv": "left", "lin_out": "6/32", "in_proj": "left", "embed": "8/32"},
			map[int]int{2: 4}},
		{"skip, and one rule for every other weight",
			[]string{"rules=*embed*:skip,*:bits=6:group-size=4"},
			map[string]string{"mlp": "6/4", "up_proj": "6/4", "q_o": "6/4", "kv": "6/4", "lin_out": "6/4", "in_proj": "6/4", "embed": "skip"},
			map[int]int{2: 1}},
		{"group size per rule: 4-bit groups of 16 only in the MLP",
			[]string{"rules=*linear_attn*:bits=6:group-size=4,*mlp*:group-size=16"},
			map[string]string{"mlp": "4/16", "up_proj": "4/16", "q_o": "4/32", "kv": "left", "lin_out": "6/4", "in_proj": "6/4", "embed": "4/32"},
			nil},
		{"attention at 6 bits, MLP at 4 (issue 32's example)",
			[]string{"group-size=4", "rules=*attn*:bits=6,*mlp*:bits=4:group-size=32"},
			map[string]string{"mlp": "4/32", "up_proj": "4/32", "q_o": "6/4", "kv": "6/4", "lin_out": "6/4", "in_proj": "6/4", "embed": "4/4"},
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
			if err != nil {
				t.Fatal(err)
			}
			before := map[string]string{}
			m.Walk(func(op *graph.Operation) bool {
				if a, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok && op.Name == "coreai.constant" {
					before[a.Key] = op.Result(0).Type().String()
				}
				return true
			})
			set := []string{"palettize.min-elements=0"}
			for _, s := range c.set {
				set = append(set, "palettize."+s)
			}
			p, err := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: set})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Steps[0].Change
			pals, dense, m2 := readBack(t, m)
			var weights []string
			for _, u := range ch.Rules {
				weights = append(weights, u.Weights...)
			}
			if len(weights) != 23 {
				t.Fatalf("rules table lists %d weights, want tiny arm A's 23: %v", len(weights), weights)
			}
			var wantSmall []string
			for _, w := range weights {
				want := c.want[weightClass(w)]
				got := "?"
				if pl, ok := pals[w]; ok {
					got = fmt.Sprintf("%d/%d", pl.bits, pl.group)
					if pl.entries != 1<<pl.bits {
						t.Errorf("%s: %d palette entries for %d-bit indices", w, pl.entries, pl.bits)
					}
					if pl.bits == 4 && pl.group < 32 {
						wantSmall = append(wantSmall, w)
					}
				} else if dense[w] == before[w] {
					got = "left"
					if want == "skip" {
						got = "skip"
					}
				}
				if got != want {
					t.Errorf("%s (%s): %s, want %s", w, weightClass(w), got, want)
				}
			}
			rep, err := ane.Check(m2)
			if err != nil {
				t.Fatal(err)
			}
			var small []string
			for _, f := range rep.AllFindings() {
				if f.Rule.ID == "lut4-small-group" {
					key := f.Op.Operand(0).DefiningOp().Inherent("value").(*graph.DenseResourceAttr).Key
					small = append(small, strings.TrimSuffix(key, ".lut_indices"))
				}
			}
			slices.Sort(small)
			slices.Sort(wantSmall)
			if !slices.Equal(small, wantSmall) {
				t.Errorf("check's lut4-small-group flags %v, want %v", small, wantSmall)
			}
			for _, u := range ch.Rules {
				left := 0
				for _, w := range u.Weights {
					if x := c.want[weightClass(w)]; x == "left" || x == "skip" {
						left++
					}
				}
				if u.Left != left {
					t.Errorf("rule %d %s: %d weights left as they are, want %d", u.Index, u.Rule, u.Left, left)
				}
				if u.Index > 0 && len(u.Shadowed) != c.shadowed[u.Index] {
					t.Errorf("rule %d %s: shadowed %v, want %d", u.Index, u.Rule, u.Shadowed, c.shadowed[u.Index])
				}
				for _, w := range u.Weights {
					if u.Index > 0 && !slices.ContainsFunc(strings.Split(strings.Split(u.Rule, ":")[0], "|"), func(g string) bool { return globMatch(g, w) }) {
						t.Errorf("rule %d %s lists %s, which it does not match", u.Index, u.Rule, w)
					}
				}
			}
		})
	}
}

// globMatch is the test's own reading of a rule's pattern (no directory
// separators occur in the names here): '*' any run, '?' one character.
func globMatch(g, s string) bool {
	if g == "" {
		return s == ""
	}
	switch g[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(g[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(g[1:], s[1:])
	}
	return s != "" && s[0] == g[0] && globMatch(g[1:], s[1:])
}

// TestQuantizeRulesOnArmA: quantize-weights with rules on tiny synth arm
// A: the MLP at si4 in blocks of 16 input channels, the embedding left
// alone, the rest at the pass's own si8 per channel, read back from the
// written module (the data's element type and the scale's blocks along
// the input axis, axis 1 of these conv weights).
func TestQuantizeRulesOnArmA(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(passes.Spec{Passes: []string{"quantize-weights"}, Set: []string{"quantize-weights.min-elements=0",
		"quantize-weights.rules=*embed*:skip,*mlp*:dtype=si4:granularity=per-block:block-size=16"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	_, dense, m2 := readBack(t, m)
	got, inputs := map[string]string{}, map[string]int64{}
	m2.Walk(func(op *graph.Operation) bool {
		if op.Name == "coreai.blockwise_shift_scale" {
			data := op.Operand(0)
			key := strings.TrimSuffix(data.DefiningOp().Inherent("value").(*graph.DenseResourceAttr).Key, ".quantized")
			dt, st := data.Type().(*graph.TensorType), op.Operand(1).Type().(*graph.TensorType)
			got[key] = fmt.Sprintf("%s/%d", dt.Elem, dt.Shape[1]/st.Shape[1]) // data type / input channels per block
			inputs[key] = dt.Shape[1]
		}
		return true
	})
	n := 0
	for _, u := range res.Steps[0].Change.Rules {
		for _, w := range u.Weights {
			n++
			var want string
			switch weightClass(w) {
			case "embed":
				if _, ok := got[w]; ok || dense[w] == "" {
					t.Errorf("%s: quantized (%s), want it left as its own constant", w, got[w])
				}
				continue
			case "mlp", "up_proj":
				want = "si4/16"
			default:
				want = fmt.Sprintf("si8/%d", inputs[w]) // per channel: one block over all input channels
			}
			if g := got[w]; g != want || inputs[w] == 0 {
				t.Errorf("%s: %s, want %s", w, g, want)
			}
		}
	}
	if n != 23 {
		t.Errorf("rules table lists %d weights, want 23", n)
	}
}
