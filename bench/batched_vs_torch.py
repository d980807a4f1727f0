#!/usr/bin/env python3
"""Benchmark, not a test: the library's batched solve on the GPU against
torch.linalg.solve_ex with each of torch's linalg backends, on the same
stacks, in one process.

    python3 bench/batched_vs_torch.py --lib BUILD/lib/liblinsolve.so \\
        --csv batched-vs-torch.csv

Shapes: the rows of `linsolve bench --batched` (n = 2 ... 1024 with that
table's batch sizes; --shapes NxBATCH,... to choose), one right-hand side
per system, FP64 and FP32 (--precision). Sides, each on torch's current
stream with its input restored (device copies, off the clock) before every
run, timed by CUDA events around the call alone, median of --repeat runs
after --warmup:
  ours     ls_?gesv_batched_gpu (the library through ctypes; C-order torch
           stacks, LS_ROW_MAJOR, queued on torch's stream by
           ls_context_set_stream) with ipiv NULL, as the planner calls it
           for every front end's batched solve (torch's solve_ex returns no
           pivots either); and, to show what the layout costs, the same
           call with LS_COL_MAJOR on the same bytes (the transposed
           systems: the cost of a Fortran-order stack)
  torch    torch.linalg.solve_ex(A, B, check_errors=False) (no host
           synchronisation, like ours) with
           torch.backends.cuda.preferred_linalg_library set to "default",
           "cusolver" and "magma" in turn
The matrices and B are uniform(-1, 1), as `linsolve bench --batched`
draws them (partial pivoting moves rows at nearly every column). After the runs
the scaled residual ||b - A x||inf / (n ||A||inf ||x||inf eps) of three
systems of each side (first, middle, last) is computed in FP64; a side
above 30, or with a nonzero info on our side, has no ratio (the row says
why).

--csv writes, after `# commit:`, `# command:` and `# device:` lines, the
header n,batch,precision,ls_ms,ls_colmajor_ms,torch_default_ms,
torch_cusolver_ms,torch_magma_ms,best_torch,ratio and a row per shape and
precision, ratio = the best torch time / ls_ms (above 1 when ours is
faster).
Exit status: 0, 1 bad options, 2 no CUDA device or torch, 3 the library
could not be loaded, 4 a row without a ratio.
"""
import argparse
import ctypes
import os
import shlex
import statistics
import subprocess
import sys

DEFAULT_SHAPES = ("2x100000,4x100000,8x100000,16x100000,32x100000,64x65536,"
                  "128x16384,256x4096,512x1024,1024x256")
BACKENDS = ("default", "cusolver", "magma")
LS_BACKEND_CUDA = 2
LS_COL_MAJOR = 0
LS_ROW_MAJOR = 1


def git_commit():
    """The commit this script's tree is at, or LS_GIT_COMMIT (an export has no .git)."""
    if os.environ.get("LS_GIT_COMMIT"):
        return os.environ["LS_GIT_COMMIT"]
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.check_output(["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
                                       stderr=subprocess.DEVNULL, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def parse_shapes(text):
    shapes = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        n, _, batch = item.partition("x")
        shapes.append((int(n), int(batch)))
        if shapes[-1][0] < 1 or shapes[-1][1] < 1:
            raise ValueError(item)
    return shapes


class Library:
    """The library's batched device solve, through ctypes."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        vp, i, ll, c = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong, ctypes.c_char_p
        self.lib.ls_context_create.argtypes = [ctypes.POINTER(vp), i, i]
        self.lib.ls_context_set_stream.argtypes = [vp, vp]
        self.lib.ls_context_error.argtypes = [vp]
        self.lib.ls_context_error.restype = c
        self.lib.ls_context_destroy.argtypes = [vp]
        for name in ("ls_dgesv_batched_gpu", "ls_sgesv_batched_gpu"):
            getattr(self.lib, name).argtypes = [i, i, i, vp, i, ll, vp, vp, i, ll, vp, i, vp]
        self.ctx = vp()
        st = self.lib.ls_context_create(ctypes.byref(self.ctx), LS_BACKEND_CUDA, 0)
        if st != 0:
            raise RuntimeError(f"ls_context_create(CUDA) returned {st}")

    def set_stream(self, stream_ptr):
        st = self.lib.ls_context_set_stream(self.ctx, ctypes.c_void_p(stream_ptr))
        if st != 0:
            raise RuntimeError(f"ls_context_set_stream returned {st}")

    def gesv(self, A, ipiv, B, info, layout=LS_ROW_MAJOR):
        """A (batch, n, n), B (batch, n, 1), C order, on the device; with
        LS_COL_MAJOR the same bytes are read as the transposed matrices."""
        batch, n = A.shape[0], A.shape[1]
        fn = self.lib.ls_dgesv_batched_gpu if A.element_size() == 8 else self.lib.ls_sgesv_batched_gpu
        ldb = 1 if layout == LS_ROW_MAJOR else n
        piv = ipiv.data_ptr() if ipiv is not None else None
        st = fn(layout, n, 1, A.data_ptr(), n, n * n, piv, B.data_ptr(), ldb, n,
                info.data_ptr(), batch, self.ctx)
        if st != 0:
            err = self.lib.ls_context_error(self.ctx)
            raise RuntimeError(f"ls_gesv_batched_gpu returned {st}: {err.decode() if err else ''}")


def scaled_residual(torch, A0, B0, X, idx, eps):
    worst = 0.0
    for k in idx:
        a, b, x = A0[k].double(), B0[k].double(), X[k].double()
        r = (b - a @ x).abs().max().item()
        an = a.abs().sum(dim=1).max().item()
        xn = x.abs().max().item()
        den = a.shape[0] * an * xn * eps
        val = float("nan") if x.isnan().any().item() else (0.0 if r == 0 else
                                                            (r / den if den > 0 else float("inf")))
        worst = val if val != val or val > worst else worst
    return worst


def time_side(torch, run, restore, warmup, repeat):
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(warmup + repeat):
        restore()
        torch.cuda.synchronize()
        ev0.record()
        run()
        ev1.record()
        ev1.synchronize()
        if r >= warmup:
            times.append(ev0.elapsed_time(ev1))
    return statistics.median(times)


def one_row(torch, lib, n, batch, prec, args):
    dt = torch.float64 if prec == "fp64" else torch.float32
    eps = 2.0 ** -53 if prec == "fp64" else 2.0 ** -24
    g = torch.Generator(device="cuda").manual_seed(1000 + n)
    A0 = torch.rand(batch, n, n, device="cuda", dtype=dt, generator=g) * 2 - 1
    B0 = torch.rand(batch, n, 1, device="cuda", dtype=dt, generator=g) * 2 - 1
    A, B = torch.empty_like(A0), torch.empty_like(B0)
    ipiv = None  # not asked for, as the planner calls it
    info = torch.empty(batch, device="cuda", dtype=torch.int32)

    def restore():
        A.copy_(A0)
        B.copy_(B0)

    idx = sorted({0, batch // 2, batch - 1})
    lib.set_stream(torch.cuda.current_stream().cuda_stream)
    t_ls = time_side(torch, lambda: lib.gesv(A, ipiv, B, info), restore, args.warmup, args.repeat)
    torch.cuda.synchronize()
    bad_info = int((info != 0).sum().item())
    res = {"ls": scaled_residual(torch, A0, B0, B, idx, eps)}
    t_cm = time_side(torch, lambda: lib.gesv(A, ipiv, B, info, LS_COL_MAJOR), restore,
                     args.warmup, args.repeat)
    torch.cuda.synchronize()
    bad_info += int((info != 0).sum().item())
    res["ls_colmajor"] = scaled_residual(torch, A0.transpose(1, 2), B0, B, idx, eps)
    t = {}
    out = {}
    for be in BACKENDS:

        def run():
            out["x"] = torch.linalg.solve_ex(A, B, check_errors=False)[0]

        try:
            torch.backends.cuda.preferred_linalg_library(be)
            t[be] = time_side(torch, run, restore, args.warmup, args.repeat)
            torch.cuda.synchronize()
            res[be] = scaled_residual(torch, A0, B0, out["x"], idx, eps)
        except RuntimeError as e:  # a backend this torch build lacks
            print(f"# torch backend {be}: {str(e).splitlines()[0]}", flush=True)
            t[be], res[be] = float("nan"), float("nan")
    torch.backends.cuda.preferred_linalg_library("default")
    del A0, B0, A, B, ipiv, info, out
    torch.cuda.empty_cache()
    ok = {be: res[be] == res[be] and res[be] <= 30 for be in BACKENDS}
    best = min((be for be in BACKENDS if ok[be]), key=lambda be: t[be], default=None)
    ls_ok = all(res[k] == res[k] and res[k] <= 30 for k in ("ls", "ls_colmajor"))
    if bad_info or not ls_ok:
        ratio = (f"refused:ls_residual={res['ls']:.3g};colmajor={res['ls_colmajor']:.3g};"
                 f"bad_info={bad_info}")
    elif best is None:
        ratio = "refused:no_torch_backend_passed"
    else:
        ratio = f"{t[best] / t_ls:.4f}"
    line = (f"{n},{batch},{prec},{t_ls:.6f},{t_cm:.6f},{t['default']:.6f},{t['cusolver']:.6f},"
            f"{t['magma']:.6f},{best or 'none'},{ratio}")
    note = "residuals " + " ".join(f"{k}={v:.3g}" for k, v in res.items())
    return line, note, ratio[0].isdigit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="liblinsolve.so of a CUDA build")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help="NxBATCH,... (default: %(default)s)")
    ap.add_argument("--precision", default="fp64,fp32")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    try:
        shapes = parse_shapes(args.shapes)
        precs = [p for p in args.precision.split(",") if p]
        if not precs or any(p not in ("fp64", "fp32") for p in precs) or args.repeat < 1:
            raise ValueError(args.precision)
    except ValueError as e:
        print(f"batched_vs_torch: bad option: {e}", file=sys.stderr)
        return 1
    try:
        import torch
    except ImportError:
        print("batched_vs_torch: needs torch", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("batched_vs_torch: needs a CUDA device", file=sys.stderr)
        return 2
    try:
        lib = Library(args.lib)
    except (OSError, RuntimeError) as e:
        print(f"batched_vs_torch: {e}", file=sys.stderr)
        return 3
    cmd = "python3 bench/batched_vs_torch.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    ok_all = True
    with open(args.csv + ".tmp", "w") as f:
        f.write(f"# commit: {git_commit()}\n# command: {cmd}\n")
        f.write(f"# device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}\n")
        f.write("n,batch,precision,ls_ms,ls_colmajor_ms,torch_default_ms,torch_cusolver_ms,"
                "torch_magma_ms,best_torch,ratio\n")
        for n, batch in shapes:
            for prec in precs:
                line, note, ok = one_row(torch, lib, n, batch, prec, args)
                ok_all &= ok
                f.write(line + "\n")
                f.flush()
                print(line, "#", note, flush=True)
    os.replace(args.csv + ".tmp", args.csv)
    return 0 if ok_all else 4


if __name__ == "__main__":
    sys.exit(main())
