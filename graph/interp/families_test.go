package interp

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// familyExpected is testdata/families/expected.json: per family, the token
// stream and numpy's logits (float64, from the models' equations) after
// each token.
type familyExpected map[string]struct {
	Tokens []int64     `json:"tokens"`
	Logits [][]float64 `json:"logits"`
}

// runFamily decodes tokens through a families module as verify feeds it
// (input_ids, in_step, an additive causal mask, states from zero, each new
// state fed back by name) and returns the logits of every step.
func runFamily(t *testing.T, m *graph.Module, tokens []int64) [][]float32 {
	t.Helper()
	g := m.Graph("main")
	ins, outs := g.Inputs(), g.Outputs()
	args := make([]*Tensor, len(ins))
	for i, p := range ins {
		args[i] = zerosOf(t, p.Type)
	}
	in := New(m, Options{})
	defer in.Close()
	var logits [][]float32
	for pos, tok := range tokens {
		for i, p := range ins {
			switch p.Name {
			case "input_ids":
				args[i].I[0] = tok
			case "in_step":
				args[i].I[0] = int64(pos)
			case "causal_mask":
				for j := range args[i].F {
					args[i].F[j] = 0
					if j > pos {
						args[i].F[j] = -65504
					}
				}
			}
		}
		res, err := in.Run("main", args)
		if err != nil {
			t.Fatalf("step %d: %v", pos, err)
		}
		logits = append(logits, append([]float32(nil), res[0].Floats()...))
		for k := 1; k < len(outs); k++ {
			for i, p := range ins {
				if p.Name == outs[k].Name {
					args[i] = res[k]
				}
			}
		}
	}
	return logits
}

// TestFamiliesAgainstNumpy runs anefix's LFM2-, Mamba2-, xLSTM- and RWKV-style
// stand-ins (testdata/families, synthetic weights) over numpy's token
// stream and compares the logits with numpy's float64 model. The graphs
// round every f16 op to half, so the bound is fp16's: the largest
// difference must stay under 2 % of the largest logit.
func TestFamiliesAgainstNumpy(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "families")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want familyExpected
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lfm2", "mamba2", "xlstm", "rwkv"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".mlir")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := mlirtext.Parse(path, string(src))
			if err != nil {
				t.Fatal(err)
			}
			w := want[name]
			got := runFamily(t, m, w.Tokens)
			var worst, peak float64
			for s := range w.Logits {
				for j, x := range w.Logits[s] {
					worst = math.Max(worst, math.Abs(float64(got[s][j])-x))
					peak = math.Max(peak, math.Abs(x))
				}
			}
			t.Logf("%s: %d steps, max |Δlogit| = %.4g (largest logit %.3g)", name, len(w.Logits), worst, peak)
			if worst > 0.02*peak {
				t.Errorf("max |Δlogit| = %.4g, over 2 %% of the largest logit %.3g", worst, peak)
			}
		})
	}
}
