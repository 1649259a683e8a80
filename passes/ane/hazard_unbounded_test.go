package ane

import "testing"

// stateExp is an xLSTM-style stabiliser: m is a state (attribute form), the
// graph computes BODY on it and returns y and the new m. TYPE is the element
// type the exp computes in.
func stateModule(elem, body string) string {
	return `module {
  coreai.graph @main(%m: tensor<1x4x` + elem + `> {MutableBuffers.buffer_mutation = "m", coreai.name = "m"}, %x: tensor<1x4x` + elem + `> {coreai.name = "x"}) -> (tensor<1x4x` + elem + `> {coreai.name = "m"}, tensor<1x4x` + elem + `> {coreai.name = "y"}) {
    %mn = coreai.decomposable.broadcasting_maximum %m, %x : (tensor<1x4x` + elem + `>, tensor<1x4x` + elem + `>) -> tensor<1x4x` + elem + `>
` + body + `
    coreai.output %mn, %y : tensor<1x4x` + elem + `>, tensor<1x4x` + elem + `>
  }
}`
}

// residualHead starts the residual-stream modules below: a token's
// embedding %e and a block's output %h.
const residualHead = `module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}, %h: tensor<1x1x4xf16> {coreai.name = "h"}) -> (tensor<1x1x1xf16> {coreai.name = "y"}) {
    %w = coreai.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf16>
    %ax = coreai.constant dense<2> : tensor<1xsi32>
    %i = coreai.expand_dims %ids, %ax : (tensor<1x1xsi32>, tensor<1xsi32>) -> tensor<1x1x1xsi32>
    %e = coreai.gather_nd %w, %i : (tensor<2x4xf16>, tensor<1x1x1xsi32>) -> tensor<1x1x4xf16>
`

// residualModule embeds a token, adds a block's output to it (the residual
// stream) and ends in BODY on the sum %r, in f16.
func residualModule(body string) string {
	return residualHead + `    %r = coreai.decomposable.broadcasting_add %e, %h : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %red = coreai.constant dense<2> : tensor<1xsi32>
` + body + `
    coreai.output %y : tensor<1x1x1xf16>
  }
}`
}

// scaledResidualModule is residualModule's stream with the embedding
// multiplied by EMB and the block output %h by BLOCK before their add
// (residual-scale's form, passes/residual_scale.go), ending in an fp16
// sum of squares of the sum: the RMSNorm's first half.
func scaledResidualModule(emb, block string) string {
	return residualHead + `    %ce = coreai.constant dense<` + emb + `> : tensor<f16>
    %es = coreai.decomposable.broadcasting_mul %e, %ce : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %cb = coreai.constant dense<` + block + `> : tensor<f16>
    %hs = coreai.decomposable.broadcasting_mul %h, %cb : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %r = coreai.decomposable.broadcasting_add %es, %hs : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %red = coreai.constant dense<2> : tensor<1xsi32>
    %sq = coreai.decomposable.broadcasting_mul %r, %r : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %y = "coreai.reduce_mean"(%sq, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>
    coreai.output %y : tensor<1x1x1xf16>
  }
}`
}

func TestHazardUnbounded(t *testing.T) {
	const negExp = `    %c = coreai.constant dense<-1.0> : tensor<ELEM>
    %neg = coreai.decomposable.broadcasting_mul %mn, %c : (tensor<1x4xELEM>, tensor<ELEM>) -> tensor<1x4xELEM>
    %y = coreai.exp %neg : (tensor<1x4xELEM>) -> tensor<1x4xELEM>`
	sub := func(s, elem string) string {
		out := ""
		for i := 0; i < len(s); i++ {
			if i+4 <= len(s) && s[i:i+4] == "ELEM" {
				out += elem
				i += 3
				continue
			}
			out += string(s[i])
		}
		return out
	}
	const unscaled = `coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from the residual stream (embedding coreai.gather_nd) with no bounding op between, computed in fp16; used by coreai.output`
	testRule(t, hazardUnbounded, []ruleCase{
		// anefacts.StreamSafeK(4) = 6 (passes/anefacts/stream_test.go): a
		// stream scaled by 2^-6 fits the guess, 2^-5 does not.
		{name: "residual stream scaled by 2^-6 (embedding and block output)", text: scaledResidualModule("1.562500e-02", "1.562500e-02"), want: nil},
		{name: "residual stream scaled by 2^-7", text: scaledResidualModule("7.812500e-03", "7.812500e-03"), want: nil},
		{name: "residual stream scaled by 2^-5: named, with the k it needs", text: scaledResidualModule("3.125000e-02", "3.125000e-02"),
			want: []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256; the stream is scaled by 0.03125, and a guessed stream of 4 massive channels at 4096 needs 2^-6: passes/anefacts/stream.go) of a value derived from the residual stream (embedding coreai.gather_nd) with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "only the embedding scaled: the block output adds unscaled values", text: scaledResidualModule("1.562500e-02", "1.0"), want: []string{unscaled}},
		{name: "only the block output scaled", text: scaledResidualModule("1.0", "1.562500e-02"), want: []string{unscaled}},
		{name: "exp(-m) of an fp16 running-max state", text: stateModule("f16", sub(negExp, "f16")),
			want: []string{`coreai.exp: exp (overflows fp16 past 11.09) of a value derived from state "m" with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "exp(-m) of an fp32 state the default rewrite retypes", text: stateModule("f32", sub(negExp, "f32")),
			want: []string{`coreai.exp: exp (overflows fp16 past 11.09) of a value derived from state "m" with no bounding op between, in an fp32 island the default rewrite (strip-fp32-casts islands=blockers) retypes to fp16; used by coreai.output`}},
		{name: "exp of a sigmoid of the state", text: stateModule("f16", `    %s = coreai.sigmoid %mn : (tensor<1x4xf16>) -> tensor<1x4xf16>
    %y = coreai.exp %s : (tensor<1x4xf16>) -> tensor<1x4xf16>`), want: nil},
		{name: "exp of the state clamped to [-8, 8]", text: stateModule("f16", `    %lo = coreai.constant dense<-8.0> : tensor<f16>
    %hi = coreai.constant dense<8.0> : tensor<f16>
    %a = coreai.decomposable.broadcasting_maximum %mn, %lo : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>
    %b = coreai.decomposable.broadcasting_minimum %a, %hi : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>
    %y = coreai.exp %b : (tensor<1x4xf16>) -> tensor<1x4xf16>`), want: nil},
		{name: "power of the state", text: stateModule("f16", `    %two = coreai.constant dense<3.0> : tensor<f16>
    %y = coreai.decomposable.broadcasting_pow %mn, %two : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>`),
			want: []string{`coreai.decomposable.broadcasting_pow: power of a value derived from state "m" with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "softplus of the state", text: stateModule("f16", `    %y = coreai.softplus %mn : (tensor<1x4xf16>) -> tensor<1x4xf16>`),
			want: []string{`coreai.softplus: softplus (drops to 0 past ≈ 10.4 on the Neural Engine, coremltools issue 2687) of a value derived from state "m" with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "exp of a conv window state (shifted, not accumulated)", text: `module {
  coreai.graph @main(%w: tensor<1x3xf16> {MutableBuffers.buffer_mutation = "w", coreai.name = "w"}, %x: tensor<1x1xf16> {coreai.name = "x"}) -> (tensor<1x3xf16> {coreai.name = "w"}, tensor<1x3xf16> {coreai.name = "y"}) {
    %b = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %e = coreai.constant dense<[1, 3]> : tensor<2xsi32>
    %s = coreai.constant dense<1> : tensor<2xsi32>
    %old = coreai.slice %w, %b, %e, %s : (tensor<1x3xf16>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x2xf16>
    %ax = coreai.constant dense<1> : tensor<si32>
    %nw = coreai.concat %ax, %old, %x : (tensor<si32>, tensor<1x2xf16>, tensor<1x1xf16>) -> tensor<1x3xf16>
    %y = coreai.exp %nw : (tensor<1x3xf16>) -> tensor<1x3xf16>
    coreai.output %nw, %y : tensor<1x3xf16>, tensor<1x3xf16>
  }
}`, want: nil},
		{name: "handle form: exp of the accumulator's read, not of the cache's", text: `module {
  coreai.graph @main(%acc: !coreai.handle<tensor<1x4xf16>> {MutableBuffers.buffer_mutation = "acc", coreai.name = "acc"}, %x: tensor<1x4xf16> {coreai.name = "x"}, %cache: !coreai.handle<tensor<1x4xf16>> {MutableBuffers.buffer_mutation = "cache", coreai.name = "cache"}) -> (!coreai.token {coreai.name = "acc"}, !coreai.token {coreai.name = "cache"}, tensor<1x4xf16> {coreai.name = "y"}, tensor<1x4xf16> {coreai.name = "z"}) {
    %t0 = coreai.create_token : !coreai.token
    %a, %t1 = coreai.read_handle %acc, %t0 : (<tensor<1x4xf16>>, !coreai.token) -> (tensor<1x4xf16>, !coreai.token)
    %c, %t2 = coreai.read_handle %cache, %t1 : (<tensor<1x4xf16>>, !coreai.token) -> (tensor<1x4xf16>, !coreai.token)
    %h = coreai.constant dense<5.000000e-01> : tensor<f16>
    %d = coreai.decomposable.broadcasting_mul %a, %h : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>
    %n = coreai.decomposable.broadcasting_add %d, %x : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    %t3 = coreai.write_handle %acc, %n, %t2 : (<tensor<1x4xf16>>, tensor<1x4xf16>, !coreai.token) -> !coreai.token
    %t4 = coreai.write_handle %cache, %x, %t3 : (<tensor<1x4xf16>>, tensor<1x4xf16>, !coreai.token) -> !coreai.token
    %y = coreai.exp %a : (tensor<1x4xf16>) -> tensor<1x4xf16>
    %z = coreai.exp %c : (tensor<1x4xf16>) -> tensor<1x4xf16>
    coreai.output %t3, %t4, %y, %z : !coreai.token, !coreai.token, tensor<1x4xf16>, tensor<1x4xf16>
  }
}`, want: []string{`coreai.exp: exp (overflows fp16 past 11.09) of a value derived from state "acc" with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "exp of a graph input that is not a state", text: `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %y = coreai.exp %x : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %y : tensor<4xf16>
  }
}`, want: nil},
		{name: "sum of squares of the residual stream in fp16", text: residualModule(`    %sq = coreai.decomposable.broadcasting_mul %r, %r : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %y = "coreai.reduce_mean"(%sq, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>`),
			want: []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from the residual stream (embedding coreai.gather_nd) with no bounding op between, computed in fp16; used by coreai.output`}},
		{name: "sum of squares after an RMSNorm", text: residualModule(`    %sq = coreai.decomposable.broadcasting_mul %r, %r : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %ms = "coreai.reduce_mean"(%sq, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>
    %eps = coreai.constant dense<1.0e-3> : tensor<f16>
    %ae = coreai.decomposable.broadcasting_add %ms, %eps : (tensor<1x1x1xf16>, tensor<f16>) -> tensor<1x1x1xf16>
    %rs = coreai.rsqrt %ae : (tensor<1x1x1xf16>) -> tensor<1x1x1xf16>
    %n = coreai.decomposable.broadcasting_mul %r, %rs : (tensor<1x1x4xf16>, tensor<1x1x1xf16>) -> tensor<1x1x4xf16>
    %sq2 = coreai.decomposable.broadcasting_mul %n, %n : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %y = "coreai.reduce_sum"(%sq2, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>`),
			want: []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from the residual stream (embedding coreai.gather_nd) with no bounding op between, computed in fp16; used by coreai.decomposable.broadcasting_add`}},
		{name: "RMSNorm written with pow(x, 2): one sum of squares, the normalised value bounded", text: residualModule(`    %two = coreai.constant dense<2.0> : tensor<f16>
    %sq = coreai.decomposable.broadcasting_pow %r, %two : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %ms = "coreai.reduce_mean"(%sq, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>
    %eps = coreai.constant dense<1.0e-3> : tensor<f16>
    %ae = coreai.decomposable.broadcasting_add %ms, %eps : (tensor<1x1x1xf16>, tensor<f16>) -> tensor<1x1x1xf16>
    %rs = coreai.rsqrt %ae : (tensor<1x1x1xf16>) -> tensor<1x1x1xf16>
    %n = coreai.decomposable.broadcasting_mul %r, %rs : (tensor<1x1x4xf16>, tensor<1x1x1xf16>) -> tensor<1x1x4xf16>
    %ex = coreai.exp %n : (tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %y = "coreai.reduce_sum"(%ex, %red) <{keep_dims = true}> : (tensor<1x1x4xf16>, tensor<1xsi32>) -> tensor<1x1x1xf16>`),
			want: []string{`coreai.reduce_mean: sum of squares (x² overflows fp16 past |x| = 256) of a value derived from the residual stream (embedding coreai.gather_nd) with no bounding op between, computed in fp16; used by coreai.decomposable.broadcasting_add`}},
	})
}
