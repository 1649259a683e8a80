package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph/f16"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// twoTablesModule is a test module (synthetic, stand-in random weights):
// two fp16 tables read by gather_nd, attn.weight 64×64 and mlp.weight
// 128×64, so both have their output channels on axis 0.
func twoTablesModule(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(32, 5))
	blob := func(n int) string {
		raw := make([]byte, 4+2*n)
		binary.LittleEndian.PutUint32(raw, 2) // the blob's alignment
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(raw[4+2*i:], f16.FromFloat64(r.NormFloat64()*0.02))
		}
		return "0x" + strings.ToUpper(hex.EncodeToString(raw))
	}
	src := fmt.Sprintf(`module {
  coreai.graph @main(%%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x64xf16> {coreai.name = "a"}, tensor<1x64xf16> {coreai.name = "m"}) {
    %%0 = coreai.constant dense_resource<attn.weight> : tensor<64x64xf16> loc("attn")
    %%1 = coreai.gather_nd %%0 at %%arg0 : (tensor<64x64xf16>, tensor<1x1xsi32>) to tensor<1x64xf16>
    %%2 = coreai.constant dense_resource<mlp.weight> : tensor<128x64xf16> loc("mlp")
    %%3 = coreai.gather_nd %%2 at %%arg0 : (tensor<128x64xf16>, tensor<1x1xsi32>) to tensor<1x64xf16>
    coreai.output %%1, %%3 : tensor<1x64xf16>, tensor<1x64xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      attn.weight: "%s",
      mlp.weight: "%s"
    }
  }
#-}
`, blob(64*64), blob(128*64))
	path := filepath.Join(t.TempDir(), "tables.mlir")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRewriteDryRunRules: rewrite --dry-run with a rules option prints,
// per rule, the weights it selected, their count and their bytes before →
// after, and the total, in the summary and in --json, and writes nothing.
// The bytes are worked out by hand from the layout the passes write
// (PASSES.md):
//
// palettize, attn.weight 64×64 f16 (8192 B) by rule 1, 6 bits, groups of
// 16 rows: indices 64·64·6/8 = 3072 B, LUT 4 groups × 64 entries × 2 B =
// 512 B, the si16 axis 2 B: 3586 B. mlp.weight 128×64 (16384 B) by rule 2,
// 4 bits, groups of 32: indices 128·64·4/8 = 4096 B, LUT 4 × 16 × 2 =
// 128 B, axis 2 B: 4226 B. Total 24576 → 7812 B.
//
// quantize-weights, attn.weight by rule 1, si4 in blocks of 16 input
// channels: data 64·64·4/8 = 2048 B, scales 64×4 f16 = 512 B, the zero
// points (all 0: symmetric) and the offsets (all 0) splats of one
// element, 1 B and 2 B: 2563 B. mlp.weight at the pass's own si8 per
// channel: data 8192 B, scales 128 f16 = 256 B, zero point 1 B, offset
// 2 B: 8451 B. Total 24576 → 11014 B.
func TestRewriteDryRunRules(t *testing.T) {
	in := twoTablesModule(t)
	type rule struct {
		index         int32
		weights       string
		before, after int64
	}
	for _, c := range []struct {
		pass, rules, pattern string
		want                 []rule
		total                [2]int64
	}{
		{"palettize", "attn*:bits=6:group-size=16,mlp*:bits=4,nothing*:bits=8", "rule 1 attn*:bits=6:group-size=16 → 6-bit LUT (f16), per-grouped-channel 16, kmeans: 1 weight(s), 8192 → 3586 bytes",
			[]rule{{1, "attn.weight", 8192, 3586}, {2, "mlp.weight", 16384, 4226}, {3, "", 0, 0}, {0, "", 0, 0}}, [2]int64{24576, 7812}},
		{"quantize-weights", "attn*:dtype=si4:granularity=per-block:block-size=16", "rule 1 attn*:dtype=si4:granularity=per-block:block-size=16 → linear si4, per-block 16, symmetric: 1 weight(s), 8192 → 2563 bytes",
			[]rule{{1, "attn.weight", 8192, 2563}, {0, "mlp.weight", 16384, 8451}}, [2]int64{24576, 11014}},
	} {
		t.Run(c.pass, func(t *testing.T) {
			args := []string{"rewrite", in, "--dry-run", "--passes", c.pass, "--set", c.pass + ".rules=" + c.rules}
			code, _, errs := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, s := range []string{c.pattern, "      attn.weight\n", fmt.Sprintf("total: 2 weight(s), %d → %d bytes", c.total[0], c.total[1]), "dry run: nothing written"} {
				if !strings.Contains(errs, s) {
					t.Errorf("summary lacks %q:\n%s", s, errs)
				}
			}
			code, out, errs := runCLI(t, "", append(args, "--json")...)
			if code != exitOK {
				t.Fatalf("--json: exit %d: %s", code, errs)
			}
			var rep pb.RewriteReport
			if err := protojson.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			pr := rep.Passes[0]
			if len(pr.Rules) != len(c.want) {
				t.Fatalf("%d rules in the report, want %d: %v", len(pr.Rules), len(c.want), pr.Rules)
			}
			for i, w := range c.want {
				r := pr.Rules[i]
				if r.Index != w.index || strings.Join(r.Weights, ",") != w.weights || r.Count != int32(len(r.Weights)) || r.BytesBefore != w.before || r.BytesAfter != w.after {
					t.Errorf("rule %d: %v, want %+v", i, r, w)
				}
			}
			if tot := pr.RulesTotal; tot.GetWeights() != 2 || tot.GetBytesBefore() != c.total[0] || tot.GetBytesAfter() != c.total[1] {
				t.Errorf("total %v, want 2 weights, %d → %d", tot, c.total[0], c.total[1])
			}
			for _, cw := range pr.Compressed {
				if want := map[string]int32{"attn.weight": 1, "mlp.weight": map[bool]int32{true: 2, false: 0}[c.pass == "palettize"]}[cw.Resource]; cw.Rule != want {
					t.Errorf("%s: rule %d, want %d", cw.Resource, cw.Rule, want)
				}
			}
			if rep.Written {
				t.Error("a dry run reports a written output")
			}
			if ents, _ := os.ReadDir(filepath.Dir(in)); len(ents) != 1 {
				t.Errorf("the dry run left files beside its input: %v", ents)
			}
		})
	}
}

// TestMixedPalettizeNumerics: on tiny synth arm A (stand-in random
// weights, testdata/synth/armA.aimodel), every weight palettized in groups
// of 4 channels: the mean teacher-forced KL divergence (verify's default
// 8 streams × 256 positions) of attention at 6 bits and the MLP at 4 in
// one rewrite (rules) lies between uniform 6-bit and uniform 4-bit, as the
// MLP's 4 bits add error to uniform 6 and attention's 6 bits remove some
// from uniform 4. A measurement of stand-in weights, not of a trained
// model; the figures are logged.
func TestMixedPalettizeNumerics(t *testing.T) {
	in := "../../testdata/synth/armA.aimodel"
	dir := t.TempDir()
	kld := map[string]float64{}
	for _, c := range []struct{ name, bits, rules string }{
		{"uniform 6", "6", ""},
		{"mixed", "6", "*attn*:bits=6,*mlp*:bits=4"},
		{"uniform 4", "4", ""},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "")+".aimodel")
		args := []string{"rewrite", in, "-o", out, "--enable", "palettize", "--set", "palettize.min-elements=0", "--set", "palettize.group-size=4", "--set", "palettize.bits=" + c.bits}
		if c.rules != "" {
			args = append(args, "--set", "palettize.rules="+c.rules)
		}
		if code, _, errs := runCLI(t, "", args...); code != exitOK {
			t.Fatalf("%s: rewrite exit %d: %s", c.name, code, errs)
		}
		code, stdout, errs := runCLI(t, "", "verify", in, out, "--max-kld", "-1", "--min-same-top1", "-1", "--json")
		if code != exitOK {
			t.Fatalf("%s: verify exit %d: %s", c.name, code, errs)
		}
		var rep pb.VerifyReport
		if err := protojson.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		kld[c.name] = rep.GetMeanKld()
		t.Logf("%-9s mean KLD %.4g nats, same top-1 %.2f %%", c.name, rep.GetMeanKld(), 100*rep.GetSameTop1())
	}
	if !(kld["uniform 6"] < kld["mixed"] && kld["mixed"] < kld["uniform 4"]) {
		t.Errorf("mean KLD: uniform 6 %.4g, mixed %.4g, uniform 4 %.4g: mixed is not between", kld["uniform 6"], kld["mixed"], kld["uniform 4"])
	}
}
