#!/usr/bin/python3
"""Reference vectors for anefix's interpreter and half-precision conversions.

Run with Debian's python3 + python3-numpy (not a pyenv python):

    /usr/bin/python3 testdata/numpy/gen.py testdata/numpy

It writes gzip'd vector files (format below; zoo.vec.gz holds the op
zoo's cases). `go test ./graph/interp`
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
            # One NaN for every NaN: which operand's NaN numpy's SIMD and
            # scalar loops pass on differs, and which loop runs depended on
            # where the arrays sat in memory (the environment's size moved
            # it: go test's longer PATH flipped silu's and softplus's NaN
            # sign). The Go side compares NaN as NaN, whatever its bits.
            out = fn(x.astype(F64)).astype(dt)
            out[np.isnan(out)] = np.nan
            w.add("%s/%s/out" % (name, tn), out)
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


def seq_sum(vals):
    """Sequential float32 sum from -0 (the interpreter's reductions)."""
    acc = F32(-0.0)
    for v in vals:
        acc = F32(acc + F32(v))
    return acc


def stable_order(row, descending):
    """Positions of row in torch.sort's order, stable: NaN after every
    number ascending (first descending), -0 equal to +0."""
    def key(i):
        v = float(row[i])
        if math.isnan(v):
            return (1, 0.0) if not descending else (0, 0.0)
        return (0, v) if not descending else (1, -v)
    return sorted(range(len(row)), key=key)


def ops2(w, rng):
    """The ops added after ops.vec.gz was fixed (kept in ops2.vec.gz so that
    its random streams, and its records, stay as they are). Case names are
    "<op>/<type>[/<variant>]"; graph/interp/numpy_ops2_test.go maps each to
    the coreai op and its operand records. Conventions as above; in
    particular each elementwise result is computed in float64 (fmod is exact)
    and rounded once, sums accumulate in float32 in index order from -0
    (reductions, sum_pool, scan) or from +0 (conv), data movement is exact,
    and every rule the interpreter guesses (graph/interp/spatial.go,
    selection.go) is written out here the same way."""
    INV = {
        "acos": (np.arccos, 1.2), "asin": (np.arcsin, 1.2), "atan": (np.arctan, 5.0),
        "atanh": (np.arctanh, 1.2), "asinh": (np.arcsinh, 5.0), "acosh": (np.arccosh, 3.0),
        "sinh": (np.sinh, 4.0), "cosh": (np.cosh, 4.0), "tan": (np.tan, 2.0),
    }
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        for name, (fn, scale) in INV.items():
            x = rand(rng, (4, 33), dt, scale)
            if name == "acosh":
                x = (np.abs(x) + dt(0.9)).astype(dt)
            x = with_specials(x)
            w.add("%s/%s/in0" % (name, tn), x)
            # One NaN for every NaN, as in ops().
            out = fn(x.astype(F64)).astype(dt)
            out[np.isnan(out)] = np.nan
            w.add("%s/%s/out" % (name, tn), out)
        # modulo is fmod: the dividend's sign; fmod is exact.
        a = with_specials(rand(rng, (3, 1, 5), dt, 20.0))
        b = rand(rng, (4, 1), dt, 3.0)
        b[0, 0] = 0
        b[1, 0] = -b[1, 0] if b[1, 0] > 0 else b[1, 0]
        a[1, 0, 0] = dt(-3.0)
        b[2, 0] = dt(3.0)
        w.add("modulo/%s/in0" % tn, a)
        w.add("modulo/%s/in1" % tn, b)
        w.add("modulo/%s/out" % tn, np.fmod(a.astype(F64), b.astype(F64)).astype(dt))
    ai = rng.integers(-50, 50, size=(3, 1, 5)).astype(I32)
    bi = rng.integers(1, 9, size=(4, 1)).astype(I32) * np.array([[1], [-1], [1], [-1]], I32)
    w.add("modulo/si32/in0", ai)
    w.add("modulo/si32/in1", bi)
    w.add("modulo/si32/out", np.fmod(ai, bi).astype(I32))
    for name, fn in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)):
        a = rng.integers(-2 ** 31, 2 ** 31, size=(3, 1, 5), dtype=np.int64).astype(I32)
        b = rng.integers(-2 ** 31, 2 ** 31, size=(4, 1), dtype=np.int64).astype(I32)
        w.add("%s/si32/in0" % name, a)
        w.add("%s/si32/in1" % name, b)
        w.add("%s/si32/out" % name, fn(a, b))
    for name, fn in (("and", np.logical_and), ("or", np.logical_or), ("xor", np.logical_xor)):
        a = rng.integers(0, 2, size=(2, 1, 4)).astype(BOOL)
        b = rng.integers(0, 2, size=(3, 1)).astype(BOOL)
        w.add("%s/i1/in0" % name, a)
        w.add("%s/i1/in1" % name, b)
        w.add("%s/i1/out" % name, fn(a, b))
    a = rng.integers(0, 2, size=(2, 3)).astype(BOOL)
    w.add("not/i1/in0", a)
    w.add("not/i1/out", np.logical_not(a))

    # Data movement (exact), in f32, f16 and si32.
    for dt, tn in ((F32, "f32"), (F16, "f16"), (I32, "si32")):
        if dt == I32:
            x = rng.integers(-100, 100, size=(2, 3, 4)).astype(I32)
        else:
            x = rand(rng, (2, 3, 4), dt)
        w.add("tile/%s/in0" % tn, x)
        w.add("tile/%s/reps" % tn, np.array([2, 1, 3], I32))
        w.add("tile/%s/out" % tn, np.tile(x, (2, 1, 3)))
        w.add("reverse/%s/in0" % tn, x)
        w.add("reverse/%s/axes" % tn, np.array([0, -1], I32))
        w.add("reverse/%s/out" % tn, np.flip(x, axis=(0, 2)).copy())
        pads = np.array([0, 0, 1, 2, 2, 1], I32)
        npp = ((0, 0), (1, 2), (2, 1))
        for mode, npmode in (("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge")):
            c = "pad/%s/%s" % (tn, mode)
            w.add(c + "/in0", x)
            w.add(c + "/pads", pads)
            fill = np.array(dt(7) if dt == I32 else dt(1.5), dt)
            w.add(c + "/value", fill)
            if npmode == "constant":
                out = np.pad(x, npp, mode="constant", constant_values=fill)
            else:
                out = np.pad(x, npp, mode=npmode)
            w.add(c + "/out", out)
        y = x[:1, :, :1]
        w.add("broadcast_in_dims/%s/in0" % tn, y)
        w.add("broadcast_in_dims/%s/sizes" % tn, np.array([2, 5], I32))
        w.add("broadcast_in_dims/%s/axes" % tn, np.array([0, -1], I32))
        w.add("broadcast_in_dims/%s/out" % tn, np.broadcast_to(y, (2, 3, 5)).copy())
        w.add("get_shape/%s/in0" % tn, x)
        w.add("get_shape/%s/out" % tn, np.array(x.shape, I32))
        # gather_along_axis: indices smaller than the data off the axis,
        # negative ones counting from the end.
        idx = rng.integers(-3, 3, size=(2, 5, 3)).astype(I32)
        w.add("gather_along_axis/%s/in0" % tn, x)
        w.add("gather_along_axis/%s/indices" % tn, idx)
        w.add("gather_along_axis/%s/axis" % tn, np.array(1, I32))
        w.add("gather_along_axis/%s/out" % tn, np.take_along_axis(x[:, :, :3], np.where(idx < 0, idx + 3, idx), axis=1))
        # scatter_along_axis along axis 0 of [3, 5] with repeated indices:
        # updates applied in row-major order of the indices (the last wins
        # for update), each result rounded to the data's type.
        base = x.reshape(-1)[:15].reshape(3, 5).copy()
        sidx = np.array([[0, 2, 2, 1, 0], [0, 1, 2, 1, -1]], I32)
        upd = (rng.integers(-9, 9, size=(3, 6)).astype(I32) if dt == I32 else rand(rng, (3, 6), dt))
        for mode in ("update", "add", "mul"):
            c = "scatter_along_axis/%s/%s" % (tn, mode)
            out = base.copy()
            for i in range(2):
                for j in range(5):
                    r = sidx[i, j] % 3
                    u = upd[i, j]
                    if dt == I32:
                        v = {"update": u, "add": out[r, j] + u, "mul": out[r, j] * u}[mode]
                        out[r, j] = v
                    else:
                        o32, u32 = F32(out[r, j]), F32(u)
                        v = {"update": u32, "add": F32(u32 + o32), "mul": F32(u32 * o32)}[mode]
                        out[r, j] = dt(v)
            for k, v in (("in0", base), ("indices", sidx), ("updates", upd), ("axis", np.array(0, I32)), ("out", out)):
                w.add("%s/%s" % (c, k), v)

    # Shapes and ranges (integers).
    w.add("broadcast_shapes/si32/in0", np.array([3, 1, 5], I32))
    w.add("broadcast_shapes/si32/in1", np.array([4, 1], I32))
    w.add("broadcast_shapes/si32/out", np.array(np.broadcast_shapes((3, 1, 5), (4, 1)), I32))
    for c, (s, e, k) in (("range/si32", (2, 17, 3)), ("range/si32/down", (5, -6, -2)), ("range/si32/empty", (4, 4, 1))):
        n = max(0, -(-(e - s) // k))
        w.add(c + "/start", np.array(s, I32))
        w.add(c + "/end", np.array(e, I32))
        w.add(c + "/step", np.array(k, I32))
        w.add(c + "/out", (s + np.arange(n, dtype=np.int64) * k).astype(I32))
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        s, e, k = dt(0.5), dt(3.0), dt(0.2)
        n = int(math.ceil((float(e) - float(s)) / float(k)))
        w.add("range/%s/start" % tn, np.array(s, dt))
        w.add("range/%s/end" % tn, np.array(e, dt))
        w.add("range/%s/step" % tn, np.array(k, dt))
        w.add("range/%s/out" % tn, (float(s) + np.arange(n, dtype=F64) * float(k)).astype(dt))

    # Selections: argmax (first of equal maxima, NaN the largest), sort and
    # argsort (stable), any, non_zero.
    for dt, tn in ((F32, "f32"), (F16, "f16"), (I32, "si32")):
        if dt == I32:
            x = rng.integers(-4, 4, size=(3, 8)).astype(I32)
        else:
            x = rand(rng, (3, 8), dt)
            x[0, 2] = x[0, 5] = dt(9.0)
            x[1, 3], x[1, 6] = dt(np.nan), dt(np.nan)
            x[2, 1], x[2, 4], x[2, 7] = dt(0.0), dt(-0.0), dt(0.0)
            x[2, 0] = x[2, 6] = dt(-1.0)
        for axis in (0, 1):
            am = np.zeros([3, 8][1 - axis], np.int64)
            for r in range(len(am)):
                line = x[r, :] if axis == 1 else x[:, r]
                best = 0
                for k in range(1, len(line)):
                    if line[best] != line[best]:
                        break
                    if line[k] > line[best] or line[k] != line[k]:
                        best = k
                am[r] = best
            c = "argmax/%s/ax%d" % (tn, axis)
            w.add(c + "/in0", x)
            w.add(c + "/axis", np.array(axis, I32))
            w.add(c + "/out", np.expand_dims(am, axis).astype(I32))
        for desc in (False, True):
            order = np.array([stable_order(x[r], desc) for r in range(3)])
            c = "%s/%s/%s" % ("sort", tn, "desc" if desc else "asc")
            w.add(c + "/in0", x)
            w.add(c + "/axis", np.array(-1, I32))
            w.add(c + "/descending", np.array(desc))
            w.add(c + "/sorted", np.array(True))
            w.add(c + "/out", np.take_along_axis(x, order, axis=1))
            c = "%s/%s/%s" % ("argsort", tn, "desc" if desc else "asc")
            w.add(c + "/in0", x)
            w.add(c + "/axis", np.array(-1, I32))
            w.add(c + "/descending", np.array(desc))
            w.add(c + "/sorted", np.array(True))
            w.add(c + "/out", order.astype(I32))
        nz = x.copy()
        nz[0, :3] = 0
        w.add("non_zero/%s/in0" % tn, nz)
        w.add("non_zero/%s/out" % tn, np.argwhere(nz != 0).astype(I32))
    b = rng.integers(0, 2, size=(2, 3, 4)).astype(BOOL)
    b[1] = False
    for c, axes in (("any/i1/ax1", [1]), ("any/i1/ax02", [0, 2]), ("any/i1/all", [0, 1, 2])):
        w.add(c + "/in0", b)
        w.add(c + "/axes", np.array(axes, I32))
        w.add(c + "/out", np.any(b, axis=tuple(axes), keepdims=True))

    # scan (cumsum): sequential float32 running sums from -0, each rounded.
    for dt, tn in ((F32, "f32"), (F16, "f16")):
        x = rand(rng, (3, 40), dt, 2.0)
        for axis in (0, 1):
            xm = np.moveaxis(x.astype(F32), axis, 0)
            out = np.empty_like(xm)
            acc = np.full(xm.shape[1:], F32(-0.0), F32)
            for i in range(xm.shape[0]):
                acc = (acc + xm[i]).astype(F32)
                out[i] = acc
            c = "scan/%s/ax%d" % (tn, axis)
            w.add(c + "/in0", x)
            w.add(c + "/axis", np.array(axis, I32))
            w.add(c + "/flag", np.array(False))
            w.add(c + "/out", np.moveaxis(out, 0, axis).astype(dt))
        if dt == F16:
            out = np.empty((3, 40), F32)
            acc = np.full(3, F32(-0.0), F32)
            for i in range(40):
                acc = (acc + x[:, i].astype(F32)).astype(F16).astype(F32)
                out[:, i] = acc
            w.add("scan/f16/acc16/in0", x)
            w.add("scan/f16/acc16/axis", np.array(1, I32))
            w.add("scan/f16/acc16/flag", np.array(False))
            w.add("scan/f16/acc16/out", out.astype(F16))
    xi = rng.integers(-100, 100, size=(3, 6)).astype(I32)
    w.add("scan/si32/ax1/in0", xi)
    w.add("scan/si32/ax1/axis", np.array(1, I32))
    w.add("scan/si32/ax1/flag", np.array(False))
    w.add("scan/si32/ax1/out", np.cumsum(xi, axis=1).astype(I32))

    # Pools, conv3d, conv_transpose2d, interpolate.
    def windows(shape, k, s, d, ceil):
        """Per spatial axis, the input positions of each output's window."""
        out = []
        for n, kk, ss, dd in zip(shape, k, s, d):
            span = dd * (kk - 1) + 1
            q = (n - span) // ss
            if ceil and (n - span) % ss != 0 and q * ss + ss < n:
                q += 1
            out.append([[o * ss + t * dd for t in range(kk) if o * ss + t * dd < n] for o in range(q + 1)])
        return out

    def pool(x, k, s, d, ceil, fn):
        N, C = x.shape[:2]
        wins = windows(x.shape[2:], k, s, d, ceil)
        out = np.empty([N, C] + [len(a) for a in wins], F32)
        for n in range(N):
            for c in range(C):
                for pos in np.ndindex(*[len(a) for a in wins]):
                    idx = [wins[a][p] for a, p in enumerate(pos)]
                    vals = [x[(n, c) + t].astype(F32) for t in __import__("itertools").product(*idx)]
                    out[(n, c) + pos] = fn(vals)
        return out

    def vmax(vals):
        m = F32(-np.inf)
        for v in vals:
            if v > m or v != v:
                m = v
                if v != v:
                    break
        return m

    for dt, tn in ((F32, "f32"), (F16, "f16")):
        x = rand(rng, (1, 2, 7, 8), dt)
        x[0, 1, 3, 3] = dt(np.nan)
        for c, k, s, d, ceil in (("max_pool_2d/%s/k3s2" % tn, [3, 3], [2, 2], [1, 1], False),
                                 ("max_pool_2d/%s/ceil" % tn, [3, 3], [2, 3], [1, 1], True),
                                 ("max_pool_2d/%s/dil" % tn, [2, 3], [1, 2], [2, 2], False)):
            for kk, v in (("in0", x), ("kernel", np.array(k, I32)), ("stride", np.array(s, I32)),
                          ("dilation", np.array(d, I32)), ("ceil", np.array(ceil)),
                          ("out", pool(x, k, s, d, ceil, vmax).astype(dt))):
                w.add("%s/%s" % (c, kk), v)
        x = rand(rng, (1, 2, 6, 7), dt)
        c = "sum_pool_2d/%s" % tn
        for kk, v in (("in0", x), ("kernel", np.array([3, 2], I32)), ("stride", np.array([2, 2], I32)),
                      ("dilation", np.array([1, 2], I32)), ("out", pool(x, [3, 2], [2, 2], [1, 2], False, seq_sum).astype(dt))):
            w.add("%s/%s" % (c, kk), v)
        x = rand(rng, (1, 2, 4, 5, 4), dt)
        c = "sum_pool_3d/%s" % tn
        for kk, v in (("in0", x), ("kernel", np.array([2, 2, 2], I32)), ("stride", np.array([1, 2, 2], I32)),
                      ("dilation", np.array([1, 1, 1], I32)), ("out", pool(x, [2, 2, 2], [1, 2, 2], [1, 1, 1], False, seq_sum).astype(dt))):
            w.add("%s/%s" % (c, kk), v)
        # conv3d: groups 2, products in float32 summed from +0 over input
        # channel, then kd, kh, kw.
        x = rand(rng, (1, 4, 5, 6, 5), dt)
        wt = rand(rng, (6, 2, 3, 3, 2), dt, 0.3)
        st, dl, g = [1, 2, 1], [1, 1, 2], 2
        osz = [(n - dd * (kk - 1) - 1) // ss + 1 for n, kk, ss, dd in zip(x.shape[2:], wt.shape[2:], st, dl)]
        acc = np.zeros([1, 6] + osz, F32)
        x32, w32 = x.astype(F32), wt.astype(F32)
        for o in range(6):
            gi = o // 3
            for ci in range(2):
                for kd in range(3):
                    for kh in range(3):
                        for kw in range(2):
                            patch = x32[0, gi * 2 + ci,
                                        kd * dl[0]:kd * dl[0] + st[0] * (osz[0] - 1) + 1:st[0],
                                        kh * dl[1]:kh * dl[1] + st[1] * (osz[1] - 1) + 1:st[1],
                                        kw * dl[2]:kw * dl[2] + st[2] * (osz[2] - 1) + 1:st[2]]
                            acc[0, o] = (acc[0, o] + (patch * w32[o, ci, kd, kh, kw]).astype(F32)).astype(F32)
        c = "conv3d/%s" % tn
        for kk, v in (("in0", x), ("in1", wt), ("strides", np.array(st, I32)), ("dilations", np.array(dl, I32)),
                      ("groups", np.array(g, I32)), ("out", acc.astype(dt))):
            w.add("%s/%s" % (c, kk), v)
        # conv_transpose2d (torch's): weight [C, O/groups, KH, KW]; each
        # output sums x[c, ih, iw]·w[c, o, kh, kw] from +0 over c, kh, kw
        # for ih·stride - padding + kh·dilation = oh (likewise w).
        x = rand(rng, (1, 4, 3, 4), dt)
        wt = rand(rng, (4, 3, 3, 3), dt, 0.3)
        st, pd, dl, op, g = [2, 1], [1, 0], [1, 2], [1, 0], 2
        H, W = x.shape[2:]
        KH, KW = wt.shape[2:]
        OH = (H - 1) * st[0] - 2 * pd[0] + dl[0] * (KH - 1) + op[0] + 1
        OW = (W - 1) * st[1] - 2 * pd[1] + dl[1] * (KW - 1) + op[1] + 1
        acc = np.zeros((1, 6, OH, OW), F32)
        x32, w32 = x.astype(F32), wt.astype(F32)
        for o in range(6):
            gi, og = o // 3, o % 3
            for oh in range(OH):
                for ow in range(OW):
                    a = F32(0)
                    for ci in range(gi * 2, gi * 2 + 2):
                        for kh in range(KH):
                            t = oh + pd[0] - kh * dl[0]
                            if t < 0 or t % st[0] or t // st[0] >= H:
                                continue
                            for kw in range(KW):
                                u = ow + pd[1] - kw * dl[1]
                                if u < 0 or u % st[1] or u // st[1] >= W:
                                    continue
                                a = F32(a + F32(x32[0, ci, t // st[0], u // st[1]] * w32[ci, og, kh, kw]))
                    acc[0, o, oh, ow] = a
        c = "conv_transpose2d/%s" % tn
        for kk, v in (("in0", x), ("in1", wt), ("stride", np.array(st, I32)), ("padding", np.array(pd, I32)),
                      ("dilation", np.array(dl, I32)), ("output_padding", np.array(op, I32)),
                      ("groups", np.array(g, I32)), ("out", acc.astype(dt))):
            w.add("%s/%s" % (c, kk), v)
        # interpolate (graph/interp/spatial.go states the mapping).
        def taps(n, m, scale, offset, nearest):
            out = []
            for dst in range(m):
                if nearest:
                    i = int(min(max(math.floor((dst - float(offset)) / float(scale)), 0), n - 1))
                    out.append((i, i, F32(1), F32(0)))
                    continue
                src = max((dst + 0.5 - float(offset)) / float(scale) - 0.5, 0.0)
                i0 = int(min(math.floor(src), n - 1))
                lam = min(src - i0, 1.0)
                out.append((i0, min(i0 + 1, n - 1), F32(1 - lam), F32(lam)))
            return out

        def interp(x, size, scale, offset, nearest):
            th = taps(x.shape[2], size[2], scale[2], offset[2], nearest)
            tw = taps(x.shape[3], size[3], scale[3], offset[3], nearest)
            x32 = x.astype(F32)
            out = np.empty(size, F32)
            for oh, (h0, h1, hl0, hl1) in enumerate(th):
                for ow, (w0, w1, wl0, wl1) in enumerate(tw):
                    if nearest:
                        out[:, :, oh, ow] = x32[:, :, h0, w0]
                        continue
                    a = ((wl0 * x32[:, :, h0, w0]).astype(F32) + (wl1 * x32[:, :, h0, w1]).astype(F32)).astype(F32)
                    b = ((wl0 * x32[:, :, h1, w0]).astype(F32) + (wl1 * x32[:, :, h1, w1]).astype(F32)).astype(F32)
                    out[:, :, oh, ow] = ((hl0 * a).astype(F32) + (hl1 * b).astype(F32)).astype(F32)
            return out

        for c, shape, size, scale, offset, nearest in (
                ("half_pixel", (1, 2, 4, 4), (1, 2, 8, 8), [1, 1, 2, 2], [0, 0, 0, 0], False),
                ("uneven", (1, 2, 4, 6), (1, 2, 10, 9), [1, 1, 2.5, 1.5], [0, 0, 0, 0], False),
                ("align_corners", (1, 2, 4, 5), (1, 2, 7, 9), [1, 1, 2.0, 2.0], [0, 0, -0.5, -0.5], False),
                ("down", (1, 2, 8, 6), (1, 2, 4, 3), [1, 1, 0.5, 0.5], [0, 0, 0, 0], False),
                ("nearest", (1, 2, 4, 4), (1, 2, 10, 10), [1, 1, 2.5, 2.5], [0, 0, 0, 0], True),
                ("nearest_down", (1, 2, 8, 6), (1, 2, 4, 3), [1, 1, 0.5, 0.5], [0, 0, 0, 0], True)):
            x = rand(rng, shape, dt)
            scale, offset = np.array(scale, F32), np.array(offset, F32)
            cc = "interpolate/%s/%s" % (tn, c)
            for kk, v in (("in0", x), ("size", np.array(size, I32)), ("scale", scale), ("offset", offset),
                          ("out", interp(x, size, scale, offset, nearest).astype(dt))):
                w.add("%s/%s" % (cc, kk), v)
        # while (testdata/mlir/coreai/while.mlir's loop: add 1 while the
        # sum stays below 10), each addition rounded to the data's type.
        x = rand(rng, (2, 3), dt, 0.5)
        y = x.copy()
        while seq_sum(y.reshape(-1)) < F32(10):
            y = (y.astype(F32) + F32(1)).astype(dt)
        w.add("while/%s/in0" % tn, x)
        w.add("while/%s/out" % tn, y)

def zoo(w, rng):
    """The op zoo's modules (graph/coreaiop/zoo, f32-io form: f32 graph
    ports) on inputs drawn here: for each zoo op numpy has, its inputs
    "zoo/<op>/in<i>" (named as the module's ports, in its shapes), expected
    outputs "zoo/<op>/out<j>" and the tolerance "zoo/<op>/tol" (ulps of the
    result; 0: bit for bit), under the conventions above. The shapes and
    settings (axes, permutations, sizes) are the zoo's own, read from its
    generated modules; TestZooAgainstNumpy fails when they no longer match.
    Integers of other widths (si8, ui32) are stored as si32."""
    def case(op, ins, outs, tol=0):
        for i, a in enumerate(ins):
            w.add("zoo/%s/in%d" % (op, i), a)
        for j, a in enumerate(outs):
            w.add("zoo/%s/out%d" % (op, j), a)
        w.add("zoo/%s/tol" % op, np.array(tol, I32))

    def un(op, fn, x, tol):
        out = fn(x.astype(F64)).astype(F32)
        case(op, [x], [out], tol)

    x = rand(rng, (2, 3), F32, 2.0)
    for op, fn, tol in (("abs", np.abs, 0), ("neg", np.negative, 0), ("ceil", np.ceil, 0), ("floor", np.floor, 0),
                        ("round", np.round, 0), ("sign", np.sign, 0), ("square", np.square, 0),
                        ("relu", lambda v: np.maximum(v, 0), 0), ("reciprocal", np.reciprocal, 0),
                        ("exp", np.exp, 1), ("sin", np.sin, 1), ("cos", np.cos, 1), ("tan", np.tan, 1),
                        ("tanh", np.tanh, 1), ("sinh", np.sinh, 1), ("cosh", np.cosh, 1),
                        ("atan", np.arctan, 1), ("asinh", np.arcsinh, 1), ("erf", UNARY["erf"], 1),
                        ("sigmoid", sigmoid, 1), ("silu", lambda v: v * sigmoid(v), 1), ("gelu", gelu_tanh, 1)):
        un(op, fn, rand(rng, (2, 3), F32, 2.0), tol)
    pos = np.abs(rand(rng, (2, 3), F32, 2.0)) + F32(1e-2)
    for op, fn, tol in (("log", np.log, 1), ("sqrt", np.sqrt, 0), ("rsqrt", lambda v: 1.0 / np.sqrt(v), 1)):
        un(op, fn, pos, tol)
    unit = (rng.random((2, 3)) * 1.8 - 0.9).astype(F32)
    for op, fn in (("acos", np.arccos), ("asin", np.arcsin), ("atanh", np.arctanh)):
        un(op, fn, unit, 1)
    un("acosh", np.arccosh, pos + F32(1), 1)

    a, b = rand(rng, (2, 3), F32, 3.0), rand(rng, (2, 3), F32, 3.0)
    b[b == 0] = F32(1)
    for op, fn in (("broadcasting_add", np.add), ("broadcasting_sub", np.subtract), ("broadcasting_mul", np.multiply),
                   ("broadcasting_divide", np.divide), ("broadcasting_maximum", np.maximum),
                   ("broadcasting_minimum", np.minimum)):
        case(op, [a, b], [fn(a, b)])
    case("broadcasting_floor_divide", [a, b], [np.floor(a.astype(F64) / b.astype(F64)).astype(F32)])
    case("broadcasting_modulo", [a, b], [np.fmod(a.astype(F64), b.astype(F64)).astype(F32)])
    case("broadcasting_pow", [np.abs(a), b], [np.power(np.abs(a).astype(F64), b.astype(F64)).astype(F32)], 1)
    c = b.copy()
    c[0] = a[0]  # equal in one row
    for op, fn in (("broadcasting_equal", np.equal), ("broadcasting_not_equal", np.not_equal), ("broadcasting_greater", np.greater)):
        case(op, [a, c], [fn(a, c)])
    p, q = rng.integers(0, 2, (2, 3)).astype(BOOL), rng.integers(0, 2, (2, 3)).astype(BOOL)
    for op, fn in (("broadcasting_and", np.logical_and), ("broadcasting_or", np.logical_or), ("broadcasting_xor", np.logical_xor)):
        case(op, [p, q], [fn(p, q)])
    case("not", [p], [np.logical_not(p)])
    i, j = rng.integers(-1000, 1000, (2, 3)).astype(I32), rng.integers(-1000, 1000, (2, 3)).astype(I32)
    for op, fn in (("broadcasting_bitwise_and", np.bitwise_and), ("broadcasting_bitwise_or", np.bitwise_or),
                   ("broadcasting_bitwise_xor", np.bitwise_xor)):
        case(op, [i, j], [fn(i, j)])
    case("broadcasting_where", [p, a, b], [np.where(p, a, b)])
    case("constant", [a], [(a + np.array([[0.5, -1, 2], [0.25, 3, -0.75]], F32)).astype(F32)])
    xc = rand(rng, (2, 3), F32, 5.0)
    case("cast", [xc], [np.trunc(xc).astype(I32)])

    # Layout ops.
    case("concat", [a, b], [np.concatenate([a, b], axis=0)])
    t = rand(rng, (3, 4), F32)
    case("transpose", [t], [np.transpose(t, (1, 0))])
    case("reshape", [a], [a.reshape(6)])
    case("expand_dims", [a], [np.expand_dims(a, 1)])
    s1 = rand(rng, (2, 1), F32)
    case("shrink_dims", [s1], [np.squeeze(s1, 1)])
    case("reverse", [a], [np.flip(a, 1).copy()])
    x3 = rand(rng, (2, 4, 3), F32)
    case("slice", [x3], [x3[:, 1:3, :].copy()])
    u3 = rand(rng, (2, 2, 3), F32)
    z3 = x3.copy()
    z3[0:2, 1:3, 0:3] = u3
    case("slice_update", [x3, u3], [z3])
    case("tile", [a], [np.tile(a, (2, 3))])
    case("pad", [a], [np.pad(a, ((0, 0), (1, 2)))])
    r = rand(rng, (1, 3), F32)
    case("broadcast_to", [r], [np.broadcast_to(r, (4, 3)).copy()])
    case("broadcast_in_dims", [r], [np.broadcast_to(r, (4, 3)).copy()])
    case("get_shape", [a], [np.array(a.shape, I32)])
    sa, sb = np.array([4, 1], I32), np.array([1, 3], I32)
    case("broadcast_shapes", [sa, sb], [np.array(np.broadcast_shapes((4, 1), (1, 3)), I32)])
    case("range", [], [np.arange(0, 6, 2).astype(I32)])
    x4 = rand(rng, (4, 3), F32)
    case("split", [x4], [x4[:2].copy(), x4[2:].copy()])

    # Reductions over axis 1 of [2, 5], keepdims; softmax, sort, scan.
    r5 = rand(rng, (2, 5), F32, 2.0)
    keep = lambda v: np.expand_dims(v, 1)
    case("reduce_sum", [r5], [keep(np.array([seq_sum(row) for row in r5], F32))])
    case("reduce_mean", [r5], [keep((np.array([seq_sum(row) for row in r5], F32) / F32(5)).astype(F32))])
    case("reduce_max", [r5], [keep(r5.max(axis=1))])
    case("reduce_min", [r5], [keep(r5.min(axis=1))])
    case("reduce_product", [r5], [keep(seq_reduce(r5, 1, np.multiply))])
    case("argmax", [r5], [keep(np.argmax(r5, axis=1)).astype(I32)])
    bb = rng.integers(0, 2, (2, 3)).astype(BOOL)
    bb[0] = False
    case("any", [bb], [np.any(bb, axis=1, keepdims=True)])
    m = r5.max(axis=1, keepdims=True)
    e = np.exp((r5 - m).astype(F32).astype(F64)).astype(F32)
    sm = np.array([seq_sum(row) for row in e], F32)[:, None]
    case("softmax", [r5], [(e / sm).astype(F32)], 1)
    order = np.array([stable_order(row, True) for row in r5])
    case("sort", [r5], [np.take_along_axis(r5, order, axis=1)])
    case("argsort", [r5], [order.astype(I32)])
    cs = np.empty_like(r5)
    acc = np.full(2, F32(-0.0), F32)
    for k in range(5):
        acc = (acc + r5[:, k]).astype(F32)
        cs[:, k] = acc
    case("scan", [r5], [cs])

    # Matrix products: f32 products, sequential f32 sums over K.
    ma, mb = rand(rng, (2, 24), F32), rand(rng, (24, 32), F32)
    case("batch_matmul", [ma, mb], [seq_matmul(ma, mb)])
    na, nb = rand(rng, (2, 4), F32), rand(rng, (4, 3), F32)
    case("broadcasting_batch_matmul", [na, nb], [seq_matmul(na, nb)])

    # Gathers and scatters.
    gi = rng.integers(0, 3, (2, 3)).astype(I32)
    case("gather_along_axis", [a, gi], [np.take_along_axis(a, gi, axis=1)])
    g10 = rand(rng, (10, 4), F32)
    gn = rng.integers(0, 10, (2, 3, 1)).astype(I32)
    case("gather_nd", [g10, gn], [g10[gn[..., 0]]])
    s35, si, su = rand(rng, (3, 5), F32), rng.integers(0, 3, (2, 5)).astype(I32), rand(rng, (2, 5), F32)
    sc = s35.copy()
    for row in range(2):
        for col in range(5):
            sc[si[row, col], col] = F32(sc[si[row, col], col] + su[row, col])
    case("scatter_along_axis", [s35, si, su], [sc])
    n53, nu, ni = rand(rng, (5, 3), F32), rand(rng, (2, 3), F32), np.array([[3], [1]], I32)
    nz = n53.copy()
    nz[ni[:, 0]] = nu
    case("scatter_nd", [n53, nu, ni], [nz])

    # Windows: max_pool_2d k2 s2, sum_pool_2d k4 s4, sum_pool_3d k2 s2
    # (sums sequential from -0 over the window in row-major order); conv2d
    # 3x3 (products in float32 summed from +0 over input channel, kh, kw).
    p4 = rand(rng, (1, 3, 4, 4), F32)
    case("max_pool_2d", [p4], [p4.reshape(1, 3, 2, 2, 2, 2).max(axis=(3, 5))])
    p8 = rand(rng, (1, 3, 8, 8), F32)
    sp2 = np.empty((1, 3, 2, 2), F32)
    for ch in range(3):
        for oh in range(2):
            for ow in range(2):
                sp2[0, ch, oh, ow] = seq_sum(p8[0, ch, 4 * oh:4 * oh + 4, 4 * ow:4 * ow + 4].reshape(-1))
    case("sum_pool_2d", [p8], [sp2])
    p43 = rand(rng, (1, 3, 4, 4, 4), F32)
    sp3 = np.empty((1, 3, 2, 2, 2), F32)
    for ch in range(3):
        for od, oh, ow in np.ndindex(2, 2, 2):
            sp3[0, ch, od, oh, ow] = seq_sum(p43[0, ch, 2 * od:2 * od + 2, 2 * oh:2 * oh + 2, 2 * ow:2 * ow + 2].reshape(-1))
    case("sum_pool_3d", [p43], [sp3])
    cx, cw = rand(rng, (1, 3, 8, 8), F32), rand(rng, (8, 3, 3, 3), F32, 0.3)
    conv = np.zeros((1, 8, 6, 6), F32)
    for o in range(8):
        for ci in range(3):
            for kh in range(3):
                for kw in range(3):
                    conv[0, o] = (conv[0, o] + (cx[0, ci, kh:kh + 6, kw:kw + 6] * cw[o, ci, kh, kw]).astype(F32)).astype(F32)
    case("conv2d", [cx, cw], [conv])
    # conv3d 3x3x3, same order (input channel, kd, kh, kw).
    dx, dw = rand(rng, (1, 3, 6, 6, 6), F32), rand(rng, (4, 3, 3, 3, 3), F32, 0.3)
    conv3 = np.zeros((1, 4, 4, 4, 4), F32)
    for o in range(4):
        for ci in range(3):
            for kd, kh, kw in np.ndindex(3, 3, 3):
                conv3[0, o] = (conv3[0, o] + (dx[0, ci, kd:kd + 4, kh:kh + 4, kw:kw + 4] * dw[o, ci, kd, kh, kw]).astype(F32)).astype(F32)
    case("conv3d", [dx, dw], [conv3])
    # conv_transpose2d (torch's, weight [C, O, KH, KW]) stride 2, padding 1,
    # output_padding 1: each output sums x[c, ih, iw]·w[c, o, kh, kw] from
    # +0 over c, kh, kw where ih·2 - 1 + kh = oh (likewise w).
    tx, tw = rand(rng, (1, 3, 4, 4), F32), rand(rng, (3, 8, 3, 3), F32, 0.3)
    convt = np.zeros((1, 8, 8, 8), F32)
    for o, oh, ow in np.ndindex(8, 8, 8):
        acc = F32(0)
        for ci, kh, kw in np.ndindex(3, 3, 3):
            th, tv = oh + 1 - kh, ow + 1 - kw
            if th < 0 or tv < 0 or th % 2 or tv % 2 or th // 2 >= 4 or tv // 2 >= 4:
                continue
            acc = F32(acc + F32(tx[0, ci, th // 2, tv // 2] * tw[ci, o, kh, kw]))
        convt[0, o, oh, ow] = acc
    case("conv_transpose2d", [tx, tw], [convt])
    # interpolate, linear, scale 2, offset 0 (half-pixel centres: source
    # (dst + 0.5)/2 - 0.5 clamped at 0, taps i0 and min(i0+1, n-1) weighted
    # 1-λ and λ in float32, along w then h).
    ix = rand(rng, (1, 3, 4, 4), F32)
    taps = []
    for dst in range(8):
        src = max((dst + 0.5) / 2.0 - 0.5, 0.0)
        i0 = int(min(math.floor(src), 3))
        lam = min(src - i0, 1.0)
        taps.append((i0, min(i0 + 1, 3), F32(1 - lam), F32(lam)))
    up = np.empty((1, 3, 8, 8), F32)
    for oh, (h0, h1, hl0, hl1) in enumerate(taps):
        for ow, (w0, w1, wl0, wl1) in enumerate(taps):
            ra = ((wl0 * ix[:, :, h0, w0]).astype(F32) + (wl1 * ix[:, :, h0, w1]).astype(F32)).astype(F32)
            rb = ((wl0 * ix[:, :, h1, w0]).astype(F32) + (wl1 * ix[:, :, h1, w1]).astype(F32)).astype(F32)
            up[:, :, oh, ow] = ((hl0 * ra).astype(F32) + (hl1 * rb).astype(F32)).astype(F32)
    case("interpolate", [ix], [up])

    # Quantization and palettes (graph/interp/quant.go's formulas, float64,
    # rounded once); blockwise_shift_scale and lut_to_dense take only
    # constants: (3 - 0)·0.5 and entry 1 of a palette of 0.5.
    q8 = rng.integers(-128, 128, (2, 32)).astype(I32)
    case("dequantize", [q8], [q8.astype(F32)])
    xq = rand(rng, (2, 32), F32, 60.0)
    case("quantize", [xq], [np.clip(np.rint(xq.astype(F64)), -128, 127).astype(I32)])
    case("blockwise_shift_scale", [], [np.full((4, 3), 1.5, F32)])
    case("lut_to_dense", [], [np.full((2, 3), 0.5, F32)])

    # Control flow and calls: if (true: exp), while (add 1 until the f32 sum
    # reaches 10), invoke of a graph computing exp.
    case("if", [np.array(True), a], [np.exp(a.astype(F64)).astype(F32)], 1)
    w0 = rand(rng, (2, 3), F32, 0.5)
    wv = w0.copy()
    while F32(10) > seq_sum(wv.reshape(-1)):
        wv = (wv + F32(1)).astype(F32)
    case("while", [w0], [wv])
    case("invoke:body", [a], [np.exp(a.astype(F64)).astype(F32)], 1)


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
        ops2(w, np.random.default_rng(5))
        w.write(os.path.join(out, "ops2.vec.gz"))
        w = Writer()
        gated_delta(w, np.random.default_rng(3), F32, "f32")
        gated_delta(w, np.random.default_rng(3), F16, "f16")
        w.write(os.path.join(out, "gated_delta.vec.gz"))
        w = Writer()
        packed(w, np.random.default_rng(5))
        w.write(os.path.join(out, "packed.vec.gz"))
        w = Writer()
        zoo(w, np.random.default_rng(7))
        w.write(os.path.join(out, "zoo.vec.gz"))


if __name__ == "__main__":
    main()
