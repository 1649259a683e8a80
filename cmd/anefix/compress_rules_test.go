package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
		{"palettize", "attn*:bits=6:group-size=16,mlp*:bits=4,nothing*:bits=8", "rule 1 attn*:bits=6:group-size=16 → 6-bit LUT (f16), per-grouped-channel 16, kmeans: 1 taken: 1 compressed 8192 → 3586 bytes\n",
			[]rule{{1, "attn.weight", 8192, 3586}, {2, "mlp.weight", 16384, 4226}, {3, "", 0, 0}, {0, "", 0, 0}}, [2]int64{24576, 7812}},
		{"quantize-weights", "attn*:dtype=si4:granularity=per-block:block-size=16", "rule 1 attn*:dtype=si4:granularity=per-block:block-size=16 → linear si4, per-block 16, symmetric: 1 taken: 1 compressed 8192 → 2563 bytes\n",
			[]rule{{1, "attn.weight", 8192, 2563}, {0, "mlp.weight", 16384, 8451}}, [2]int64{24576, 11014}},
	} {
		t.Run(c.pass, func(t *testing.T) {
			args := []string{"rewrite", in, "--dry-run", "--passes", c.pass, "--set", c.pass + ".rules=" + c.rules}
			code, _, errs := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, s := range []string{c.pattern, "      compressed: attn.weight\n", fmt.Sprintf("total: 2 taken: 2 compressed %d → %d bytes", c.total[0], c.total[1]), "dry run: nothing written"} {
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

// TestRulesTakenCompressedLeftArmA: issue 32's dry run of tiny synth arm A
// (stand-in random weights) with attention at 6 bits and the MLP at 4,
// each rule's line saying taken / compressed / left, the weights left
// listed apart by their resource keys with why and a group size that
// would take them, and the total line agreeing with the headline. By hand
// from arm A's weights (graph/synth; the test checks each type in the
// report): the three linear_attn.in_proj_all are 68×32×1×1 f16 (4352 B
// each, 13056 B), conv weights with outputs on axis 0: 68 channels, no
// multiple of 32, and 34 is the divisor of 68 nearest 32. q_proj
// 64×32×1×1 (4096 B) at 6 bits in groups of 32: indices 2048·6/8 = 1536
// B, LUT 2 groups × 64 × 2 B = 256 B, axis 2 B: 1794 B. Per layer up and
// gate 64×32×1×1 at 4 bits: 1024 + 2×16×2 + 2 = 1090 B, down 32×64×1×1:
// 1024 + 1×16×2 + 2 = 1058 B; 4 layers: 4·(2·1090 + 1058) = 12952 B from
// 49152. The embedding 256×32 (gather_nd, outputs on axis 0) at the
// pass's 4 bits: 4096 + 8×16×2 + 2 = 4354 B from 16384. So 17 taken, 14
// compressed 69632 → 19100 B, 3 left (13056 B). With the hint as a rule
// (*in_proj_all*:bits=6:group-size=34), each in_proj_all becomes 68·32·6/8
// = 1632 B of indices, 2 × 64 × 2 = 256 B of LUT and 2 B: 1890 B.
func TestRulesTakenCompressedLeftArmA(t *testing.T) {
	in := "../../testdata/synth/armA.aimodel"
	inProj := []string{"model.layers.0.linear_attn.in_proj_all.weight", "model.layers.1.linear_attn.in_proj_all.weight", "model.layers.2.linear_attn.in_proj_all.weight"}
	types := map[string]string{"in_proj_all": "tensor<68x32x1x1xf16>", "q_proj": "tensor<64x32x1x1xf16>", "up_proj": "tensor<64x32x1x1xf16>",
		"gate_proj": "tensor<64x32x1x1xf16>", "down_proj": "tensor<32x64x1x1xf16>", "embed_tokens": "tensor<256x32xf16>"}
	typeOf := func(name string) string {
		for k, v := range types {
			if strings.Contains(name, "."+k+".") {
				return v
			}
		}
		return "?"
	}
	for _, c := range []struct {
		name, rules string
		lines       []string
		taken, done int32
		left        []string
		before      int64
		after       int64
	}{
		{"issue 32", "*attn*:bits=6,*mlp*:bits=4", []string{
			"17 weights taken: 14 compressed 68.0 KiB → 18.7 KiB (27.4%)",
			", 3 left as they are (12.8 KiB)\n",
			"rule 1 *attn*:bits=6 → 6-bit LUT (f16), per-grouped-channel 32, kmeans: 4 taken: 1 compressed 4096 → 1794 bytes, 3 left as they are (13056 bytes)\n",
			"      compressed: model.layers.3.self_attn.q_proj.weight\n",
			"      left: model.layers.0.linear_attn.in_proj_all.weight (tensor<68x32x1x1xf16>): its 68 output channels (axis 0) are not a multiple of group-size 32; group-size=34 would take it\n",
			"rule 2 *mlp*:bits=4 → 4-bit LUT (f16), per-grouped-channel 32, kmeans: 12 taken: 12 compressed 49152 → 12952 bytes\n",
			"no rule matched → 4-bit LUT (f16), per-grouped-channel 32, kmeans: 1 taken: 1 compressed 16384 → 4354 bytes\n",
			"total: 17 taken: 14 compressed 69632 → 19100 bytes (68.0 KiB → 18.7 KiB), 3 left as they are (13056 bytes)\n",
		}, 17, 14, inProj, 69632, 19100},
		{"the hint taken", "*in_proj_all*:bits=6:group-size=34,*attn*:bits=6,*mlp*:bits=4", []string{
			"17 weights taken: 17 compressed 80.8 KiB → 24.2 KiB",
			"rule 1 *in_proj_all*:bits=6:group-size=34 → 6-bit LUT (f16), per-grouped-channel 34, kmeans: 3 taken: 3 compressed 13056 → 5670 bytes\n",
			"rule 2 *attn*:bits=6 → 6-bit LUT (f16), per-grouped-channel 32, kmeans: 1 taken: 1 compressed 4096 → 1794 bytes\n",
			"total: 17 taken: 17 compressed 82688 → 24770 bytes (80.8 KiB → 24.2 KiB)\n",
		}, 17, 17, nil, 82688, 24770},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"rewrite", in, "--dry-run", "--enable", "palettize", "--set", "palettize.rules=" + c.rules}
			code, _, errs := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, s := range c.lines {
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
			var pr *pb.PassRun
			for _, p := range rep.Passes {
				if p.Name == "palettize" {
					pr = p
				}
			}
			tot, rt := pr.GetCompression(), pr.GetRulesTotal()
			if tot.GetTaken() != c.taken || tot.GetWeights() != c.done || tot.GetLeft() != c.taken-c.done || tot.GetBytesBefore() != c.before || tot.GetBytesAfter() != c.after {
				t.Errorf("compression total %v, want %d taken, %d compressed %d → %d", tot, c.taken, c.done, c.before, c.after)
			}
			if rt.GetWeights() != tot.GetTaken() || rt.GetCompressed() != tot.GetWeights() || rt.GetLeft() != tot.GetLeft() || rt.GetLeftBytes() != tot.GetLeftBytes() ||
				rt.GetBytesBefore()-rt.GetLeftBytes() != tot.GetBytesBefore() || rt.GetBytesAfter()-rt.GetLeftBytes() != tot.GetBytesAfter() {
				t.Errorf("rules total %v disagrees with the compression total %v", rt, tot)
			}
			var left []string
			for _, l := range pr.Left {
				left = append(left, l.Name)
				if l.Hint != "group-size=34" || l.Rule != 1 || l.Bytes != 4352 {
					t.Errorf("left %v, want rule 1, 4352 bytes, hint group-size=34", l)
				}
			}
			if !slices.Equal(left, c.left) {
				t.Errorf("left %v, want %v", left, c.left)
			}
			for _, cw := range pr.Compressed {
				if cw.Type != typeOf(cw.Name) {
					t.Errorf("%s: %s, the derivation assumes %s", cw.Name, cw.Type, typeOf(cw.Name))
				}
			}
			for _, r := range pr.Rules {
				if r.Count != r.Compressed+r.Left {
					t.Errorf("rule %d: %d taken ≠ %d compressed + %d left", r.Index, r.Count, r.Compressed, r.Left)
				}
			}
		})
	}
}
