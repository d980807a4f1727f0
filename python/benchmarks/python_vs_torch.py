"""Benchmark, not a test: Python-call overhead from NumPy, and linsolve
against torch.linalg.solve on CUDA tensors in the same run.

    python python_vs_torch.py --overhead overhead.csv --torch python-vs-torch.csv

--overhead writes n,linsolve_us,numpy_us (median of repeated solves of one
right-hand side from NumPy, n = 8 ... 1024). --torch writes
n,precision,linsolve_ms,torch_ms,ratio (ratio = torch / linsolve, above 1 when
linsolve is faster, as in lu-vs-cusolver.csv; each the
median of --repeat solves of A X = B with one right-hand side after a warm-up,
timed with the device synchronised); it needs PyTorch with a CUDA device.
"""
import argparse
import csv
import statistics
import sys
import time

import numpy as np

import linsolve


def _median_time(fn, repeat, sync=lambda: None):
    fn()
    sync()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def overhead(path, sizes, repeat):
    rng = np.random.default_rng(1)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "linsolve_us", "numpy_us"])
        for n in sizes:
            a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n) * 0.1
            b = rng.uniform(-1, 1, n)
            tl = _median_time(lambda: linsolve.solve(a, b, backend="cpu"), repeat)
            tn = _median_time(lambda: np.linalg.solve(a, b), repeat)
            w.writerow([n, f"{tl * 1e6:.1f}", f"{tn * 1e6:.1f}"])
            print(f"n={n:5d}  linsolve {tl * 1e6:10.1f} us  numpy {tn * 1e6:10.1f} us", flush=True)


def versus_torch(path, sizes, repeat):
    import torch
    if not torch.cuda.is_available():
        sys.exit("--torch needs PyTorch with a CUDA device")
    sync = torch.cuda.synchronize
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "precision", "linsolve_ms", "torch_ms", "ratio"])
        for prec, dt in (("double", torch.float64), ("single", torch.float32)):
            for n in sizes:
                g = torch.Generator(device="cuda").manual_seed(n)
                # uniform(-1, 1): partial pivoting swaps rows at nearly every column
                a = torch.rand((n, n), device="cuda", dtype=dt, generator=g) * 2 - 1
                b = torch.rand((n, 1), device="cuda", dtype=dt, generator=g)
                # check=False: no residual or info read-back, as torch does none
                tl = _median_time(lambda: linsolve.solve(a, b, check=False), repeat, sync)
                tt = _median_time(lambda: torch.linalg.solve(a, b), repeat, sync)
                w.writerow([n, prec, f"{tl * 1e3:.3f}", f"{tt * 1e3:.3f}", f"{tt / tl:.3f}"])
                print(f"n={n:6d} {prec:6s} linsolve {tl * 1e3:9.3f} ms  torch {tt * 1e3:9.3f} ms"
                      f"  ratio {tt / tl:.3f}", flush=True)
                a = b = None  # free the device memory before the next size
                torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--overhead", help="CSV for the NumPy call overhead")
    p.add_argument("--torch", help="CSV for linsolve vs torch.linalg.solve on CUDA")
    p.add_argument("--small", default="8,16,32,64,128,256,512,1024")
    p.add_argument("--large", default="1024,2048,4096,8192,16384")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    if not args.overhead and not args.torch:
        p.error("give --overhead and/or --torch")
    if args.overhead:
        overhead(args.overhead, [int(s) for s in args.small.split(",")], max(args.repeat, 20))
    if args.torch:
        versus_torch(args.torch, [int(s) for s in args.large.split(",")], args.repeat)


if __name__ == "__main__":
    main()
