#!/usr/bin/python3
"""Reference palettization, the test oracle of anefix's palettize pass.

Run with Debian's python3 + python3-numpy:

    /usr/bin/python3 testdata/numpy/palettize.py WEIGHTS ROWS COLS BITS GROUP METHOD

WEIGHTS is a file of ROWS x COLS little-endian float16 values, output
channels along axis 0; GROUP is the number of output channels per palette
(ROWS for one palette per tensor). Prints the reference's squared error
sum((w - w_hat)^2) over the weight, in float64, one line: "sse <value>".

The methods are apple/coreai-optimization's, as
src/coreai_opt/coreai_utils/_utils/palettize_utils.py and
passes/weight_palettization.py define them, written again here with numpy
alone (anefix's own code; none of theirs is copied):

  kmeans   palettize_weights' default "fast mode": the weights rounded to
           4 decimals (np.round on the float16 array), then per group the
           optimal weighted 1-D k-means of the distinct rounded values
           (what its kmeans1d call computes; here an exact dynamic program),
           each weight taking its rounded value's cluster; the palette is
           the clusters' means cast to float16. (coreai-optimization runs
           kmeans1d only for groups of 10,000 weights or more, and
           scikit-learn's k-means++ below that; neither library is here, so
           the exact program stands for both: the stronger reference.)
  uniform  compress_uniform: lut = j * (max - min) / (2^bits - 1) + min in
           float16 arithmetic, indices round((w - min)/(max - min) *
           (2^bits - 1)).
  unique   the distinct values themselves (at most 2^bits per group).
"""

import sys

import numpy as np


def kmeans1d_exact(values, weights, k):
    """Optimal weighted 1-D k-means: dynamic programming over the sorted
    values, O(k n^2) with numpy rows. Returns the label of each value and
    the centroids."""
    n = len(values)
    if n <= k:
        return np.arange(n), values.astype(np.float64)
    x = values.astype(np.float64) - np.average(values.astype(np.float64), weights=weights)
    w = weights.astype(np.float64)
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cs = np.concatenate([[0.0], np.cumsum(w * x)])
    cq = np.concatenate([[0.0], np.cumsum(w * x * x)])

    def cost(m, i):  # points [m, i)
        ww = cw[i] - cw[m]
        ss = cs[i] - cs[m]
        return cq[i] - cq[m] - ss * ss / ww

    inf = np.inf
    D = np.full((k, n + 1), inf)
    A = np.zeros((k, n + 1), dtype=np.int64)
    ii = np.arange(1, n + 1)
    D[0, 1:] = cost(np.zeros_like(ii), ii)
    for j in range(1, k):
        for i in range(j + 1, n + 1):
            m = np.arange(j, i)
            c = D[j - 1, m] + cost(m, np.full_like(m, i))
            b = int(np.argmin(c))
            D[j, i], A[j, i] = c[b], m[b]
    labels = np.empty(n, dtype=np.int64)
    cents = np.empty(k)
    end = n
    for j in range(k - 1, -1, -1):
        start = A[j, end] if j > 0 else 0
        labels[start:end] = j
        cents[j] = np.average(values[start:end].astype(np.float64), weights=weights[start:end])
        end = start
    return labels, cents


def group_sse(wg, bits, method):
    k = 1 << bits
    w64 = wg.astype(np.float64)
    if method == "kmeans":
        r = np.round(wg, 4)
        vals, inv, counts = np.unique(r, return_inverse=True, return_counts=True)
        labels, cents = kmeans1d_exact(vals, counts, k)
        lut = cents.astype(np.float16).astype(np.float64)
        rec = lut[labels[inv.reshape(-1)]]
    elif method == "uniform":
        v = wg.reshape(-1)
        lo, hi = np.amin(v), np.amax(v)
        scale = (hi - lo) / ((1 << bits) - 1)
        ind = np.round(((v - lo) / (hi - lo)) * ((1 << bits) - 1)).astype(np.uint8)
        lut = (np.array(range(0, 1 << bits)) * scale + lo).astype(np.float16).astype(np.float64)
        rec = lut[ind]
    else:
        vals, inv = np.unique(wg.reshape(-1), return_inverse=True)
        if len(vals) > k:
            raise SystemExit("unique: %d distinct values > %d" % (len(vals), k))
        rec = vals.astype(np.float64)[inv.reshape(-1)]
    d = w64.reshape(-1) - rec
    return float(np.sum(d * d))


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    path, rows, cols, bits, group, method = sys.argv[1:]
    rows, cols, bits, group = int(rows), int(cols), int(bits), int(group)
    w = np.fromfile(path, dtype="<f2").reshape(rows, cols)
    sse = 0.0
    with np.errstate(all="ignore"):
        for g in range(rows // group):
            sse += group_sse(w[g * group:(g + 1) * group], bits, method)
    print("sse %.17g" % sse)


if __name__ == "__main__":
    main()
