"""Refinement steps of FP32 LU factors by pivoting scope, on the CPU (NumPy).

How bench/notes/mixed-cuda.md's table on the butterfly path was made:
  python3 bench/notes/rbt_growth.py N COND SCOPE RBT
N: order; COND: randsvd condition (0: random normal); SCOPE: rows a pivot
is searched in (1: no interchanges, N: partial pivoting, else pivoting
within each diagonal block of SCOPE rows); RBT: 1 applies the depth-2
butterfly of src/core/rbt.h first. Prints the growth of U and the FP64
scaled residual after each classic refinement step (stops at <= 30 or 15).
"""
import sys

import numpy as np
import scipy.linalg as sl


def mult(level, i):
    m = (1 << 64) - 1
    z = (i + 0x9E3779B97F4A7C15 * (level + 1) + 0x6C73726274) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    z ^= z >> 31
    return np.exp(((z >> 11) * 2.0**-53 - 0.5) / 10)


def butterfly(n, l0, l1):
    q, w = n // 4, np.eye(n)
    for g in range(q):
        idx = [g + k * q for k in range(4)]
        a = [mult(l0, i) for i in idx]
        b = [mult(l1, i) for i in idx]
        w[np.ix_(idx, idx)] = 0.5 * np.array(
            [[b[0] * a[0], b[1] * a[1], b[0] * a[2], b[1] * a[3]],
             [b[0] * a[0], -b[1] * a[1], b[0] * a[2], -b[1] * a[3]],
             [b[2] * a[0], b[3] * a[1], -b[2] * a[2], -b[3] * a[3]],
             [b[2] * a[0], -b[3] * a[1], -b[2] * a[2], b[3] * a[3]]])
    return w


def randsvd(n, cond, rng):
    q1, _ = np.linalg.qr(rng.standard_normal((n, n)))
    q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (q1 * cond ** (-np.arange(n) / (n - 1))) @ q2.T


def lu_scoped(a, scope):
    """Blocked LU whose pivots are searched in the diagonal block only."""
    a, n = a.copy(), a.shape[0]
    perm = np.arange(n)
    for j in range(0, n, scope):
        e = min(j + scope, n)
        if scope == 1:
            lu, piv = a[j:e, j:e].copy(), [0]
        else:
            lu, piv = sl.lu_factor(a[j:e, j:e], check_finite=False)
        for i, p in enumerate(piv):
            if p != i:
                a[[j + i, j + p], :] = a[[j + p, j + i], :]
                perm[[j + i, j + p]] = perm[[j + p, j + i]]
        a[j:e, j:e] = lu
        l11 = np.tril(lu, -1) + np.eye(e - j, dtype=a.dtype)
        if e < n:
            a[e:, j:e] = sl.solve_triangular(np.triu(lu).T, a[e:, j:e].T, lower=True).T
            a[j:e, e:] = sl.solve_triangular(l11, a[j:e, e:], lower=True, unit_diagonal=True)
            a[e:, e:] -= a[e:, j:e] @ a[j:e, e:]
    return a, perm


def main():
    n, cond, scope, rbt = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(1)
    a = randsvd(n, cond, rng) if cond > 0 else rng.standard_normal((n, n))
    b = rng.standard_normal(n)
    u = butterfly(n, 0, 1) if rbt else np.eye(n)
    v = butterfly(n, 2, 3) if rbt else np.eye(n)
    ap = (u.T @ a @ v).astype(np.float32)
    f, perm = lu_scoped(ap, scope)
    lo, up = np.tril(f, -1) + np.eye(n, dtype=np.float32), np.triu(f)

    def solve(r):
        t = (u.T @ r).astype(np.float32)[perm]
        t = sl.solve_triangular(lo, t, lower=True, unit_diagonal=True)
        return v @ sl.solve_triangular(up, t).astype(float)

    x, hist = np.zeros(n), []
    anorm = np.abs(a).sum(1).max()
    for _ in range(15):
        x = x + solve(b - a @ x)
        r = b - a @ x
        hist.append(np.abs(r).max() / (n * anorm * np.abs(x).max() * 2.0**-53))
        if hist[-1] <= 30:
            break
    print(f"n={n} cond={cond:g} scope={scope} rbt={rbt} "
          f"growth={np.abs(up).max() / np.abs(ap).max():.3g} steps={len(hist)} "
          f"residuals={' '.join('%.1e' % h for h in hist)}")


if __name__ == "__main__":
    main()
