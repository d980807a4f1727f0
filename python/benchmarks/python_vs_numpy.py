"""Benchmark, not a test: linsolve against numpy.linalg.solve (and SciPy's
lu_factor / lu_solve) on NumPy arrays on the CPU, in one process, as a
Python user calls both.

    python python_vs_numpy.py --csv python-vs-numpy.csv
    python python_vs_numpy.py --csv out.csv --singles 8,32 --stacks "" --lu 0 --breakdown

Writes ``kind,n,batch,precision,linsolve_ms,peer_ms,ratio`` (ratio = peer /
linsolve: above 1 when linsolve is faster) after a first comment line with
the git commit, the exact command and the libraries. Rows: stacks (kind
"stack", one right-hand side per system, b of shape (batch, n, 1)) for
--stacks, single systems (kind "single", batch 1, b a vector) for
--singles, each in the precisions of --precisions; then kind "lu_factor"
and "lu_solve" at n = --lu against scipy.linalg (each side solves with its
own factors). linsolve runs with its defaults (backend auto, the NaN scan
and the scaled-residual check on). The two sides alternate call by call
after --warmup calls each, and each time is the median of --repeat calls,
so that a change in the machine's load falls on both. The matrices are
uniform(-1, 1) with n/10 added to the diagonal (no singular system in a
stack of 100000), C order, as NumPy makes them.

--breakdown prints, for each solve row, the same linsolve call with
check=False, then with check_finite=False as well, and the planner's own
time from solve_ex's report, to tell Python and check overhead from the
solve itself.
"""
import argparse
import csv
import os
import shlex
import statistics
import sys
import time

import numpy as np

import linsolve
import provenance  # noqa: E402 (beside this script)


def _commit():
    return provenance.commit()


def _pair(f, g, repeat, warmup):
    """Medians of f and g, called alternately."""
    for _ in range(warmup):
        f()
        g()
    tf, tg = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        t1 = time.perf_counter()
        g()
        t2 = time.perf_counter()
        tf.append(t1 - t0)
        tg.append(t2 - t1)
    return statistics.median(tf), statistics.median(tg)


def _calls(n):
    """Repeats that make a row take about the same time at every n."""
    return max(7, min(2000, int(4e6 / max(n, 1) ** 2)))


def _problem(rng, n, batch, dtype):
    shape = (n, n) if batch == 0 else (batch, n, n)
    a = rng.uniform(-1, 1, shape) + np.eye(n) * (n * 0.1 + 1)
    b = rng.uniform(-1, 1, (n,) if batch == 0 else (batch, n, 1))
    return a.astype(dtype), b.astype(dtype)


def _median(fn, repeat):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _breakdown(a, b, repeat):
    t1 = _median(lambda: linsolve.solve(a, b, check=False), repeat)
    t2 = _median(lambda: linsolve.solve(a, b, check=False, check_finite=False), repeat)
    _, rep = linsolve.solve_ex(a, b)
    print(f"    no residual {t1 * 1e3:.4f} ms; no checks {t2 * 1e3:.4f} ms; planner "
          f"{rep.t_total * 1e3:.4f} ms ({rep.path}: {rep.why})", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", required=True, help="output file")
    p.add_argument("--stacks", default="100000x4,100000x8,20000x32",
                   help="BATCHxN,... ('' for none)")
    p.add_argument("--singles", default="8,32,128,512,2048", help="n,... ('' for none)")
    p.add_argument("--precisions", default="double", help="double,single")
    p.add_argument("--lu", type=int, default=1000, help="n of lu_factor/lu_solve (0: none)")
    p.add_argument("--repeat", type=int, default=7, help="timed calls per side (>= 7)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--breakdown", action="store_true")
    args = p.parse_args()
    if args.repeat < 7:
        sys.exit("--repeat must be at least 7")
    stacks = [tuple(int(v) for v in s.split("x")) for s in args.stacks.split(",") if s]
    singles = [int(s) for s in args.singles.split(",") if s]
    rng = np.random.default_rng(7)
    with open(args.csv, "w", newline="") as f:
        f.write(f"# commit {_commit()}; command: "
                f"{' '.join(shlex.quote(x) for x in [sys.executable] + sys.argv)}; "
                f"numpy {np.__version__}; linsolve backend "
                f"{linsolve.solve_ex(np.eye(2), np.ones(2))[1].backend}; "
                f"{os.cpu_count()} cpus\n")
        w = csv.writer(f)
        w.writerow(["kind", "n", "batch", "precision", "linsolve_ms", "peer_ms", "ratio"])

        def row(kind, n, batch, prec, tl, tp):
            w.writerow([kind, n, batch, prec, f"{tl * 1e3:.4f}", f"{tp * 1e3:.4f}",
                        f"{tp / tl:.3f}"])
            f.flush()
            print(f"{kind:9s} n={n:5d} batch={batch:6d} {prec:6s} linsolve {tl * 1e3:10.4f} ms"
                  f"  peer {tp * 1e3:10.4f} ms  ratio {tp / tl:.3f}", flush=True)

        for prec in args.precisions.split(","):
            dtype = np.float64 if prec == "double" else np.float32
            for batch, n in stacks:
                a, b = _problem(rng, n, batch, dtype)
                tl, tp = _pair(lambda: linsolve.solve(a, b), lambda: np.linalg.solve(a, b),
                               args.repeat, args.warmup)
                row("stack", n, batch, prec, tl, tp)
                if args.breakdown:
                    _breakdown(a, b, args.repeat)
            for n in singles:
                a, b = _problem(rng, n, 0, dtype)
                reps = max(args.repeat, _calls(n) if n <= 128 else args.repeat)
                tl, tp = _pair(lambda: linsolve.solve(a, b), lambda: np.linalg.solve(a, b),
                               reps, args.warmup)
                row("single", n, 1, prec, tl, tp)
                if args.breakdown:
                    _breakdown(a, b, reps)
        if args.lu:
            import scipy.linalg as sl
            a, b = _problem(rng, args.lu, 0, np.float64)
            tl, tp = _pair(lambda: linsolve.lu_factor(a), lambda: sl.lu_factor(a),
                           args.repeat, args.warmup)
            row("lu_factor", args.lu, 1, "double", tl, tp)
            ours, theirs = linsolve.lu_factor(a), sl.lu_factor(a)
            tl, tp = _pair(lambda: linsolve.lu_solve(ours, b), lambda: sl.lu_solve(theirs, b),
                           max(args.repeat, 200), args.warmup)
            row("lu_solve", args.lu, 1, "double", tl, tp)


if __name__ == "__main__":
    main()
