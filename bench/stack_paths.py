#!/usr/bin/env python3
"""Benchmark, not a test: the planner's two paths for a stack of systems on
one backend, timed through the Python package on the same stacks, in one
process:

    python3 bench/stack_paths.py --backend opencl --csv stack-paths.csv

  batched     linsolve.solve_ex(a, b, method="batched"): one call of the
              backend's batched kernels for the whole stack
  stack-loop  linsolve.solve_ex(a, b, method="stack-loop"): the backend's
              single-system solve, system by system (what a stack got on
              OpenCL before it had batched kernels, and what "auto" takes
              above the backend's batched max_n)
  auto        the path "auto" chooses (its name in the row)

Each side: check=False, one warm-up call, then the median wall time of
--repeat calls (host arrays: the copies to and from the device are part of
every call). The stack is uniform(-1, 1), as `linsolve bench --batched`
draws it (partial pivoting moves rows at nearly every column), one
right-hand side, FP64; the worst scaled residual of each side's answer is
checked after the runs (above 30: the row says so and the exit status is
4). A stack-loop of more than --loop-max systems is not run (its time
is left empty).

--csv writes `# commit:`, `# command:` and `# device:` lines, then
n,batch,batched_s,loop_s,auto_path,auto_s,loop_over_batched.
Exit status: 0, 1 bad options, 2 the backend is not available, 4 a side
above the residual bar.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SHAPES = "8x2000,4x100000,16x1000,32x1000,64x100,128x50,128x12,256x16,256x4,513x2"


def commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def worst_residual(a, x, b):
    r = b - np.einsum("sij,sj->si", a, x)
    eps = np.finfo(np.float64).eps
    den = a.shape[-1] * np.abs(a).sum(-1).max(-1) * np.abs(x).max(-1) * eps
    return float(np.max(np.abs(r).max(-1) / den))


def timed(linsolve, a, b, backend, method, repeat):
    linsolve.solve_ex(a, b, backend=backend, method=method, check=False)  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        x, rep = linsolve.solve_ex(a, b, backend=backend, method=method, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), x, rep.path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--shapes", default=SHAPES, help="NxBATCH,...")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--loop-max", type=int, default=5000)
    ap.add_argument("--csv")
    args = ap.parse_args()
    import linsolve
    info = linsolve.info().backend(args.backend)
    if not info.available:
        print(f"backend {args.backend} not available: {info.error}")
        return 2
    rng = np.random.default_rng(1)
    rows, bad = [], 0
    print(f"# {args.backend}: {info.device}")
    print(f"{'n':>5} {'batch':>7} {'batched s':>10} {'loop s':>10} {'auto':>11} {'loop/batched':>12}")
    for spec in args.shapes.split(","):
        n, batch = (int(v) for v in spec.lower().split("x"))
        a = rng.uniform(-1, 1, (batch, n, n))
        b = rng.uniform(-1, 1, (batch, n))
        tb, xb, _ = timed(linsolve, a, b, args.backend, "batched", args.repeat)
        res = [worst_residual(a, xb, b)]
        tl = None
        if batch <= args.loop_max:
            tl, xl, _ = timed(linsolve, a, b, args.backend, "stack-loop", args.repeat)
            res.append(worst_residual(a, xl, b))
        ta, xa, path = timed(linsolve, a, b, args.backend, "auto", args.repeat)
        res.append(worst_residual(a, xa, b))
        over = [r for r in res if not r <= 30]
        bad += bool(over)
        ratio = tl / tb if tl else None
        rows.append((n, batch, tb, tl, path, ta, ratio))
        print(f"{n:5d} {batch:7d} {tb:10.4f} {tl if tl else float('nan'):10.4f} {path:>11} "
              f"{ratio if ratio else float('nan'):12.2f}" + ("  RESIDUAL ABOVE 30" if over else ""))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(f"# commit: {commit()}\n")
            f.write("# command: python3 bench/stack_paths.py " + " ".join(sys.argv[1:]) + "\n")
            f.write(f"# device: {info.device}\n")
            f.write("n,batch,batched_s,loop_s,auto_path,auto_s,loop_over_batched\n")
            for n, batch, tb, tl, path, ta, ratio in rows:
                f.write(f"{n},{batch},{tb:.6f},{'' if tl is None else f'{tl:.6f}'},{path},"
                        f"{ta:.6f},{'' if ratio is None else f'{ratio:.3f}'}\n")
    return 4 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
