"""Benchmark, not a test: linsolve against torch.linalg.solve on CUDA
tensors, in one process, as a Python user calls both.

    python python_vs_torch.py --torch python-vs-torch.csv
    python python_vs_torch.py --torch out.csv --singles 256 --stacks "" --breakdown
    python python_vs_torch.py --overhead overhead.csv

--torch writes ``kind,n,batch,precision,linsolve_ms,peer_ms,ratio`` (ratio =
peer / linsolve: above 1 when linsolve is faster), after a first comment
line with the git commit and the exact command. Rows: single systems
(kind "single", batch 1, one right-hand side) for --singles, and stacks
(kind "stack", one right-hand side per system) for --stacks, each in FP64
and FP32. Each time is the median of --repeat calls after --warmup calls,
measured as synchronised wall time (torch.cuda.synchronize before the clock
starts and after the call), with linsolve's default checks on (finiteness
and the scaled residual, computed on the device). The matrices are
uniform(-1, 1), for which partial pivoting swaps rows at nearly every
column; stacks get a dominant diagonal, so that no system is singular.

--breakdown prints, for each row, where one linsolve call spends its time
(the same call with check=False, with check_finite=False as well -- then
its one synchronization is the read of info, as torch.linalg.solve's --,
torch.linalg.solve_ex, which does not synchronize, and the planner's own
device time from solve_ex's report), to tell Python and check overhead
from the solve itself. Compare stack rows with the library
alone: `linsolve bench --batched` on the same shape (its README row gives
the command).

--overhead writes n,linsolve_us,numpy_us: the call overhead from NumPy on
the CPU (n = 8 ... 1024).
"""
import argparse
import csv
import shlex
import statistics
import sys
import time

import numpy as np

import linsolve
import provenance  # noqa: E402 (beside this script)


def _median_time(fn, repeat, warmup, sync=lambda: None):
    for _ in range(warmup):
        fn()
    sync()
    ts = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _commit():
    return provenance.commit()


def overhead(path, sizes, repeat, warmup):
    rng = np.random.default_rng(1)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "linsolve_us", "numpy_us"])
        for n in sizes:
            a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n) * 0.1
            b = rng.uniform(-1, 1, n)
            tl = _median_time(lambda: linsolve.solve(a, b, backend="cpu"), repeat, warmup)
            tn = _median_time(lambda: np.linalg.solve(a, b), repeat, warmup)
            w.writerow([n, f"{tl * 1e6:.1f}", f"{tn * 1e6:.1f}"])
            print(f"n={n:5d}  linsolve {tl * 1e6:10.1f} us  numpy {tn * 1e6:10.1f} us", flush=True)


def _problem(torch, kind, n, batch, dt, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (n, n) if kind == "single" else (batch, n, n)
    a = torch.rand(shape, device="cuda", dtype=dt, generator=g) * 2 - 1
    if kind == "stack":
        a += n * torch.eye(n, device="cuda", dtype=dt)
    b = torch.rand(shape[:-1] + (1,), device="cuda", dtype=dt, generator=g)
    return a, b


def _breakdown(torch, a, b, repeat, warmup, sync):
    parts = {
        "no residual": lambda: linsolve.solve(a, b, check=False),
        # one synchronization left: the read of info, as torch.linalg.solve
        "no checks": lambda: linsolve.solve(a, b, check=False, check_finite=False),
        # torch without its info check (no synchronization at all)
        "torch solve_ex": lambda: torch.linalg.solve_ex(a, b),
    }
    line = []
    for name, fn in parts.items():
        line.append(f"{name} {_median_time(fn, repeat, warmup, sync) * 1e3:.3f} ms")
    _, rep = linsolve.solve_ex(a, b)
    line.append(f"device solve {(rep.t_factor + rep.t_solve) * 1e3:.3f} ms ({rep.note})")
    print("    " + "; ".join(line), flush=True)


def versus_torch(path, singles, stacks, repeat, warmup, breakdown):
    import torch
    if not torch.cuda.is_available():
        sys.exit("--torch needs PyTorch with a CUDA device")
    sync = torch.cuda.synchronize
    rows = [("single", n, 1) for n in singles] + [("stack", n, bt) for bt, n in stacks]
    with open(path, "w", newline="") as f:
        f.write(f"# commit {_commit()}; command: "
                f"{' '.join(shlex.quote(x) for x in [sys.executable] + sys.argv)}; "
                f"device {torch.cuda.get_device_name()}; torch {torch.__version__}\n")
        w = csv.writer(f)
        w.writerow(["kind", "n", "batch", "precision", "linsolve_ms", "peer_ms", "ratio"])
        for prec, dt in (("double", torch.float64), ("single", torch.float32)):
            for kind, n, batch in rows:
                a, b = _problem(torch, kind, n, batch, dt, n + batch)
                tl = _median_time(lambda: linsolve.solve(a, b), repeat, warmup, sync)
                tt = _median_time(lambda: torch.linalg.solve(a, b), repeat, warmup, sync)
                w.writerow([kind, n, batch, prec, f"{tl * 1e3:.4f}", f"{tt * 1e3:.4f}",
                            f"{tt / tl:.3f}"])
                f.flush()
                print(f"{kind:6s} n={n:6d} batch={batch:7d} {prec:6s} linsolve "
                      f"{tl * 1e3:9.3f} ms  torch {tt * 1e3:9.3f} ms  ratio {tt / tl:.3f}",
                      flush=True)
                if breakdown:
                    _breakdown(torch, a, b, repeat, warmup, sync)
                a = b = None  # free the device memory before the next size
                torch.cuda.empty_cache()
    if stacks:
        print("library alone on the same stacks (device time, no Python):")
        for bt, n in stacks:  # bench's batch is min(--batch-max, 2^28 / n^2)
            cap = 2 ** 28 // (n * n)
            note = "" if bt <= cap else f"  (bench caps the batch at {cap})"
            print(f"  linsolve bench --batched --sizes {n} --batch-max {bt} "
                  f"--precision double,single --repeat 7{note}")


def _stacks(text):
    out = []
    for item in filter(None, text.split(",")):
        bt, n = item.lower().split("x")[:2]
        out.append((int(bt), int(n)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--overhead", help="CSV for the NumPy call overhead")
    p.add_argument("--torch", help="CSV for linsolve vs torch.linalg.solve on CUDA")
    p.add_argument("--small", default="8,16,32,64,128,256,512,1024",
                   help="--overhead sizes")
    p.add_argument("--singles", default="64,256,1024,2048,4096,8192,16384",
                   help="orders of the single systems")
    p.add_argument("--stacks", default="100000x8,100000x32,8192x128,512x512",
                   help="stacks as BATCHxN, comma-separated ('' for none)")
    p.add_argument("--repeat", type=int, default=15, help="timed calls per row (>= 7)")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls first")
    p.add_argument("--breakdown", action="store_true",
                   help="print where linsolve's time goes for each row")
    args = p.parse_args()
    if not args.overhead and not args.torch:
        p.error("give --overhead and/or --torch")
    if args.repeat < 7:
        p.error("--repeat must be at least 7")
    if args.overhead:
        overhead(args.overhead, [int(s) for s in args.small.split(",")], max(args.repeat, 20),
                 args.warmup)
    if args.torch:
        versus_torch(args.torch, [int(s) for s in filter(None, args.singles.split(","))],
                     _stacks(args.stacks), args.repeat, args.warmup, args.breakdown)


if __name__ == "__main__":
    main()
