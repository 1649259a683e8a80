#!/usr/bin/python3
"""Reference vectors for anefix's interpreter and half-precision conversions.

Run with Debian's python3 + python3-numpy (not a pyenv python):

    /usr/bin/python3 testdata/numpy/gen.py testdata/numpy

It writes four gzip'd vector files (format below). `go test ./graph/interp`
re-runs this script into a temporary directory and fails when the committed
files differ from what it produces, so they are never stale.

File format (all little endian), after gzip decompression:
    magic  b"ANEFIXVEC1\n"
    records until end of file:
        u16 name length, name (UTF-8)
        u8  dtype (0 f32, 1 f16, 2 f64, 3 si32, 4 bool as u8)
        u8  rank, then rank x u32 dims
        raw element data, row-major
Records are grouped by prefix "<case>/": inputs "<case>/in0", "<case>/in1",
..., attributes as small si32 tensors "<case>/axis" etc., and the expected
result "<case>/out".

Numeric conventions (what "expected" means; the Go side implements the same):
  * f16 tensors hold IEEE binary16 values; every op rounds its result to the
    tensor's type once, to nearest even.
  * + - * / max min and comparisons: computed with numpy's own float16 or
    float32 arithmetic (correctly rounded), compared bit for bit.
  * exp, log, sqrt, rsqrt, sigmoid, silu, tanh, gelu, softplus, sin, cos:
    computed in float64 and rounded once to the result type. The Go side also
    computes in float64; differences come only from the two math libraries
    (allowed: 1 ulp of the result type).
  * Reductions and matmul/conv: products formed in float32, accumulated in
    float32 sequentially along the reduced axis (index order), the result
    rounded to the output type. "acc16" cases instead round the running sum
    to float16 after each addition (the narrow-datapath emulation).
  * softmax: in float32: m = max, e = f32(exp(x - m)) (exp in float64),
    s = sequential f32 sum of e, out = e / s, rounded to the output type.
"""

import gzip
import math
import struct
import sys
import os

import numpy as np

F32, F16, F64, I32, BOOL = np.float32, np.float16, np.float64, np.int32, np.bool_
DTYPE_CODE = {np.dtype(F32): 0, np.dtype(F16): 1, np.dtype(F64): 2, np.dtype(I32): 3, np.dtype(BOOL): 4}
MAGIC = b"ANEFIXVEC1\n"


class Writer:
    def __init__(self):
        self.parts = [MAGIC]
        self.names = set()

    def add(self, name, arr):
        arr = np.asarray(arr)
        if name in self.names:
            raise ValueError("duplicate record " + name)
        self.names.add(name)
        code = DTYPE_CODE[arr.dtype]
        nb = name.encode()
        self.parts.append(struct.pack("<H", len(nb)) + nb + struct.pack("<BB", code, arr.ndim))
        self.parts.append(struct.pack("<%dI" % arr.ndim, *arr.shape))
        if arr.dtype == BOOL:
            arr = arr.astype(np.uint8)
        self.parts.append(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes())

    def write(self, path):
        data = b"".join(self.parts)
        with open(path, "wb") as f:
            # mtime=0 and no file name keep the output byte-stable.
            f.write(gzip.compress(data, compresslevel=9, mtime=0))


def half_rounding(w, rng):
    """float32 and float64 inputs with numpy's float16 rounding of each."""
    allh = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(F16)
    finite = allh[np.isfinite(allh)]
    pos = np.unique(finite[finite > 0].astype(F64))
    # Exact ties between consecutive positive halves, and the float32
    # neighbours on either side of each tie.
    mids = ((pos[:-1] + pos[1:]) / 2).astype(F32)
    below = np.nextafter(mids, F32(0))
    above = np.nextafter(mids, F32(np.inf))
    # Ties and neighbours around the top (65504..65520) and bottom (2^-25).
    edges = np.array([65504, 65519.996, 65520, 65520.004, 65536, 1e5, 3.4e38,
                      2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0000001, 2.0 ** -26,
                      2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -11), 1e-45, 1e-40,
                      0.0, np.inf, np.nan], dtype=F32)
    rnd_bits = rng.integers(0, 1 << 32, size=5000, dtype=np.uint64).astype(np.uint32)
    rnd = rnd_bits.view(F32)
    rnd = rnd[~np.isnan(rnd)]
    # Random values across the half range, where most of the action is.
    # Scales are exact powers of two (ldexp of integer exponents): np.exp2 of
    # a float64 takes a CPU-dependent SIMD path whose last bit differs between
    # machines, which made the committed vectors depend on the generating CPU.
    span = np.ldexp(rng.standard_normal(10000), rng.integers(-27, 17, 10000)).astype(F32)
    x32 = np.concatenate([mids, below[::3], above[1::3],
                          edges, -edges, rnd, span, -mids[::11]])
    w.add("round32/in0", x32)
    w.add("round32/out", x32.astype(F16))
    # float64 values a float32 detour would round twice: just beyond a tie by
    # less than half a float32 ulp.
    m64 = ((pos[:-1] + pos[1:]) / 2)[::5]
    eps = m64 * 2.0 ** -30
    x64 = np.concatenate([m64 + eps, m64 - eps, m64,
                          np.ldexp(rng.standard_normal(4000), rng.integers(-27, 17, 4000)),
                          np.array([65519.99999, 65520.0, 2.0 ** -25 + 2.0 ** -60, np.inf, -np.inf])])
    w.add("round64/in0", x64)
    w.add("round64/out", x64.astype(F16))


def rand(rng, shape, dtype, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


SPECIALS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 65504.0, 6e-8, 1e-3]


def with_specials(x):
    flat = x.reshape(-1).copy()
    sp = np.array(SPECIALS, dtype=x.dtype)
    flat[:len(sp)] = sp
    return flat.reshape(x.shape)


def seq_reduce(x, axis, op, acc16=False):
    """Sequential float32 accumulation along axis (index order)."""
    x32 = np.moveaxis(x.astype(F32), axis, 0)
    acc = x32[0].copy()
    if acc16:
        acc = acc.astype(F16).astype(F32)
    for i in range(1, x32.shape[0]):
        acc = op(acc, x32[i]).astype(F32)
        if acc16:
            acc = acc.astype(F16).astype(F32)
    return acc


def seq_matmul(a, b, acc16=False):
    """[..., M, K] x [..., K, N]; f32 products, sequential f32 sums over K."""
    a32, b32 = a.astype(F32), b.astype(F32)
    K = a.shape[-1]
    acc = np.zeros(np.broadcast_shapes(a.shape[:-1] + (1,), b.shape[:-2] + (1, b.shape[-1])), F32)
    for k in range(K):
        prod = (a32[..., :, k:k + 1] * b32[..., k:k + 1, :]).astype(F32)
        acc = (acc + prod).astype(F32)
        if acc16:
            acc = acc.astype(F16).astype(F32)
    return acc


def f64un(fn):
    return lambda x, dt: fn(x.astype(F64)).astype(dt)


def gelu_exact(x):
    erf = np.vectorize(math.erf, otypes=[F64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    # 0.5·x·(1 + tanh(u)) written as x·sigmoid(2u): the same function without
    # the cancellation of 1 + tanh(u) for negative x.
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
    return x / (1.0 + np.exp(-2.0 * u))


def softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sigmoid": sigmoid, "silu": lambda x: x * sigmoid(x), "tanh": np.tanh,
    "gelu": gelu_exact, "gelu_tanh": gelu_tanh, "softplus": softplus,
    "sin": np.sin, "cos": np.cos, "neg": np.negative, "abs": np.abs,
    "square": np.square, "reciprocal": np.reciprocal, "relu": lambda x: np.maximum(x, 0),
    "erf": np.vectorize(math.erf, otypes=[F64]), "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "sign": np.sign,
}

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum,
    # floor_divide and mod as floor(a / b) and a - floor(a / b)·b in float64,
    # rounded once (numpy's own float floor_divide uses fmod-based steps).
    "floor_divide": lambda a, b: np.floor(a.astype(F64) / b.astype(F64)),
    "mod": lambda a, b: np.mod(a.astype(F64), b.astype(F64)),
    "pow": lambda a, b: np.power(np.abs(a).astype(F64), b.astype(F64)),
}

COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
}


def ops(w, rng):
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        # Unary: positive inputs for log/sqrt/rsqrt, wide range otherwise.
        for name, fn in UNARY.items():
            if name in ("log", "sqrt", "rsqrt", "reciprocal"):
                x = np.abs(rand(rng, (4, 33), dt, 3.0)) + dt(1e-3)
            elif name in ("exp", "sin", "cos"):
                x = rand(rng, (4, 33), dt, 4.0)
            else:
                x = rand(rng, (4, 33), dt, 5.0)
            x = with_specials(x)
            w.add("%s/%s/in0" % (name, tn), x)
            w.add("%s/%s/out" % (name, tn), fn(x.astype(F64)).astype(dt))
        # Binary with broadcasting: [3,1,5] op [4,1] -> [3,4,5], plus scalar.
        for name, fn in BINARY.items():
            a = with_specials(rand(rng, (3, 1, 5), dt, 100.0))
            b = rand(rng, (4, 1), dt, 3.0)
            b[0, 0] = 0
            if name == "pow":
                a = np.abs(a).astype(dt)
            if name in ("floor_divide", "mod", "pow"):
                b[0, 0] = dt(1.5)
            w.add("%s/%s/in0" % (name, tn), a)
            w.add("%s/%s/in1" % (name, tn), b)
            w.add("%s/%s/out" % (name, tn), fn(a, b).astype(dt))
            s = np.array(rand(rng, (), dt, 2.0))
            if name in ("floor_divide", "mod", "pow"):
                s = np.array(dt(1.75))
            w.add("%s_scalar/%s/in0" % (name, tn), a)
            w.add("%s_scalar/%s/in1" % (name, tn), s)
            w.add("%s_scalar/%s/out" % (name, tn), fn(a, s).astype(dt))
        for name, fn in COMPARE.items():
            a = rand(rng, (2, 3, 4), dt, 1.0)
            b = a.copy()
            b[0] = rand(rng, (3, 4), dt, 1.0)
            b = with_specials(b)
            w.add("%s/%s/in0" % (name, tn), a)
            w.add("%s/%s/in1" % (name, tn), b)
            w.add("%s/%s/out" % (name, tn), fn(a, b))
        c = rng.integers(0, 2, size=(2, 1, 4)).astype(BOOL)
        a = rand(rng, (2, 3, 4), dt)
        b = rand(rng, (1, 3, 1), dt)
        w.add("where/%s/in0" % tn, c)
        w.add("where/%s/in1" % tn, a)
        w.add("where/%s/in2" % tn, b)
        w.add("where/%s/out" % tn, np.where(c, a, b))
        # Reductions over one axis, keepdims.
        x = rand(rng, (3, 40, 5), dt, 2.0)
        for axis in (1, 2):
            for name, op in (("reduce_sum", np.add), ("reduce_max", np.maximum),
                             ("reduce_min", np.minimum)):
                case = "%s_ax%d/%s" % (name, axis, tn)
                w.add(case + "/in0", x)
                w.add(case + "/axis", np.array([axis], I32))
                w.add(case + "/out", np.expand_dims(seq_reduce(x, axis, op), axis).astype(dt))
            case = "reduce_mean_ax%d/%s" % (axis, tn)
            w.add(case + "/in0", x)
            w.add(case + "/axis", np.array([axis], I32))
            s = seq_reduce(x, axis, np.add)
            w.add(case + "/out", np.expand_dims((s / F32(x.shape[axis])).astype(F32), axis).astype(dt))
        xp = (1 + rand(rng, (2, 12), dt, 0.1)).astype(dt)
        w.add("reduce_product_ax1/%s/in0" % tn, xp)
        w.add("reduce_product_ax1/%s/axis" % tn, np.array([1], I32))
        w.add("reduce_product_ax1/%s/out" % tn, np.expand_dims(seq_reduce(xp, 1, np.multiply), 1).astype(dt))
        if dt == F16:
            case = "reduce_sum_acc16_ax1/f16"
            w.add(case + "/in0", x)
            w.add(case + "/axis", np.array([1], I32))
            w.add(case + "/out", np.expand_dims(seq_reduce(x, 1, np.add, acc16=True), 1).astype(dt))
        # softmax over the last axis.
        x = rand(rng, (3, 4, 17), dt, 3.0)
        x32 = x.astype(F32)
        m = x32.max(axis=-1, keepdims=True)
        e = np.exp((x32 - m).astype(F32).astype(F64)).astype(F32)
        s = np.expand_dims(seq_reduce(e, 2, np.add), 2)
        w.add("softmax/%s/in0" % tn, x)
        w.add("softmax/%s/axis" % tn, np.array([-1], I32))
        w.add("softmax/%s/out" % tn, (e / s).astype(F32).astype(dt))
        # matmul: batched with broadcasting, and the decode shape 1xK x KxN.
        for case, sa, sb in (("matmul", (2, 3, 24), (2, 24, 5)), ("matmul_bcast", (2, 3, 24), (24, 7)),
                             ("matmul_vec", (1, 64), (64, 48))):
            a = rand(rng, sa, dt, 1.0)
            b = rand(rng, sb, dt, 0.2)
            w.add("%s/%s/in0" % (case, tn), a)
            w.add("%s/%s/in1" % (case, tn), b)
            w.add("%s/%s/out" % (case, tn), seq_matmul(a, b).astype(dt))
            if dt == F16 and case == "matmul_vec":
                w.add("matmul_vec_acc16/f16/in0", a)
                w.add("matmul_vec_acc16/f16/in1", b)
                w.add("matmul_vec_acc16/f16/out", seq_matmul(a, b, acc16=True).astype(dt))
        # conv, NCHW / OIHW. 1x1: a projection. Depthwise k=4 causal on
        # [N, C, 1, L] with left padding 3 (the short conv of a linear-attention
        # layer). Accumulation order: input channel, kh, kw.
        x = rand(rng, (1, 16, 1, 3), dt, 1.0)
        wt = rand(rng, (8, 16, 1, 1), dt, 0.3)
        w.add("conv1x1/%s/in0" % tn, x)
        w.add("conv1x1/%s/in1" % tn, wt)
        out = seq_matmul(np.transpose(wt[:, :, 0, 0])[None, :, :].transpose(0, 2, 1), x[:, :, 0, :])
        w.add("conv1x1/%s/out" % tn, out[:, :, None, :].astype(dt))
        C, L, Kw = 6, 9, 4
        x = rand(rng, (1, C, 1, L), dt, 1.0)
        wt = rand(rng, (C, 1, 1, Kw), dt, 0.5)
        xp = np.concatenate([np.zeros((1, C, 1, Kw - 1), dt), x], axis=3).astype(F32)
        acc = np.zeros((1, C, 1, L), F32)
        for k in range(Kw):
            acc = (acc + (xp[:, :, :, k:k + L] * wt[:, :, :, k:k + 1].astype(F32)[None, :, :, :].reshape(1, C, 1, 1)).astype(F32)).astype(F32)
        w.add("conv_dw_causal/%s/in0" % tn, x)
        w.add("conv_dw_causal/%s/in1" % tn, wt)
        w.add("conv_dw_causal/%s/pad" % tn, np.array([0, 0, Kw - 1, 0], I32))
        w.add("conv_dw_causal/%s/groups" % tn, np.array([C], I32))
        w.add("conv_dw_causal/%s/out" % tn, acc.astype(dt))
    # Data movement (exact): transpose, concat, slice with strides,
    # slice_update, gather, gather_nd, scatter_nd, split, broadcast.
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        x = rand(rng, (2, 3, 4, 5), dt)
        w.add("transpose/%s/in0" % tn, x)
        w.add("transpose/%s/perm" % tn, np.array([2, 0, 3, 1], I32))
        w.add("transpose/%s/out" % tn, np.transpose(x, (2, 0, 3, 1)))
        y = rand(rng, (2, 2, 4, 5), dt)
        w.add("concat/%s/in0" % tn, x)
        w.add("concat/%s/in1" % tn, y)
        w.add("concat/%s/axis" % tn, np.array([1], I32))
        w.add("concat/%s/out" % tn, np.concatenate([x, y], axis=1))
        w.add("slice/%s/in0" % tn, x)
        w.add("slice/%s/begin" % tn, np.array([1, 0, 1, 4], I32))
        w.add("slice/%s/stride" % tn, np.array([1, 2, 2, -2], I32))
        w.add("slice/%s/out" % tn, x[1:2, 0::2, 1::2, 4::-2])
        u = rand(rng, (1, 2, 2, 5), dt)
        z = x.copy()
        z[1:2, 1:3, 2:4, :] = u
        w.add("slice_update/%s/in0" % tn, x)
        w.add("slice_update/%s/in1" % tn, u)
        w.add("slice_update/%s/begin" % tn, np.array([1, 1, 2, 0], I32))
        w.add("slice_update/%s/out" % tn, z)
        idx = np.array([[3, 0], [-1, 2]], I32)
        w.add("gather/%s/in0" % tn, x)
        w.add("gather/%s/in1" % tn, idx)
        w.add("gather/%s/axis" % tn, np.array([2], I32))
        w.add("gather/%s/out" % tn, np.take(x, np.where(idx < 0, idx + 4, idx), axis=2))
        ind = np.array([[[1, 2], [0, 0]], [[1, 1], [0, 2]]], I32)
        w.add("gather_nd/%s/in0" % tn, x)
        w.add("gather_nd/%s/in1" % tn, ind)
        w.add("gather_nd/%s/out" % tn, x[ind[..., 0], ind[..., 1]])
        upd = rand(rng, (2, 4, 5), dt)
        sc = x.copy()
        sc[1, 2] = upd[0]
        sc[0, 1] = upd[1]
        w.add("scatter_nd/%s/in0" % tn, x)
        w.add("scatter_nd/%s/in1" % tn, np.array([[1, 2], [0, 1]], I32))
        w.add("scatter_nd/%s/in2" % tn, upd)
        w.add("scatter_nd/%s/out" % tn, sc)
        parts = np.split(x, [1, 4], axis=3)
        w.add("split/%s/in0" % tn, x)
        w.add("split/%s/sizes" % tn, np.array([1, 3, 1], I32))
        w.add("split/%s/axis" % tn, np.array([3], I32))
        for i, part in enumerate(parts):
            w.add("split/%s/out%d" % (tn, i), part)
        b = rand(rng, (3, 1, 5), dt)
        w.add("broadcast_to/%s/in0" % tn, b)
        w.add("broadcast_to/%s/out" % tn, np.broadcast_to(b, (2, 3, 4, 5)).copy())
    # Casts.
    x = rand(rng, (50,), F32, 1000.0)
    w.add("cast_f32_si32/in0", x)
    w.add("cast_f32_si32/out", np.trunc(x).astype(I32))
    i = rng.integers(-70000, 70000, size=(50,)).astype(I32)
    w.add("cast_si32_f16/in0", i)
    w.add("cast_si32_f16/out", i.astype(F64).astype(F16))
    w.add("cast_si32_f32/in0", i)
    w.add("cast_si32_f32/out", i.astype(F32))


def gated_delta(w, rng, dt, tn, T=64, H=2, Dk=8, Dv=6):
    """Gated-delta recurrence, one token per step, per head h:

        S_h      : [Dk, Dv]       state (rec_state), starts at zero
        q_t, k_t : [H, Dk]        (k L2-normalised, q scaled by 1/sqrt(Dk))
        v_t      : [H, Dv]
        beta_t   : [H]            in (0, 1)
        g_t      : [H]            log decay, <= 0
        S'  = exp(g) * S
        u   = k^T S'              [Dv]  (u_j = sum_i k_i S'_ij)
        S   = S' + outer(k, beta * (v - u))
        o_t = q^T S               [Dv]

    dt = float16: every intermediate is rounded to half (each elementwise op
    rounds once; the two contractions accumulate in float32 sequentially over
    i and round once), i.e. the fp16-only recurrence. dt = float32: all in
    float32. Records: q [T,H,Dk], k [T,H,Dk], v [T,H,Dv], beta [T,H], g [T,H],
    out [T,H,Dv], state [H,Dk,Dv] (final S).
    """
    q = rng.standard_normal((T, H, Dk))
    k = rng.standard_normal((T, H, Dk))
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True) / math.sqrt(Dk)
    v = rng.standard_normal((T, H, Dv))
    beta = 1.0 / (1.0 + np.exp(-rng.standard_normal((T, H))))
    g = -np.exp(rng.standard_normal((T, H)) * 0.5 - 2.0)
    q, k, v, beta, g = (a.astype(dt) for a in (q, k, v, beta, g))
    S = np.zeros((H, Dk, Dv), dt)
    outs = np.zeros((T, H, Dv), dt)

    def contract(a, M):  # a [H, Dk], M [H, Dk, Dv] -> [H, Dv], f32 sequential over Dk
        acc = np.zeros((H, Dv), F32)
        for i in range(Dk):
            acc = (acc + (a[:, i:i + 1].astype(F32) * M[:, i, :].astype(F32)).astype(F32)).astype(F32)
        return acc.astype(dt)

    for t in range(T):
        decay = np.exp(g[t].astype(F64)).astype(dt)           # [H]
        Sd = (S * decay[:, None, None]).astype(dt)
        u = contract(k[t], Sd)
        delta = ((v[t] - u).astype(dt) * beta[t][:, None]).astype(dt)
        S = (Sd + (k[t][:, :, None] * delta[:, None, :]).astype(dt)).astype(dt)
        outs[t] = contract(q[t], S)
    for name, a in (("q", q), ("k", k), ("v", v), ("beta", beta), ("g", g), ("out", outs), ("state", S)):
        w.add("gated_delta/%s/%s" % (tn, name), a)


def quant(w, rng):
    """The compression ops (graph/interp/quant.go states the formulas): each
    computed in float64 from its operand values and rounded once to the
    result type. Quantized integers are stored as si32 records; the case name
    says their IR type (si8, ui8, si4, ui4)."""
    qrange = {"si8": (-128, 127), "ui8": (0, 255), "si4": (-8, 7), "ui4": (0, 15)}
    for qt in ("si8", "ui8", "si4"):
        lo, hi = qrange[qt]
        for dt, tn in ((F32, "f32"), (F16, "f16")):
            # dequantize: per channel along axis 1, zero point in offset1.
            c = "dequantize/%s_%s" % (qt, tn)
            q = rng.integers(lo, hi + 1, size=(3, 4, 5)).astype(I32)
            scale = (rng.random(4) * 0.1 + 0.01).astype(dt)
            off1 = rng.integers(lo, hi + 1, size=4).astype(I32)
            off2 = rand(rng, (4,), dt, 0.5)
            sh = (1, 4, 1)
            out = scale.astype(F64).reshape(sh) * (q.astype(F64) - off1.reshape(sh)) + off2.astype(F64).reshape(sh)
            for k, v in (("in0", q), ("scale", scale), ("off1", off1), ("off2", off2), ("axis", np.array([1], I32)), ("out", out.astype(dt))):
                w.add("%s/%s" % (c, k), v)
            # quantize: per tensor scale, minval in offset2, q_min in offset1,
            # values beyond the range clip.
            c = "quantize/%s_%s" % (tn, qt)
            x = rand(rng, (6, 7), dt, 2.0)
            x[0, 0], x[0, 1] = 1e4, -1e4
            scale = np.array([0.05], dt)
            off1 = np.array([lo], I32)
            off2 = np.array([-1.5], dt)
            out = np.clip(np.rint((x.astype(F64) - off2.astype(F64)) / scale.astype(F64)) + off1, lo, hi)
            for k, v in (("in0", x), ("scale", scale), ("off1", off1), ("off2", off2), ("axis", np.array([0], I32)), ("out", out.astype(I32))):
                w.add("%s/%s" % (c, k), v)
            # blockwise_shift_scale: [4, 8] data, [2, 2] scales (blocks 2x4).
            c = "blockwise_shift_scale/%s_%s" % (qt, tn)
            q = rng.integers(lo, hi + 1, size=(4, 8)).astype(I32)
            scale = (rng.random((2, 2)) * 0.1 + 0.01).astype(dt)
            off1 = rng.integers(lo, hi + 1, size=(2, 2)).astype(I32)
            off2 = rand(rng, (2, 2), dt, 0.5)
            rep = lambda a: np.repeat(np.repeat(a, 2, axis=0), 4, axis=1)
            out = rep(scale.astype(F64)) * (q.astype(F64) - rep(off1)) + rep(off2.astype(F64))
            for k, v in (("in0", q), ("scale", scale), ("off1", off1), ("off2", off2), ("out", out.astype(dt))):
                w.add("%s/%s" % (c, k), v)
    # lut_to_dense: ui4 indices [4, 6]; two scalar palettes along axis 0
    # (lut [2, 1, 16, 1]); one vector palette of 2 entries filled along
    # axis 1 (lut [1, 1, 16, 2], output [4, 12]).
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        ind = rng.integers(0, 16, size=(4, 6)).astype(I32)
        lut = rand(rng, (2, 1, 16, 1), dt)
        out = np.empty((4, 6), dt)
        for i in range(4):
            for j in range(6):
                out[i, j] = lut[i // 2, 0, ind[i, j], 0]
        c = "lut_to_dense/%s" % tn
        for k, v in (("in0", ind), ("in1", lut), ("axis", np.array([0], I32)), ("out", out)):
            w.add("%s/%s" % (c, k), v)
        lut = rand(rng, (1, 1, 16, 2), dt)
        out = np.empty((4, 12), dt)
        for i in range(4):
            for j in range(6):
                out[i, 2 * j:2 * j + 2] = lut[0, 0, ind[i, j], :]
        c = "lut_to_dense_vec/%s" % tn
        for k, v in (("in0", ind), ("in1", lut), ("axis", np.array([1], I32)), ("out", out)):
            w.add("%s/%s" % (c, k), v)


def pack_lsb(vals, bits):
    """Core AI's packed sub-byte storage, written the way
    apple/coreai-torch coreai_torch/_compression/_intx.py's _pack_uint1/2/4/6
    spell it out (1: bit i of byte i//8; 2: four values per byte, the first in
    bits 0-1; 4: low nibble first; 6: four values in three bytes, data0 |
    data1 << 6, data1 >> 2 | data2 << 4, data2 >> 4 | data3 << 2; 8: one byte
    each) and, for 3 bits (no case there; anefix's guess), the same
    little-endian bit stream. Returns the bytes."""
    v = np.asarray(vals, dtype=np.uint8).reshape(-1)
    if bits == 8:
        return v.copy()
    if bits == 4:
        if len(v) % 2:
            v = np.concatenate([v, np.zeros(1, np.uint8)])
        return (v[1::2] << 4 | v[0::2]).astype(np.uint8)
    if bits == 2:
        v = np.concatenate([v, np.zeros((-len(v)) % 4, np.uint8)])
        return (v[3::4] << 6 | v[2::4] << 4 | v[1::4] << 2 | v[0::4]).astype(np.uint8)
    if bits == 1:
        v = np.concatenate([v, np.zeros((-len(v)) % 8, np.uint8)]).reshape(-1, 8)
        return (v * (2 ** np.arange(8, dtype=np.uint8))).sum(axis=1).astype(np.uint8)
    if bits == 6:
        v = np.concatenate([v, np.zeros((-len(v)) % 4, np.uint8)])
        d0, d1, d2, d3 = v[0::4], v[1::4], v[2::4], v[3::4]
        b0 = (d0 | (d1 << 6)) & 0xFF
        b1 = ((d1 >> 2) | (d2 << 4)) & 0xFF
        b2 = ((d2 >> 4) | (d3 << 2)) & 0xFF
        return np.stack([b0, b1, b2], axis=1).reshape(-1).astype(np.uint8)
    out = bytearray((len(v) * bits + 7) // 8)
    for i, x in enumerate(v):
        for b in range(bits):
            if (int(x) >> b) & 1:
                k = i * bits + b
                out[k // 8] |= 1 << (k % 8)
    return np.frombuffer(bytes(out), dtype=np.uint8)


def f8e4m3fn_values():
    """The value of each f8E4M3FN byte (NaN for 0x7F and 0xFF)."""
    out = np.zeros(256, F64)
    for b in range(256):
        s = -1.0 if b & 0x80 else 1.0
        e, m = (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            out[b] = np.nan
        elif e == 0:
            out[b] = s * m * 2.0 ** -9
        else:
            out[b] = s * (1 + m / 8) * 2.0 ** (e - 7)
    return out


def packed(w, rng):
    """Palette indices and linear INT4 data in Core AI's packed storage, as
    the IR holds them (dense_resource bytes): lut_to_dense over every index
    width palettize writes, with f16, si8, ui8 and f8E4M3FN palettes (one
    per group of 4 rows, lut [2, 1, 2^bits, 1], or vectors of 2 along axis
    0, lut [1, 1, 2^bits, 2]), and blockwise_shift_scale of packed si4 and
    ui4 data. Bytes and integers are si32 records; f8 palettes are bytes."""
    f8 = f8e4m3fn_values()
    for bits in (1, 2, 3, 4, 6, 8):
        p = 1 << bits
        for lt in ("f16", "si8", "ui8", "f8E4M3FN"):
            ind = rng.integers(0, p, size=(8, 5))
            if lt == "f16":
                lut = rand(rng, (2, 1, p, 1), F16)
                vals = lut.astype(F64)
            elif lt == "si8":
                lut = rng.integers(-128, 128, size=(2, 1, p, 1)).astype(I32)
                vals = lut
            elif lt == "ui8":
                lut = rng.integers(0, 256, size=(2, 1, p, 1)).astype(I32)
                vals = lut
            else:
                lut = rng.choice(np.array([b for b in range(256) if b not in (0x7F, 0xFF)]), size=(2, 1, p, 1)).astype(I32)
                vals = f8[lut]
            out = np.empty((8, 5), F64)
            for i in range(8):
                for j in range(5):
                    out[i, j] = vals[i // 4, 0, ind[i, j], 0]
            c = "lut/%d_%s" % (bits, lt)
            w.add(c + "/bytes", pack_lsb(ind, bits).astype(I32))
            w.add(c + "/lut", lut)
            w.add(c + "/out", out.astype(F16) if lt in ("f16", "f8E4M3FN") else out.astype(I32))
        # vector palettes: 2 values per index filled along axis 0
        ind = rng.integers(0, p, size=(3, 4))
        lut = rand(rng, (1, 1, p, 2), F16)
        out = np.empty((6, 4), F16)
        for i in range(3):
            for j in range(4):
                out[2 * i:2 * i + 2, j] = lut[0, 0, ind[i, j], :]
        c = "lutvec/%d" % bits
        w.add(c + "/bytes", pack_lsb(ind, bits).astype(I32))
        w.add(c + "/lut", lut)
        w.add(c + "/out", out)
    for qt, lo, hi in (("si4", -8, 7), ("ui4", 0, 15)):
        q = rng.integers(lo, hi + 1, size=(4, 6))
        scale = (rng.random((4, 2)) * 0.1 + 0.01).astype(F16)
        off1 = rng.integers(lo, hi + 1, size=(4, 2))
        off2 = rand(rng, (4, 2), F16, 0.1)
        rep = lambda a: np.repeat(a, 3, axis=1)
        out = rep(scale.astype(F64)) * (q.astype(F64) - rep(off1)) + rep(off2.astype(F64))
        c = "bss/%s" % qt
        w.add(c + "/bytes", pack_lsb(q & 15, 4).astype(I32))
        w.add(c + "/scale", scale)
        w.add(c + "/off1", off1.astype(I32))
        w.add(c + "/off2", off2)
        w.add(c + "/out", out.astype(F16))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with np.errstate(all="ignore"):
        w = Writer()
        half_rounding(w, np.random.default_rng(1))
        w.write(os.path.join(out, "f16_round.vec.gz"))
        w = Writer()
        ops(w, np.random.default_rng(2))
        quant(w, np.random.default_rng(4))
        w.write(os.path.join(out, "ops.vec.gz"))
        w = Writer()
        gated_delta(w, np.random.default_rng(3), F32, "f32")
        gated_delta(w, np.random.default_rng(3), F16, "f16")
        w.write(os.path.join(out, "gated_delta.vec.gz"))
        w = Writer()
        packed(w, np.random.default_rng(5))
        w.write(os.path.join(out, "packed.vec.gz"))


if __name__ == "__main__":
    main()
