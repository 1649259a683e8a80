#!/usr/bin/env python3
"""anefix's own stand-ins for four recurrent families, one decode step each,
written as coreai MLIR text (the printed forms of graph/synth/variants/emit.go),
and numpy's answer for each over a token stream.

  lfm2.mlir    LFM2-style: a short-conv block (B*x into a conv cache of 2
               positions, gated by C) and an attention block with
               [B, kv_heads, T, head_dim] key/value caches written at in_step
               (begin index concat(0, [0], [0], in_step, [0])); f16 throughout.
  mamba2.mlir  Mamba2-style: conv state (window of x, B, C) and an SSM state
               h[heads, head_dim, state] kept in fp32 between casts, as
               exporters keep it (dt = softplus as torch decomposes it,
               dA = exp(dt * -exp(A_log)), y = C.h + D x, gated RMSNorm).
  xlstm.mlir   xLSTM-style mLSTM cell: exponential input gate stabilised by a
               running maximum state m, matrix memory C and normaliser n, all
               fp32 between casts; the denominator is max(|n.q|, exp(-m)).
  rwkv.mlir    RWKV-style block (RWKV-6's shape): token shift (the previous
               token's normed x kept as a state, att_shift, mixed into r, k,
               v, g and the decay's input), a time-mix recurrence with its
               own per-head matrix state wkv_state[heads, key, value] in fp32
               between casts (w = exp(-exp(w0 + x_w Wd)), data-dependent
               decay; y = r (S + u k^T v); S' = diag(w) S + k^T v), a gated
               norm, and a channel mix with a token-shift state of its own
               (ffn_shift; relu(k)^2 and a sigmoid receptance).

What is a guess: sizes are tiny (hidden 8, vocab 16), there is no RoPE, one
layer of each block, weights are seeded pseudo-random numbers (stand-ins, not
trained). The xLSTM input-gate bias (-13) and forget-gate bias (-0.5) are
chosen so that m falls below -ln(65504) within the stream: exp(-m) then
overflows fp16, the hazard anefix check must name.

numpy computes each model from its equations in float64 with the same
(f16- or f32-rounded) weights, independently of the MLIR emitter, and writes
expected.json: per family the token stream and the logits after each token.

Run from this directory: python3 gen.py
"""
import json
import math

import numpy as np

V, D = 16, 8
T = 32  # attention context (mask and cache length)
TOKENS = [int(t) for t in np.random.default_rng(29).integers(0, V, 24)]


class Fn:
    """Emits one graph's body; values are (name, shape, elem)."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def one(self, text, shape, elem):
        name = "%%v%d" % self.n
        self.n += 1
        self.lines.append("    %s = %s" % (name, text))
        return (name, tuple(shape), elem)

    @staticmethod
    def ty(v):
        s = "x".join(str(d) for d in v[1])
        return "tensor<%s%s%s>" % (s, "x" if s else "", v[2])

    def tys(self, *vs):
        return ", ".join(self.ty(v) for v in vs)

    def fconst(self, arr, elem):
        a = np.asarray(arr, dtype=np.float64)
        body = "dense<%s>" % (nested(a) if a.ndim else flit(a))
        return self.one("coreai.constant %s : %s" % (body, self.ty(("", a.shape, elem))), a.shape, elem)

    def ivec(self, vals, elem="si32"):
        return self.one("coreai.constant dense<[%s]> : tensor<%dx%s>" % (", ".join(str(v) for v in vals), len(vals), elem),
                        (len(vals),), elem)

    def iscalar(self, v, elem="si32"):
        return self.one("coreai.constant dense<%d> : tensor<%s>" % (v, elem), (), elem)

    def bin(self, kind, x, y):
        shape = bcast(x[1], y[1])
        elem = "i1" if kind == "greater" else x[2]
        return self.one("coreai.decomposable.broadcasting_%s %s, %s : (%s) -> %s" % (
            kind, x[0], y[0], self.tys(x, y), self.ty(("", shape, elem))), shape, elem)

    def unary(self, kind, x):
        t = self.ty(x)
        return self.one("coreai.%s %s : (%s) -> %s" % (kind, x[0], t, t), x[1], x[2])

    def where(self, c, x, y):
        shape = bcast(c[1], bcast(x[1], y[1]))
        return self.one("coreai.decomposable.broadcasting_where %s, %s, %s : (%s) -> %s" % (
            c[0], x[0], y[0], self.tys(c, x, y), self.ty(("", shape, x[2]))), shape, x[2])

    def reduce(self, kind, x, axis):
        ax = self.ivec([axis])
        shape = list(x[1])
        shape[axis] = 1
        return self.one("coreai.%s %s, %s : (%s) -> %s" % (kind, x[0], ax[0], self.tys(x, ax), self.ty(("", shape, x[2]))),
                        shape, x[2])

    def reshape(self, x, *shape):
        s = self.ivec(shape, "ui32")
        return self.one("coreai.reshape %s, %s : (%s) -> %s" % (x[0], s[0], self.tys(x, s), self.ty(("", shape, x[2]))),
                        shape, x[2])

    def transpose(self, x, *perm):
        p = self.ivec(perm, "ui32")
        shape = [x[1][a] for a in perm]
        return self.one("coreai.transpose %s, %s : (%s) -> %s" % (x[0], p[0], self.tys(x, p), self.ty(("", shape, x[2]))),
                        shape, x[2])

    def slice_axis(self, x, axis, b, e):
        r = len(x[1])
        bv = [0] * r
        ev = [2147483647] * r
        bv[axis], ev[axis] = b, e
        B, E, S = self.ivec(bv), self.ivec(ev), self.ivec([1] * r)
        shape = list(x[1])
        shape[axis] = e - b
        return self.one("coreai.slice %s, %s, %s, %s : (%s) -> %s" % (x[0], B[0], E[0], S[0], self.tys(x, B, E, S),
                                                                      self.ty(("", shape, x[2]))), shape, x[2])

    def concat(self, axis, *xs):
        a = self.iscalar(axis)
        shape = list(xs[0][1])
        shape[axis] = sum(x[1][axis] for x in xs)
        return self.one("coreai.concat %s, %s : (%s) -> %s" % (a[0], ", ".join(x[0] for x in xs), self.tys(a, *xs),
                                                              self.ty(("", shape, xs[0][2]))), shape, xs[0][2])

    def matmul(self, x, y):
        shape = list(bcast(x[1][:-2], y[1][:-2])) + [x[1][-2], y[1][-1]]
        return self.one("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s) -> %s" % (
            x[0], y[0], self.tys(x, y), self.ty(("", shape, x[2]))), shape, x[2])

    def cast(self, x, elem):
        return self.one("coreai.cast %s : %s to %s" % (x[0], self.ty(x), self.ty(("", x[1], elem))), x[1], elem)

    def softmax(self, x, axis):
        a = self.iscalar(axis)
        return self.one("coreai.softmax %s, %s : (%s) -> %s" % (x[0], a[0], self.tys(x, a), self.ty(x)), x[1], x[2])

    def gather(self, table, idx):
        shape = list(idx[1][:-1]) + list(table[1][idx[1][-1]:])
        return self.one("coreai.gather_nd %s at %s : (%s) to %s" % (table[0], idx[0], self.tys(table, idx),
                                                                    self.ty(("", shape, table[2]))), shape, table[2])

    def expand(self, x, axis):
        a = self.ivec([axis])
        shape = list(x[1][:axis]) + [1] + list(x[1][axis:])
        return self.one("coreai.expand_dims %s, %s : (%s) to %s" % (x[0], a[0], self.tys(x, a), self.ty(("", shape, x[2]))),
                        shape, x[2])

    def slice_update(self, x, u, b, e, s):
        return self.one("coreai.slice_update %s with %s at (%s, %s, %s) : (%s) to %s" % (
            x[0], u[0], b[0], e[0], s[0], self.tys(x, u, b, e, s), self.ty(x)), x[1], x[2])

    # Composite helpers.
    def scalar(self, v, elem):
        return self.fconst(np.array(v), elem)

    def rmsnorm(self, x, g, eps=1e-5):
        sq = self.bin("mul", x, x)
        ms = self.reduce("reduce_mean", sq, len(x[1]) - 1)
        r = self.unary("rsqrt", self.bin("add", ms, self.scalar(eps, x[2])))
        return self.bin("mul", self.bin("mul", x, r), self.fconst(g, x[2]))

    def silu(self, x):
        return self.bin("mul", x, self.unary("sigmoid", x))

    def linear(self, x, w):
        return self.matmul(x, self.fconst(w, x[2]))


def flit(x):
    """An MLIR float literal that reads back to x in f32 (and so in f16)."""
    return "%.9e" % float(x)


def nested(a):
    if a.ndim == 1:
        return "[" + ", ".join(flit(x) for x in a) + "]"
    return "[" + ", ".join(nested(s) for s in a) + "]"


def bcast(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def f16(a):
    return np.asarray(a, dtype=np.float16).astype(np.float64)


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def module(inputs, outputs, fn, results):
    ins = ", ".join("%%%s: %s {%scoreai.name = \"%s\"}" % (n, t, ('MutableBuffers.buffer_mutation = "%s", ' % n) if st else "", n)
                    for n, t, st in inputs)
    outs = ", ".join("%s {coreai.name = \"%s\"}" % (t, n) for n, t in outputs)
    body = "\n".join(fn.lines)
    ret = "    coreai.output %s : %s" % (", ".join(r[0] for r in results), ", ".join(Fn.ty(r) for r in results))
    return "module {\n  coreai.graph @main(%s) -> (%s) {\n%s\n%s\n  }\n}\n" % (ins, outs, body, ret)


def embed(fn, E):
    ids = ("%input_ids", (1, 1), "si32")
    idx = fn.expand(ids, 2)  # [1, 1, 1]
    return fn.gather(fn.fconst(E, "f16"), idx)  # [1, 1, D]


def np_rms(x, g, eps=1e-5):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def silu(x):
    return x / (1 + np.exp(-x))


# ---------------------------------------------------------------- LFM2-style
def lfm2(rng):
    w = {
        "E": f16(rng.normal(0, 1, (V, D))),
        "g1": f16(1 + 0.1 * rng.normal(size=D)), "g2": f16(1 + 0.1 * rng.normal(size=D)), "gf": f16(1 + 0.1 * rng.normal(size=D)),
        "Win": f16(rng.normal(0, D ** -0.5, (D, 3 * D))), "cw": f16(rng.normal(0, 0.5, (3, D))),
        "Wout": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wq": f16(rng.normal(0, D ** -0.5, (D, D))), "Wk": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wv": f16(rng.normal(0, D ** -0.5, (D, D))), "Wo": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wlm": f16(rng.normal(0, D ** -0.5, (D, V))),
    }
    fn = Fn()
    h = embed(fn, w["E"])
    # Short-conv block.
    x = fn.rmsnorm(h, w["g1"])
    bcx = fn.linear(x, w["Win"])  # [1, 1, 3D]
    B, C, xx = fn.slice_axis(bcx, 2, 0, D), fn.slice_axis(bcx, 2, D, 2 * D), fn.slice_axis(bcx, 2, 2 * D, 3 * D)
    bx = fn.bin("mul", B, xx)
    cache = ("%conv_cache", (1, 2, D), "f16")
    win = fn.concat(1, cache, bx)  # [1, 3, D]
    new_cache = fn.slice_axis(win, 1, 1, 3)
    y = fn.reduce("reduce_sum", fn.bin("mul", win, fn.fconst(w["cw"], "f16")), 1)  # [1, 1, D]
    h = fn.bin("add", h, fn.linear(fn.bin("mul", C, y), w["Wout"]))
    # Attention block, one head of D, caches [1, 1, T, D].
    x = fn.rmsnorm(h, w["g2"])
    q, k, v = fn.linear(x, w["Wq"]), fn.linear(x, w["Wk"]), fn.linear(x, w["Wv"])
    z = fn.ivec([0])
    step = ("%in_step", (1,), "si32")
    begin = fn.concat(0, z, z, step, z)  # one-element constants first and last
    end = fn.bin("add", begin, fn.ivec([1, 1, 1, D]))
    stride = fn.ivec([1, 1, 1, 1])
    kc = fn.slice_update(("%key_cache", (1, 1, T, D), "f16"), fn.reshape(k, 1, 1, 1, D), begin, end, stride)
    vc = fn.slice_update(("%value_cache", (1, 1, T, D), "f16"), fn.reshape(v, 1, 1, 1, D), begin, end, stride)
    s = fn.matmul(fn.reshape(q, 1, 1, 1, D), fn.transpose(kc, 0, 1, 3, 2))  # [1, 1, 1, T]
    s = fn.bin("add", fn.bin("mul", s, fn.scalar(D ** -0.5, "f16")), ("%causal_mask", (1, 1, 1, T), "f16"))
    o = fn.reshape(fn.matmul(fn.softmax(s, 3), vc), 1, 1, D)
    h = fn.bin("add", h, fn.linear(o, w["Wo"]))
    logits = fn.linear(fn.rmsnorm(h, w["gf"]), w["Wlm"])  # [1, 1, V]
    text = module([("input_ids", "tensor<1x1xsi32>", False), ("in_step", "tensor<1xsi32>", False),
                   ("causal_mask", "tensor<1x1x1x%dxf16>" % T, False),
                   ("conv_cache", "tensor<1x2x%dxf16>" % D, True),
                   ("key_cache", "tensor<1x1x%dx%dxf16>" % (T, D), True), ("value_cache", "tensor<1x1x%dx%dxf16>" % (T, D), True)],
                  [("logits", Fn.ty(logits)), ("conv_cache", Fn.ty(new_cache)), ("key_cache", Fn.ty(kc)), ("value_cache", Fn.ty(vc))],
                  fn, [logits, new_cache, kc, vc])

    def ref(tokens):
        cc = np.zeros((2, D))
        K, Vv = np.zeros((T, D)), np.zeros((T, D))
        out = []
        for t, tok in enumerate(tokens):
            h = w["E"][tok].copy()
            x = np_rms(h, w["g1"])
            bcx = x @ w["Win"]
            B, C, xx = bcx[:D], bcx[D:2 * D], bcx[2 * D:]
            win = np.vstack([cc, B * xx])
            cc = win[1:]
            h = h + (C * (win * w["cw"]).sum(0)) @ w["Wout"]
            x = np_rms(h, w["g2"])
            K[t], Vv[t] = x @ w["Wk"], x @ w["Wv"]
            sc = (K[:t + 1] @ (x @ w["Wq"])) * D ** -0.5
            p = np.exp(sc - sc.max())
            p /= p.sum()
            h = h + (p @ Vv[:t + 1]) @ w["Wo"]
            out.append(np_rms(h, w["gf"]) @ w["Wlm"])
        return out

    return text, ref


# -------------------------------------------------------------- Mamba2-style
def mamba2(rng):
    H, P, N = 2, 4, 4
    DI = H * P
    XBC = DI + 2 * N
    w = {
        "E": f16(rng.normal(0, 1, (V, D))),
        "g": f16(1 + 0.1 * rng.normal(size=D)), "gn": f16(1 + 0.1 * rng.normal(size=DI)), "gf": f16(1 + 0.1 * rng.normal(size=D)),
        "Win": f16(rng.normal(0, D ** -0.5, (D, DI + XBC + H))),
        "cw": f16(rng.normal(0, 0.5, (3, XBC))), "cb": f16(0.1 * rng.normal(size=XBC)),
        # Trained-like: dt = softplus(x + dt_bias) in [0.001, 0.1], A in [1, 16].
        "dt_bias": f32(np.log(np.expm1(np.exp(rng.uniform(np.log(0.001), np.log(0.1), H))))),
        "A_log": f32(rng.uniform(0, np.log(16), H)),
        "Dp": f32(rng.normal(1, 0.1, H)),
        "Wout": f16(rng.normal(0, DI ** -0.5, (DI, D))), "Wlm": f16(rng.normal(0, D ** -0.5, (D, V))),
    }
    fn = Fn()
    h = embed(fn, w["E"])
    x = fn.rmsnorm(h, w["g"])
    zxd = fn.linear(x, w["Win"])  # [1, 1, DI + XBC + H]
    zg = fn.slice_axis(zxd, 2, 0, DI)
    xbc = fn.slice_axis(zxd, 2, DI, DI + XBC)
    dt = fn.slice_axis(zxd, 2, DI + XBC, DI + XBC + H)  # [1, 1, H]
    cache = ("%conv_state", (1, 2, XBC), "f16")
    win = fn.concat(1, cache, xbc)
    new_conv = fn.slice_axis(win, 1, 1, 3)
    cv = fn.bin("add", fn.reduce("reduce_sum", fn.bin("mul", win, fn.fconst(w["cw"], "f16")), 1), fn.fconst(w["cb"], "f16"))
    cv = fn.silu(cv)  # [1, 1, XBC]
    xs = fn.reshape(fn.slice_axis(cv, 2, 0, DI), 1, H, P, 1)
    B = fn.reshape(fn.slice_axis(cv, 2, DI, DI + N), 1, 1, 1, N)
    C = fn.reshape(fn.slice_axis(cv, 2, DI + N, DI + 2 * N), 1, 1, 1, N)
    # The SSM in fp32 between casts.
    xs32, B32, C32 = fn.cast(xs, "f32"), fn.cast(B, "f32"), fn.cast(C, "f32")
    d = fn.bin("add", fn.reshape(fn.cast(dt, "f32"), 1, H, 1, 1), fn.fconst(w["dt_bias"].reshape(H, 1, 1), "f32"))
    big = fn.bin("greater", d, fn.scalar(20.0, "f32"))
    sp = fn.unary("log", fn.bin("add", fn.unary("exp", d), fn.scalar(1.0, "f32")))
    d = fn.where(big, d, sp)  # softplus, threshold 20
    A = fn.bin("mul", fn.unary("exp", fn.fconst(w["A_log"].reshape(H, 1, 1), "f32")), fn.scalar(-1.0, "f32"))
    dA = fn.unary("exp", fn.bin("mul", d, A))  # [1, H, 1, 1]
    st = ("%ssm_state", (1, H, P, N), "f32")
    hn = fn.bin("add", fn.bin("mul", st, dA), fn.bin("mul", fn.bin("mul", d, xs32), B32))  # [1, H, P, N]
    y = fn.reduce("reduce_sum", fn.bin("mul", hn, C32), 3)  # [1, H, P, 1]
    y = fn.bin("add", y, fn.bin("mul", xs32, fn.fconst(w["Dp"].reshape(H, 1, 1), "f32")))
    y = fn.reshape(fn.cast(y, "f16"), 1, 1, DI)
    y = fn.rmsnorm(fn.bin("mul", y, fn.silu(zg)), w["gn"])
    h = fn.bin("add", h, fn.linear(y, w["Wout"]))
    logits = fn.linear(fn.rmsnorm(h, w["gf"]), w["Wlm"])
    text = module([("input_ids", "tensor<1x1xsi32>", False), ("conv_state", "tensor<1x2x%dxf16>" % XBC, True),
                   ("ssm_state", "tensor<1x%dx%dx%dxf32>" % (H, P, N), True)],
                  [("logits", Fn.ty(logits)), ("conv_state", Fn.ty(new_conv)), ("ssm_state", Fn.ty(hn))],
                  fn, [logits, new_conv, hn])

    def ref(tokens):
        cc = np.zeros((2, XBC))
        S = np.zeros((H, P, N))
        out = []
        for tok in tokens:
            h = w["E"][tok].copy()
            zxd = np_rms(h, w["g"]) @ w["Win"]
            z, xbc, dt = zxd[:DI], zxd[DI:DI + XBC], zxd[DI + XBC:]
            win = np.vstack([cc, xbc])
            cc = win[1:]
            cv = silu((win * w["cw"]).sum(0) + w["cb"])
            xs, B, C = cv[:DI].reshape(H, P), cv[DI:DI + N], cv[DI + N:]
            d = dt + w["dt_bias"]
            d = np.where(d > 20, d, np.log1p(np.exp(d)))
            dA = np.exp(-d * np.exp(w["A_log"]))
            S = S * dA[:, None, None] + (d[:, None] * xs)[:, :, None] * B[None, None, :]
            y = (S * C).sum(-1) + w["Dp"][:, None] * xs
            y = np_rms(y.reshape(DI) * silu(z), w["gn"])
            h = h + y @ w["Wout"]
            out.append(np_rms(h, w["gf"]) @ w["Wlm"])
        return out

    return text, ref


# --------------------------------------------------------------- xLSTM-style
def xlstm(rng):
    K = 4
    w = {
        "E": f16(rng.normal(0, 1, (V, D))),
        "g": f16(1 + 0.1 * rng.normal(size=D)), "gf": f16(1 + 0.1 * rng.normal(size=D)),
        "Wq": f16(rng.normal(0, D ** -0.5, (D, K))), "Wk": f16(rng.normal(0, D ** -0.5, (D, K))),
        "Wv": f16(rng.normal(0, D ** -0.5, (D, K))),
        "wi": f16(rng.normal(0, 0.1, (D, 1))), "wf": f16(rng.normal(0, 0.1, (D, 1))),
        "bi": f32(-13.0), "bf": f32(-0.5),
        "Wo": f16(rng.normal(0, K ** -0.5, (K, D))), "Wlm": f16(rng.normal(0, D ** -0.5, (D, V))),
    }
    fn = Fn()
    h = embed(fn, w["E"])
    x = fn.rmsnorm(h, w["g"])
    q = fn.cast(fn.reshape(fn.linear(x, w["Wq"]), 1, K), "f32")
    k = fn.cast(fn.reshape(fn.linear(x, w["Wk"]), 1, K), "f32")
    v = fn.cast(fn.reshape(fn.linear(x, w["Wv"]), 1, K), "f32")
    ir = fn.bin("add", fn.cast(fn.reshape(fn.linear(x, w["wi"]), 1, 1), "f32"), fn.scalar(w["bi"], "f32"))
    fr = fn.bin("add", fn.cast(fn.reshape(fn.linear(x, w["wf"]), 1, 1), "f32"), fn.scalar(w["bf"], "f32"))
    logf = fn.unary("log", fn.unary("sigmoid", fr))
    m = ("%m", (1, 1), "f32")
    mf = fn.bin("add", logf, m)
    mn = fn.bin("maximum", mf, ir)
    ig = fn.unary("exp", fn.bin("sub", ir, mn))
    fg = fn.unary("exp", fn.bin("sub", mf, mn))
    Cs = ("%C", (1, K, K), "f32")
    ns = ("%n", (1, K), "f32")
    kv = fn.bin("mul", fn.reshape(v, 1, K, 1), fn.reshape(k, 1, 1, K))
    g3 = fn.reshape(fg, 1, 1, 1)
    Cn = fn.bin("add", fn.bin("mul", Cs, g3), fn.bin("mul", kv, fn.reshape(ig, 1, 1, 1)))
    nn = fn.bin("add", fn.bin("mul", ns, fg), fn.bin("mul", k, ig))
    qs = fn.bin("mul", q, fn.scalar(K ** -0.5, "f32"))
    num = fn.reshape(fn.reduce("reduce_sum", fn.bin("mul", Cn, fn.reshape(qs, 1, 1, K)), 2), 1, K)
    nq = fn.reduce("reduce_sum", fn.bin("mul", nn, qs), 1)  # [1, 1]
    stab = fn.unary("exp", fn.bin("mul", mn, fn.scalar(-1.0, "f32")))  # exp(-m)
    den = fn.bin("maximum", fn.unary("abs", nq), stab)
    hh = fn.cast(fn.reshape(fn.bin("divide", num, den), 1, 1, K), "f16")
    h = fn.bin("add", h, fn.linear(hh, w["Wo"]))
    logits = fn.linear(fn.rmsnorm(h, w["gf"]), w["Wlm"])
    text = module([("input_ids", "tensor<1x1xsi32>", False), ("m", "tensor<1x1xf32>", True),
                   ("C", "tensor<1x%dx%dxf32>" % (K, K), True), ("n", "tensor<1x%dxf32>" % K, True)],
                  [("logits", Fn.ty(logits)), ("m", Fn.ty(mn)), ("C", Fn.ty(Cn)), ("n", Fn.ty(nn))],
                  fn, [logits, mn, Cn, nn])

    def ref(tokens):
        mm, Cm, nv = 0.0, np.zeros((K, K)), np.zeros(K)
        out = []
        for tok in tokens:
            h = w["E"][tok].copy()
            x = np_rms(h, w["g"])
            q, k, v = x @ w["Wq"], x @ w["Wk"], x @ w["Wv"]
            i = float(x @ w["wi"][:, 0]) + w["bi"]
            f = float(x @ w["wf"][:, 0]) + w["bf"]
            lf = -math.log1p(math.exp(-f))
            mnew = max(lf + mm, i)
            ig, fg = math.exp(i - mnew), math.exp(lf + mm - mnew)
            Cm = fg * Cm + ig * np.outer(v, k)
            nv = fg * nv + ig * k
            mm = mnew
            qs = q * K ** -0.5
            hh = (Cm @ qs) / max(abs(nv @ qs), math.exp(-mm))
            h = h + hh @ w["Wo"]
            out.append(np_rms(h, w["gf"]) @ w["Wlm"])
        return out

    return text, ref


# --------------------------------------------------------------- RWKV-style
def rwkv(rng):
    H, K, F = 2, 4, 16  # heads, head size (H*K = D), channel-mix width
    w = {
        "E": f16(rng.normal(0, 1, (V, D))),
        "g1": f16(1 + 0.1 * rng.normal(size=D)), "g2": f16(1 + 0.1 * rng.normal(size=D)),
        "gn": f16(1 + 0.1 * rng.normal(size=D)), "gf": f16(1 + 0.1 * rng.normal(size=D)),
        # Token-shift mixes of r, k, v, g, w (time mix) and k, r (channel mix).
        "mu": f16(rng.uniform(0, 1, (7, D))),
        "Wr": f16(rng.normal(0, D ** -0.5, (D, D))), "Wk": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wv": f16(rng.normal(0, D ** -0.5, (D, D))), "Wg": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wd": f16(rng.normal(0, 0.1 * D ** -0.5, (D, D))),
        # Trained-like decay: exp(w0) in [0.05, 1.5], so w = exp(-exp(w0)) in [0.22, 0.95].
        "w0": f32(rng.uniform(np.log(0.05), np.log(1.5), D)),
        "u": f32(rng.normal(0, 0.5, D)),
        "Wo": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wck": f16(rng.normal(0, D ** -0.5, (D, F))), "Wcr": f16(rng.normal(0, D ** -0.5, (D, D))),
        "Wcv": f16(rng.normal(0, F ** -0.5, (F, D))),
        "Wlm": f16(rng.normal(0, D ** -0.5, (D, V))),
    }
    fn = Fn()
    h = embed(fn, w["E"])

    def shift(x, prev, i):  # x + (prev - x) * mu_i
        return fn.bin("add", x, fn.bin("mul", fn.bin("sub", prev, x), fn.fconst(w["mu"][i], "f16")))

    # Time mix.
    x = fn.rmsnorm(h, w["g1"])
    prev = ("%att_shift", (1, 1, D), "f16")
    r = fn.linear(shift(x, prev, 0), w["Wr"])
    k = fn.linear(shift(x, prev, 1), w["Wk"])
    v = fn.linear(shift(x, prev, 2), w["Wv"])
    g = fn.silu(fn.linear(shift(x, prev, 3), w["Wg"]))
    dd = fn.bin("add", fn.cast(fn.linear(shift(x, prev, 4), w["Wd"]), "f32"), fn.fconst(w["w0"], "f32"))
    decay = fn.unary("exp", fn.bin("mul", fn.unary("exp", dd), fn.scalar(-1.0, "f32")))  # [1, 1, D]
    r32 = fn.reshape(fn.cast(r, "f32"), 1, H, 1, K)
    k32 = fn.reshape(fn.cast(k, "f32"), 1, H, K, 1)
    v32 = fn.reshape(fn.cast(v, "f32"), 1, H, 1, K)
    kv = fn.bin("mul", k32, v32)  # [1, H, K, K]
    S = ("%wkv_state", (1, H, K, K), "f32")
    y = fn.matmul(r32, fn.bin("add", S, fn.bin("mul", kv, fn.fconst(w["u"].reshape(1, H, K, 1), "f32"))))  # [1, H, 1, K]
    Sn = fn.bin("add", fn.bin("mul", S, fn.reshape(decay, 1, H, K, 1)), kv)
    y = fn.reshape(fn.cast(y, "f16"), 1, 1, D)
    y = fn.bin("mul", fn.rmsnorm(y, w["gn"]), g)
    h = fn.bin("add", h, fn.linear(y, w["Wo"]))
    # Channel mix.
    x2 = fn.rmsnorm(h, w["g2"])
    prev2 = ("%ffn_shift", (1, 1, D), "f16")
    kk = fn.unary("relu", fn.linear(shift(x2, prev2, 5), w["Wck"]))
    kk = fn.bin("mul", kk, kk)
    rr = fn.unary("sigmoid", fn.linear(shift(x2, prev2, 6), w["Wcr"]))
    h = fn.bin("add", h, fn.bin("mul", rr, fn.linear(kk, w["Wcv"])))
    logits = fn.linear(fn.rmsnorm(h, w["gf"]), w["Wlm"])
    text = module([("input_ids", "tensor<1x1xsi32>", False), ("att_shift", "tensor<1x1x%dxf16>" % D, True),
                   ("wkv_state", "tensor<1x%dx%dx%dxf32>" % (H, K, K), True), ("ffn_shift", "tensor<1x1x%dxf16>" % D, True)],
                  [("logits", Fn.ty(logits)), ("att_shift", Fn.ty(x)), ("wkv_state", Fn.ty(Sn)), ("ffn_shift", Fn.ty(x2))],
                  fn, [logits, x, Sn, x2])

    def ref(tokens):
        p1, p2 = np.zeros(D), np.zeros(D)
        St = np.zeros((H, K, K))
        mu = w["mu"]
        out = []
        for tok in tokens:
            h = w["E"][tok].copy()
            x = np_rms(h, w["g1"])
            m = [x + (p1 - x) * mu[i] for i in range(5)]
            p1 = x
            r, k, v = (m[0] @ w["Wr"]).reshape(H, K), (m[1] @ w["Wk"]).reshape(H, K), (m[2] @ w["Wv"]).reshape(H, K)
            g = silu(m[3] @ w["Wg"])
            dec = np.exp(-np.exp(m[4] @ w["Wd"] + w["w0"])).reshape(H, K)
            kv = k[:, :, None] * v[:, None, :]
            y = np.einsum("hk,hkv->hv", r, St + w["u"].reshape(H, K)[:, :, None] * kv)
            St = St * dec[:, :, None] + kv
            h = h + (np_rms(y.reshape(D), w["gn"]) * g) @ w["Wo"]
            x2 = np_rms(h, w["g2"])
            ck, cr = x2 + (p2 - x2) * mu[5], x2 + (p2 - x2) * mu[6]
            p2 = x2
            kk = np.maximum(ck @ w["Wck"], 0) ** 2
            h = h + (1 / (1 + np.exp(-(cr @ w["Wcr"])))) * (kk @ w["Wcv"])
            out.append(np_rms(h, w["gf"]) @ w["Wlm"])
        return out

    return text, ref


def main():
    expected = {}
    for name, build, seed in (("lfm2", lfm2, 1), ("mamba2", mamba2, 2), ("xlstm", xlstm, 3), ("rwkv", rwkv, 4)):
        text, ref = build(np.random.default_rng(seed))
        head = "// anefix's own %s-style stand-in (synthetic weights), written by testdata/families/gen.py.\n" % name
        with open(name + ".mlir", "w") as f:
            f.write(head + text)
        expected[name] = {"tokens": TOKENS, "logits": [[round(float(x), 7) for x in l] for l in ref(TOKENS)]}
    with open("expected.json", "w") as f:
        json.dump(expected, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
