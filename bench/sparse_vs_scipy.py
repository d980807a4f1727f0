#!/usr/bin/env python3
"""linsolve's sparse CPU solvers against SciPy's, on the same matrices, in one run.

For every matrix: b = A * ones (what `linsolve solve A` uses without B), then
  direct    linsolve --method direct (UMFPACK LU)      vs scipy.sparse.linalg.spsolve (SuperLU)
  gmres     linsolve GMRES(30) + ILU(0), equilibrated  vs scipy gmres(restart=30) + spilu
  bicgstab  linsolve BiCGStab + ILU(0), equilibrated   vs scipy bicgstab + spilu
  cg        linsolve CG + ILU(0) (= IC(0))             vs scipy cg + spilu  (symmetric A only)
spilu is SciPy's ILUT; with drop_tol=0 and fill_factor=1 it keeps about A's
own fill, the nearest it has to ILU(0). Both sides stop at the same relative
tolerance ||b - A x||2 <= rtol ||b||2, rtol = 10 sqrt(n) eps (linsolve's
default), and the same iteration cap. Times are the solve only (reading the
file is not timed on either side; ILU setup and LU factorisation are), the
median of --repeats runs; residuals are ||b - A x||inf / (n ||A||inf ||x||inf eps)
for both, computed the same way. The linsolve side runs the CLI
(`linsolve solve --format sparse --json`), which reports its own solve time.

usage: bench/sparse_vs_scipy.py --linsolve BUILD/bin/linsolve [--real DIR]
           [--poisson 1e4,1e5,1e6] [--repeats 3] [--csv bench/results/cpu/sparse.csv]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

EPS = np.finfo(float).eps
MAX_ITER = 2000
RESTART = 30


def scaled_residual(A, b, x):
    if not np.all(np.isfinite(x)):
        return math.inf
    r = np.abs(b - A @ x).max()
    anorm = np.abs(A).sum(axis=1).max()
    xn = np.abs(x).max()
    n = A.shape[0]
    return 0.0 if r == 0 else r / (n * anorm * xn * EPS)


def ls_solve(exe, path, method, extra, repeats):
    """Median solve time, last residual and iterations from the CLI's JSON."""
    args = [exe, "solve", path, "--format", "sparse", "--json", "--method", method] + extra
    times, last = [], None
    for _ in range(repeats):
        p = subprocess.run(args, capture_output=True, text=True)
        line = [l for l in p.stdout.splitlines() if l.startswith("{")]
        if not line:
            return math.nan, math.nan, -1, "failed: " + p.stderr.strip()[:80]
        last = json.loads(line[-1])
        times.append(last["time_solve"])
    note = "" if last["ok"] else "not ok (exit %d)" % last["exit_code"]
    res = last["residual"] if last["residual"] >= 0 else math.inf
    return statistics.median(times), res, last.get("iterations", -1), note


def peer_solve(A, b, method, repeats):
    n = A.shape[0]
    rtol = 10 * math.sqrt(n) * EPS
    times, x, its, note = [], None, -1, ""
    for _ in range(repeats):
        count = [0]

        def cb(_):
            count[0] += 1

        t0 = time.perf_counter()
        if method == "direct":
            x = spla.spsolve(A.tocsc(), b)
            info = 0
        else:
            ilu = spla.spilu(A.tocsc(), drop_tol=0.0, fill_factor=1.0)
            M = spla.LinearOperator(A.shape, ilu.solve)
            if method == "gmres":
                x, info = spla.gmres(A, b, tol=rtol, atol=0.0, restart=RESTART,
                                     maxiter=MAX_ITER // RESTART, M=M, callback=cb,
                                     callback_type="pr_norm")
            elif method == "bicgstab":
                x, info = spla.bicgstab(A, b, tol=rtol, atol=0.0, maxiter=MAX_ITER, M=M,
                                        callback=cb)
            else:
                x, info = spla.cg(A, b, tol=rtol, atol=0.0, maxiter=MAX_ITER, M=M, callback=cb)
        times.append(time.perf_counter() - t0)
        its = count[0] if method != "direct" else -1
        note = "" if info == 0 else "not converged (info %d)" % info
    return statistics.median(times), scaled_residual(A, b, x), its, note


def symmetric(A):
    return (A - A.T).count_nonzero() == 0 and np.all(A.diagonal() > 0)


def run_matrix(exe, name, path, repeats, out, methods=None):
    A = sp.csr_matrix(scipy.io.mmread(path), dtype=float)
    A.sum_duplicates()
    n = A.shape[0]
    b = A @ np.ones(n)
    spd = symmetric(A)
    if methods is None:
        methods = ["direct", "gmres", "bicgstab"] + (["cg"] if spd else [])
    peers = {"direct": "scipy spsolve (SuperLU)", "gmres": "scipy gmres(30)+spilu",
             "bicgstab": "scipy bicgstab+spilu", "cg": "scipy cg+spilu"}
    for m in methods:
        extra = [] if m == "direct" else ["--precond", "ilu0"]
        if m == "cg":
            extra += ["--max-iter", str(MAX_ITER)]
        ls_t, ls_r, ls_i, ls_note = ls_solve(exe, path, m, extra, repeats)
        try:
            pe_t, pe_r, pe_i, pe_note = peer_solve(A, b, m, repeats)
        except Exception as e:  # e.g. spilu: singular factor
            pe_t, pe_r, pe_i, pe_note = math.nan, math.nan, -1, type(e).__name__ + ": " + str(e)[:60]
        note = "; ".join(x for x in ("linsolve " + ls_note if ls_note else "",
                                     "scipy " + pe_note if pe_note else "") if x)
        row = [name, n, A.nnz, m, "%.4g" % ls_t, peers[m], "%.4g" % pe_t, "%.3g" % ls_r,
               "%.3g" % pe_r, ls_i, pe_i, note.replace(",", ";")]
        out.write(",".join(str(v) for v in row) + "\n")
        out.flush()
        print(",".join(str(v) for v in row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--linsolve", required=True)
    ap.add_argument("--real", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "shared", "matrices", "real"))
    ap.add_argument("--poisson", default="1e4,1e5,1e6",
                    help="2-D Poisson sizes (rounded to k^2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--big-methods", default="direct,cg",
                    help="methods for n >= 1e6 (GMRES(30)+ILU(0) takes minutes there)")
    ap.add_argument("--csv", default="bench/results/cpu/sparse.csv")
    a = ap.parse_args()
    print("scipy %s, numpy %s, python %s" % (scipy.__version__, np.__version__,
                                             sys.version.split()[0]), flush=True)
    os.makedirs(os.path.dirname(a.csv) or ".", exist_ok=True)
    with open(a.csv, "w") as out:
        out.write("matrix,n,nnz,method,ls_s,peer,peer_s,ls_residual,peer_residual,"
                  "ls_iterations,peer_iterations,note\n")
        for f in sorted(os.listdir(a.real)):
            path = os.path.join(a.real, f)
            with open(path) as fh:
                if "coordinate" not in fh.readline():
                    continue  # dense array files are not sparse problems
            run_matrix(a.linsolve, f[:-4], path, a.repeats, out)
        with tempfile.TemporaryDirectory() as tmp:
            for s in a.poisson.split(","):
                k = int(round(math.sqrt(float(s))))
                path = os.path.join(tmp, "poisson2d_%d.mtx" % (k * k))
                subprocess.run([a.linsolve, "gen", "poisson2d", "--grid", "%dx%d" % (k, k),
                                "-o", path], check=True)
                big = k * k >= 1000000
                run_matrix(a.linsolve, "poisson2d_%dx%d" % (k, k), path,
                           1 if k * k >= 100000 else a.repeats, out,
                           a.big_methods.split(",") if big else None)
                os.remove(path)


if __name__ == "__main__":
    main()
