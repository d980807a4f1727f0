#!/usr/bin/env python3
"""linsolve's sparse solvers (CPU or CUDA) against SciPy's and CuPy's, on the same matrices, in one run.

For every matrix: b = A * ones (what `linsolve solve A` uses without B), then
for each method (and preconditioner) the same system on every side:
  direct    linsolve --method direct (CPU: UMFPACK LU; CUDA: cuDSS)
                vs scipy.sparse.linalg.spsolve (SuperLU) and cupyx spsolve (cuSOLVER QR)
  gmres     linsolve GMRES(30), right-preconditioned, equilibrated
                vs scipy gmres(restart=30) and cupyx gmres(restart=30)
  bicgstab  linsolve BiCGStab vs scipy bicgstab and cupyx bicgstab
  cg        linsolve CG vs scipy cg and cupyx cg (A symmetric, positive diagonal only)
Preconditioners (`--methods gmres:ilu0,bicgstab:jacobi,...`; a bare method
takes the backend's defaults: CPU ilu0 for all, as before; CUDA cg:jacobi,
gmres:ilu0, bicgstab:jacobi and bicgstab:ilu0):
  jacobi    peers: a LinearOperator multiplying by 1/diag(A)
  ilu0      SciPy: spilu(drop_tol=0, fill_factor=1) (SuperLU's ILUTP: about
            A's own fill, the nearest it has to ILU(0), not symmetric);
            CuPy: spilu(fill_factor=1) = cuSPARSE ILU(0) on the GPU
  ilut      linsolve --precond ilut (tol 1e-4, fill 10 per row) vs spilu with
            drop_tol 1e-4 and the same fill ratio (SciPy; CuPy via SciPy on the host)
linsolve equilibrates (and permutes when the diagonal needs it); the peers
iterate on A as given. Every side stops at the same relative tolerance
||b - A x||2 <= rtol ||b||2, rtol = 10 sqrt(n) eps (linsolve's default) unless
--rtol, and the same iteration cap (--max-iter; auto: 2000, for CG
max(2000, 4 sqrt(n)) as linsolve's auto rule; SciPy's gmres counts restart
cycles, 2000 // 30 of them, CuPy's a multiple of 30 up to the cap).

Times are the solve only, the median of --repeats runs:
  linsolve  the CLI's own time_solve (`linsolve solve --format sparse --json`),
            which excludes reading the file and includes preconditioner setup
            (and equilibration, permutation) and, on CUDA, the host -> device
            copies
  scipy     the call (ILU setup, LU factorisation and the CSC conversion
            spsolve needs included); SciPy's sparse kernels are single-threaded
            (NumPy's BLAS may thread the dense vector work)
  cupy      time_s: host -> device copy of A and b + setup + solve + copy of x
            back (the fair peer of linsolve's CUDA time); time_nocopy_s: setup
            + solve only; one untimed warm-up run per matrix and solver first,
            capped at --warmup-iters iterations (direct: a small system), so
            that CuPy's kernel compilation is not timed; the device is
            synchronised around every mark
Residuals are computed here, the same way for all, on the CPU from the x each
solver returned (linsolve's through `-o x.npy`): rel_residual =
||b - A x||2 / ||b||2 and scaled_residual = ||b - A x||inf / (n ||A||inf ||x||inf eps);
ok = scaled_residual <= 30 (linsolve's exit-status test). The CLI writes no x
for a solve that did not converge; such a row takes the CLI's own scaled
residual (the same formula, in C) and has no rel_residual.

The peers run in a child process, so that --timeout (per call; SciPy's
calls --scipy-timeout when less) can stop one stuck in C (spsolve, spilu); a
timed-out call is recorded as such and the child restarted. --deadline
bounds the whole run: no call starts after it, the rest is recorded as
skipped. cupyx spsolve is skipped above --cupy-spsolve-max-n (2e5),
SciPy's spsolve above --scipy-spsolve-max-n (1.1e6), all SciPy peers above
--scipy-max-n (1e6); skips are recorded.

Output (--csv): with --backend cpu (default) the CPU table as before (one row per
matrix x method: linsolve and SciPy side by side; columns precond,
ls_rel_residual, peer_rel_residual, speedup appended); otherwise (or
--layout long) one row per matrix x method x solver:
  matrix,n,nnz,method,solver,precond,time_s,time_nocopy_s,iterations,
  rel_residual,scaled_residual,converged,ok,speedup_vs_scipy,vs_cupy,rtol,max_iter,note
speedup_vs_scipy = SciPy's time / this row's, vs_cupy = CuPy's time (copies
included) / this row's, both for the same method and preconditioner.
converged: yes / no (the solver's own verdict), - for direct, or why there
is no result: timeout, unsupported (linsolve exit 5), n/a (the peer has no
such solver or its setup failed), skipped, failed.

usage: bench/sparse_vs_scipy.py --linsolve BUILD/bin/linsolve [--backend cpu|cuda|cpu,cuda]
           [--real DIR] [--poisson 1e4,1e5,1e6] [--convdiff 1e6]
           [--methods cg,gmres,bicgstab,direct] [--repeats 3] [--timeout 600]
           [--csv bench/results/cpu/sparse.csv]
"""
import argparse
import inspect
import json
import math
import multiprocessing as mp
import os
import signal
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparse_peers_gpu as gpu_peers  # noqa: E402  (imports CuPy only when asked)

NotAvailable = gpu_peers.NotAvailable
EPS = np.finfo(float).eps
MAX_ITER = 2000
RESTART = 30
ILUT_TOL, ILUT_FILL = 1e-4, 10  # linsolve's --ilut-tol / --ilut-fill defaults
DEFAULT_PRECONDS = {
    "cpu": {"direct": ["none"], "gmres": ["ilu0"], "bicgstab": ["ilu0"], "cg": ["ilu0"]},
    "cuda": {"direct": ["none"], "gmres": ["ilu0"], "bicgstab": ["jacobi", "ilu0"],
             "cg": ["jacobi"]},
}
PRECOND_NAMES = {"none": "", "jacobi": "jacobi", "ilu0": "spilu", "ilut": "spilu(ilut)"}


def scaled_residual(A, b, x):
    if not np.all(np.isfinite(x)):
        return math.inf
    r = np.abs(b - A @ x).max()
    anorm = np.abs(A).sum(axis=1).max()
    xn = np.abs(x).max()
    n = A.shape[0]
    return 0.0 if r == 0 else r / (n * anorm * xn * EPS)


def rel_residual(A, b, x):
    if not np.all(np.isfinite(x)):
        return math.inf
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def symmetric(A):
    return (A - A.T).count_nonzero() == 0 and np.all(A.diagonal() > 0)


def fmt(v, f="%.4g"):
    return "" if v is None else f % v


# --------------------------------------------------------------------------
# SciPy peers (run in the peer process)

def _tol_kw(fn):
    """SciPy >= 1.12 takes rtol= (tol= is gone from 1.14), older tol=."""
    return "rtol" if "rtol" in inspect.signature(fn).parameters else "tol"


def scipy_precond(A, precond, o):
    if precond in ("none", "", None):
        return None
    if precond == "jacobi":
        if o["zero_diag"]:
            raise NotAvailable("jacobi: zero or missing diagonal entry")
        dinv = 1.0 / A.diagonal()
        return spla.LinearOperator(A.shape, matvec=lambda v: dinv * v, dtype=float)
    try:
        if precond == "ilu0":
            ilu = spla.spilu(A.tocsc(), drop_tol=0.0, fill_factor=1.0)
        elif precond == "ilut":
            ilu = spla.spilu(A.tocsc(), drop_tol=o["ilut_tol"], fill_factor=o["ilut_fill_factor"])
        else:
            raise NotAvailable("no SciPy preconditioner %r" % precond)
    except NotAvailable:
        raise
    except Exception as e:  # e.g. RuntimeError: Factor is exactly singular
        raise NotAvailable("%s: %s" % (type(e).__name__, str(e)[:60]))
    return spla.LinearOperator(A.shape, ilu.solve)


def scipy_run(A, b, method, precond, o, want_x):
    count = [0]

    def cb(_):
        count[0] += 1

    t0 = time.perf_counter()
    if method == "direct":
        x, info, its = spla.spsolve(A.tocsc(), b), 0, None
    else:
        M = scipy_precond(A, precond, o)
        fn = getattr(spla, method)
        kw = {_tol_kw(fn): o["rtol"], "atol": 0.0, "M": M, "callback": cb}
        if method == "gmres":
            x, info = fn(A, b, restart=o["restart"], maxiter=max(1, o["max_iter"] // o["restart"]),
                         callback_type="pr_norm", **kw)
        else:
            x, info = fn(A, b, maxiter=o["max_iter"], **kw)
        its = count[0]
    t = time.perf_counter() - t0
    return {"time": t, "time_nocopy": None, "info": int(info), "iterations": its,
            "x": np.asarray(x, dtype=float).ravel() if want_x else None}


def _worker_main(conn, device):
    """The peer process: holds the current matrix, runs one solve per request."""
    A = b = None
    zero_diag = False
    gpu = None  # None: not tried; else (ok, description)
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        kind = msg[0]
        try:
            if kind == "quit":
                return
            if kind == "probe":
                desc = "scipy %s, numpy %s, python %s, %d CPUs, OMP_NUM_THREADS=%s OPENBLAS_NUM_THREADS=%s" % (
                    scipy.__version__, np.__version__, sys.version.split()[0], os.cpu_count(),
                    os.environ.get("OMP_NUM_THREADS", "-"), os.environ.get("OPENBLAS_NUM_THREADS", "-"))
                if msg[1] and gpu is None:
                    gpu = gpu_peers.load(device)
                conn.send(("ok", {"cpu": desc, "gpu": gpu}))
            elif kind == "load":
                data, indices, indptr, shape, b = msg[1:]
                A = sp.csr_matrix((data, indices, indptr), shape=shape)
                A.has_canonical_format = True
                d = A.diagonal()
                zero_diag = bool(np.any(d == 0))
                if gpu is not None and gpu[0]:
                    gpu_peers.free()
                conn.send(("ok", None))
            elif kind == "run":
                solver, method, precond, o, want_x, warm = msg[1:]
                o = dict(o, zero_diag=zero_diag)
                if solver == "scipy":
                    res = scipy_run(A, b, method, precond, o, want_x)
                else:
                    if gpu is None:
                        gpu = gpu_peers.load(device)
                    if not gpu[0]:
                        raise NotAvailable(gpu[1])
                    res = gpu_peers.run(A, b, method, precond, o, want_x, warm)
                conn.send(("ok", res))
        except NotAvailable as e:
            conn.send(("n/a", str(e)))
        except Exception as e:
            conn.send(("failed", "%s: %s" % (type(e).__name__, str(e)[:100])))


class Peers:
    """The parent's handle on the peer process; restarts it after a timeout."""

    def __init__(self, device):
        self.ctx = mp.get_context("spawn")  # no fork after CUDA, no inherited state
        self.device = device
        self.proc = self.conn = None
        self.matrix = None
        self.loaded = False

    def _start(self):
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker_main, args=(child, self.device), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.loaded = False

    def stop(self):
        if self.proc is not None:
            try:
                self.conn.send(("quit",))
                self.proc.join(2)
            except (OSError, BrokenPipeError):
                pass
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
            self.conn.close()
        self.proc = self.conn = None

    def _kill(self):
        self.proc.kill()  # the child this object started
        self.proc.join()
        self.conn.close()
        self.proc = self.conn = None

    def call(self, msg, timeout):
        """(status, payload): status ok / n/a / failed / timeout."""
        if self.proc is None:
            self._start()
        try:
            self.conn.send(msg)
            if not self.conn.poll(max(timeout, 0.01)):
                self._kill()
                return "timeout", "timed out after %.3g s" % timeout
            return self.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            code = self.proc.exitcode if self.proc is not None else None
            self._kill()
            return "failed", "peer process died (exit %s)" % code

    def probe(self, want_gpu, timeout=120):
        return self.call(("probe", want_gpu), timeout)

    def load(self, A, b):
        self.matrix = (A.data, A.indices, A.indptr, A.shape, b)
        self.loaded = False

    def run(self, solver, method, precond, o, want_x, warm, timeout):
        if self.proc is None or not self.loaded:
            st, p = self.call(("load",) + self.matrix, max(timeout, 120))
            if st != "ok":
                return st, "loading the matrix: " + str(p)
            self.loaded = True
        return self.call(("run", solver, method, precond, o, want_x, warm), timeout)


# --------------------------------------------------------------------------
# linsolve through its CLI

def ls_run(a, backend, path, method, precond, o, repeats, xfile, timeout_fn):
    args = [a.linsolve, "solve", path, "--format", "sparse", "--json", "--method", method,
            "--backend", backend, "-o", xfile]
    if a.device is not None and backend != "cpu":
        args += ["--device", str(a.device)]
    if method != "direct":
        args += ["--precond", precond, "--max-iter", str(o["max_iter"])]
        if a.rtol is not None:
            args += ["--rtol", repr(a.rtol)]
    rec = {"solver": "linsolve-" + backend, "status": "ran", "note": "", "times": []}
    last, stop = None, None
    for _ in range(repeats):
        t = timeout_fn()
        if t is None:
            stop = ("skipped", "skipped (deadline)")
            break
        if os.path.exists(xfile):
            os.remove(xfile)
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=t)
        except subprocess.TimeoutExpired:
            stop = ("timeout", "timed out after %.3g s" % t)
            break
        line = [l for l in p.stdout.splitlines() if l.startswith("{")]
        msg = " ".join(p.stderr.split())[:100]
        js = json.loads(line[-1]) if line else None
        if p.returncode == 5 or (js is not None and js.get("exit_code") == 5):
            stop = ("unsupported", "unsupported (exit 5): " + ((js or {}).get("message") or msg))
            break
        if js is None:
            stop = ("failed", "failed (exit %d): %s" % (p.returncode, msg))
            break
        last = js
        rec["times"].append(js["time_solve"])
        if os.path.exists(xfile):
            rec["x"] = np.load(xfile).astype(float).ravel()
            os.remove(xfile)
    if last is None:
        rec.update(status=stop[0], note=stop[1])
        rec.pop("x", None)
        return rec
    notes = []
    rec["iterations"] = last.get("iterations") if method != "direct" else None
    rec["converged"] = last.get("status", 1) == 0
    rec["json_ok"], rec["exit_code"] = last.get("ok"), last.get("exit_code")
    rec["json_residual"] = last.get("residual")
    ran_on = last.get("backend", "cpu")
    if ran_on != backend:
        notes.append("ran on %s" % ran_on)
    if not last.get("ok", True):
        notes.append("not ok (exit %s)" % last.get("exit_code"))
    if rec.get("x") is None:
        notes.append("no x written (status %s): the CLI's residual" % last.get("status"))
    if stop:
        notes.append("%d of %d repeats: %s" % (len(rec["times"]), repeats, stop[1]))
    rec["note"] = "; ".join(notes)
    return rec


# --------------------------------------------------------------------------
# one matrix

def parse_methods(spec, preconds):
    """'cg,gmres:ilu0,bicgstab' -> [(method, precond)], bare names take the defaults."""
    out = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        m, _, p = item.partition(":")
        if m not in ("direct", "gmres", "bicgstab", "cg"):
            sys.exit("unknown method %r (direct, gmres, bicgstab, cg)" % m)
        if m == "direct":
            ps = ["none"]
        elif p:
            if p not in ("none", "jacobi", "ilu0", "ilut"):
                sys.exit("unknown preconditioner %r (none, jacobi, ilu0, ilut)" % p)
            ps = [p]
        else:
            ps = preconds[m]
        out += [(m, q) for q in ps if (m, q) not in out]
    return out


class Bench:
    def __init__(self, a):
        self.a = a
        self.start = time.monotonic()
        self.backends = a.backends
        self.want_cupy = "cuda" in self.backends and not a.no_cupy
        self.peers = Peers(a.device)
        self.cupy_ok = False
        self.tmp = tempfile.mkdtemp(prefix="sparse-bench-", dir=a.tmpdir)

    def timeout(self, cap=None):
        """Seconds for the next call, None once the deadline has passed."""
        t = self.a.timeout if cap is None else min(self.a.timeout, cap)
        if self.a.deadline:
            left = self.a.deadline - (time.monotonic() - self.start)
            if left < 2:
                return None
            t = min(t, left)
        return t

    def probe(self):
        st, info = self.peers.probe(self.want_cupy)
        if st != "ok":
            print("peer process: %s %s" % (st, info), flush=True)
            return
        print("peers: " + info["cpu"], flush=True)
        if self.want_cupy:
            self.cupy_ok = bool(info["gpu"] and info["gpu"][0])
            print(("peers: " if self.cupy_ok else "") + info["gpu"][1] +
                  ("" if self.cupy_ok else ": CuPy peers skipped"), flush=True)

    def peer(self, solver, method, precond, o, repeats, warmup):
        rec = {"solver": solver, "status": "ran", "note": "", "times": [], "nocopy": []}
        last, stop = None, None
        cap = self.a.scipy_timeout if solver == "scipy" else None
        for i in range(warmup + repeats):
            t = self.timeout(cap)
            if t is None:
                stop = ("skipped", "skipped (deadline)")
                break
            st, res = self.peers.run(solver, method, precond, o, i >= warmup, i < warmup, t)
            if st != "ok":
                stop = (st, ("timed out after %.3g s" % t) if st == "timeout" else res)
                break
            if i >= warmup:
                last = res
                rec["times"].append(res["time"])
                if res["time_nocopy"] is not None:
                    rec["nocopy"].append(res["time_nocopy"])
        if last is None:
            rec.update(status=stop[0], note=stop[1])
            return rec
        rec["x"] = last["x"]
        rec["iterations"] = last["iterations"]
        rec["converged"] = last["info"] == 0
        notes = ["info %d" % last["info"]] if last["info"] != 0 else []
        if stop:
            notes.append("%d of %d repeats: %s" % (len(rec["times"]), repeats, stop[1]))
        rec["note"] = "; ".join(notes)
        return rec

    def run_matrix(self, name, path, cases, out):
        a = self.a
        if self.timeout() is None:
            print("## %s: skipped (deadline)" % name, flush=True)
            return
        A = sp.csr_matrix(scipy.io.mmread(path), dtype=float)
        A.sum_duplicates()
        A.sort_indices()
        n = A.shape[0]
        b = A @ np.ones(n)
        spd = symmetric(A)
        self.peers.load(A, b)
        repeats = a.large_repeats if n >= a.large_n else a.repeats
        if n >= a.big_n and a.big_methods is not None:
            cases = [c for c in cases if c in a.big_methods or (c[0], "*") in a.big_methods]
        print("## %s: n %d, nnz %d%s, repeats %d (at +%.0f s)" % (
            name, n, A.nnz, ", symmetric" if spd else "", repeats, time.monotonic() - self.start),
            flush=True)
        for m, p in cases:
            if m == "cg" and not spd:
                continue
            max_iter = a.max_iter
            if max_iter is None:
                max_iter = max(MAX_ITER, 4 * math.isqrt(n)) if m == "cg" else MAX_ITER
            rtol = a.rtol if a.rtol is not None else 10 * math.sqrt(n) * EPS
            o = {"rtol": rtol, "max_iter": max_iter, "restart": RESTART, "ilut_tol": ILUT_TOL,
                 "warmup_iters": a.warmup_iters,
                 "ilut_fill_factor": 1.0 + 2.0 * ILUT_FILL * n / max(A.nnz, 1)}
            recs = []
            for be in self.backends:
                recs.append(ls_run(a, be, path, m, p, o, repeats,
                                   os.path.join(self.tmp, "x.npy"), self.timeout))
            if a.no_scipy:
                pass
            elif n > a.scipy_max_n:
                recs.append(skip("scipy", "skipped (n > %g: --scipy-max-n)" % a.scipy_max_n))
            elif m == "direct" and n > a.scipy_spsolve_max_n:
                recs.append(skip("scipy", "skipped (n > %g: --scipy-spsolve-max-n)" %
                                 a.scipy_spsolve_max_n))
            else:
                recs.append(self.peer("scipy", m, p, o, repeats, 0))
            if self.cupy_ok:
                if m == "direct" and n > a.cupy_spsolve_max_n:
                    recs.append(skip("cupy", "skipped (n > %g: --cupy-spsolve-max-n)" %
                                     a.cupy_spsolve_max_n))
                else:
                    recs.append(self.peer("cupy", m, p, o, repeats, 1))
            for r in recs:
                r.update(method=m, precond=p, rtol=rtol, max_iter=max_iter)
                if r.get("x") is not None:
                    r["rel"] = rel_residual(A, b, r["x"])
                    r["scaled"] = scaled_residual(A, b, r["x"])
                    if r.get("converged") and m != "direct" and r["rel"] > 2 * rtol:
                        r["note"] = "; ".join(x for x in (r["note"], "claims convergence at "
                                                          "relative residual %.2g" % r["rel"]) if x)
                elif r.get("json_residual") is not None and r["json_residual"] >= 0:
                    r["scaled"] = r["json_residual"]  # no x back: the CLI's own (same formula)
                r["time"] = statistics.median(r["times"]) if r.get("times") else None
                r["time_nocopy"] = statistics.median(r["nocopy"]) if r.get("nocopy") else None
            if a.layout == "wide":
                write_wide(out, name, n, A.nnz, m, p, recs)
            else:
                write_long(out, name, n, A.nnz, m, p, recs)


def skip(solver, note):
    return {"solver": solver, "status": "skipped", "note": note}


LONG_HEADER = ("matrix,n,nnz,method,solver,precond,time_s,time_nocopy_s,iterations,rel_residual,"
               "scaled_residual,converged,ok,speedup_vs_scipy,vs_cupy,rtol,max_iter,note")
WIDE_HEADER = ("matrix,n,nnz,method,ls_s,peer,peer_s,ls_residual,peer_residual,ls_iterations,"
               "peer_iterations,note,precond,ls_rel_residual,peer_rel_residual,speedup")


def emit(out, row):
    line = ",".join(str(v) for v in row)
    out.write(line + "\n")
    out.flush()
    print(line, flush=True)


def write_long(out, name, n, nnz, m, p, recs):
    ref = {r["solver"]: r.get("time") for r in recs}
    for r in recs:
        t = r.get("time")
        if r["status"] != "ran":
            conv = r["status"]
        else:
            conv = "-" if m == "direct" else ("yes" if r.get("converged") else "no")
        ok = "" if r.get("scaled") is None else ("yes" if r["scaled"] <= 30 else "no")
        sp_ = ref.get("scipy")
        cp_ = ref.get("cupy")
        emit(out, [name, n, nnz, m, r["solver"], p, fmt(t), fmt(r.get("time_nocopy")),
                   "" if r.get("iterations") is None else r["iterations"],
                   fmt(r.get("rel"), "%.3g"), fmt(r.get("scaled"), "%.3g"), conv, ok,
                   fmt(sp_ / t if sp_ and t else None, "%.3g"),
                   fmt(cp_ / t if cp_ and t else None, "%.3g"),
                   "" if m == "direct" else "%.3g" % r["rtol"],
                   "" if m == "direct" else r["max_iter"],
                   r["note"].replace(",", ";")])


def write_wide(out, name, n, nnz, m, p, recs):
    """The CPU table's layout (linsolve and SciPy side by side), columns appended."""
    ls = recs[0]
    pe = next((r for r in recs if r["solver"] == "scipy"), skip("scipy", "no scipy"))
    label = {"direct": "scipy spsolve (SuperLU)", "gmres": "scipy gmres(%d)" % RESTART,
             "bicgstab": "scipy bicgstab", "cg": "scipy cg"}[m]
    if m != "direct" and PRECOND_NAMES.get(p):
        label += "+" + PRECOND_NAMES[p]

    def num(r, k, f="%.4g"):
        v = r.get(k)
        return "nan" if v is None else f % v

    def its(r):
        return -1 if r.get("iterations") is None else r["iterations"]

    ls_note = ls["note"]
    pe_note = pe["note"]
    if pe["status"] == "ran" and pe.get("converged") is False:
        pe_note = "not converged (%s)" % pe["note"]
    note = "; ".join(x for x in ("linsolve " + ls_note if ls_note else "",
                                 "scipy " + pe_note if pe_note else "") if x)
    sp_t, ls_t = pe.get("time"), ls.get("time")
    emit(out, [name, n, nnz, m, num(ls, "time"), label, num(pe, "time"), num(ls, "scaled", "%.3g"),
               num(pe, "scaled", "%.3g"), its(ls), its(pe), note.replace(",", ";"), p,
               num(ls, "rel", "%.3g"), num(pe, "rel", "%.3g"),
               fmt(sp_t / ls_t if sp_t and ls_t else None, "%.3g")])


def size_list(s):
    return [float(v) for v in s.split(",") if v.strip()] if s else []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--linsolve", required=True, help="the CLI, BUILD/bin/linsolve")
    ap.add_argument("--backend", default="cpu",
                    help="linsolve's backend(s): cpu (default), cuda, or cpu,cuda (one row each)")
    ap.add_argument("--device", type=int, default=None,
                    help="GPU index for linsolve (--device) and CuPy")
    ap.add_argument("--real", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "shared", "matrices", "real"),
                    help="directory of coordinate .mtx files ('' for none)")
    ap.add_argument("--poisson", default="1e4,1e5,1e6",
                    help="2-D Poisson sizes (rounded to k^2; '' for none)")
    ap.add_argument("--convdiff", default="",
                    help="2-D convection-diffusion sizes (linsolve gen convdiff, rounded to k^2)")
    ap.add_argument("--methods", default=None,
                    help="METHOD[:PRECOND],... of direct, gmres, bicgstab, cg (default: "
                         "direct,gmres,bicgstab,cg on cpu, cg,gmres,bicgstab,direct on cuda; a "
                         "bare method takes the backend's preconditioners, see above)")
    ap.add_argument("--real-methods", default=None,
                    help="the same for the --real matrices (default: --methods)")
    ap.add_argument("--big-methods", default=None,
                    help="restrict to these at n >= --big-n (default: direct,cg on cpu, where "
                         "GMRES(30)+ILU(0) takes minutes; all on cuda)")
    ap.add_argument("--big-n", type=float, default=1e6, help="see --big-methods (default 1e6)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per solver (default 3)")
    ap.add_argument("--large-repeats", type=int, default=1,
                    help="repeats at n >= --large-n (default 1)")
    ap.add_argument("--large-n", type=float, default=1e5, help="see --large-repeats (default 1e5)")
    ap.add_argument("--rtol", type=float, default=None,
                    help="relative tolerance for all sides (default 10 sqrt(n) eps)")
    ap.add_argument("--max-iter", type=int, default=None,
                    help="iteration cap for all sides (default 2000; CG max(2000, 4 sqrt(n)))")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds per call (one linsolve run, one peer solve) (default 600)")
    ap.add_argument("--scipy-timeout", type=float, default=None,
                    help="seconds per SciPy call, when less than --timeout")
    ap.add_argument("--warmup-iters", type=int, default=35,
                    help="iteration cap of CuPy's warm-up run (default 35: every kernel of "
                         "an iteration and a GMRES(30) cycle compiled and run once)")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds for the whole run; later calls are recorded as skipped "
                         "(default: none)")
    ap.add_argument("--scipy-max-n", type=float, default=1e6,
                    help="no SciPy peers above this n (default 1e6)")
    ap.add_argument("--scipy-spsolve-max-n", type=float, default=1.1e6,
                    help="no SciPy spsolve above this n (default 1.1e6)")
    ap.add_argument("--cupy-spsolve-max-n", type=float, default=2e5,
                    help="no cupyx spsolve (cuSOLVER QR, slow at large n) above this n "
                         "(default 2e5)")
    ap.add_argument("--no-scipy", action="store_true", help="no SciPy peers")
    ap.add_argument("--no-cupy", action="store_true", help="no CuPy peers")
    ap.add_argument("--layout", choices=("wide", "long"), default=None,
                    help="CSV layout (default: wide for --backend cpu, long otherwise)")
    ap.add_argument("--tmpdir", default=None, help="where generated matrices go (default: TMPDIR)")
    ap.add_argument("--csv", default=None,
                    help="output (default bench/results/cpu/sparse.csv for --backend cpu, "
                         "else bench/results/h100/sparse.csv)")
    a = ap.parse_args()

    a.backends = [s.strip() for s in a.backend.split(",") if s.strip()]
    if not a.backends or any(be not in ("cpu", "cuda") for be in a.backends):
        ap.error("--backend: cpu, cuda or cpu,cuda")
    cuda = "cuda" in a.backends
    if a.layout is None:
        a.layout = "wide" if a.backends == ["cpu"] else "long"
    if a.layout == "wide" and len(a.backends) > 1:
        ap.error("--layout wide takes one backend")
    if a.csv is None:
        a.csv = "bench/results/%s/sparse.csv" % ("h100" if cuda else "cpu")
    preconds = DEFAULT_PRECONDS["cuda" if cuda else "cpu"]
    if a.methods is None:
        a.methods = "cg,gmres,bicgstab,direct" if cuda else "direct,gmres,bicgstab,cg"
    cases = parse_methods(a.methods, preconds)
    real_cases = parse_methods(a.real_methods, preconds) if a.real_methods else cases
    if a.big_methods is None and not cuda:
        a.big_methods = "direct,cg"
    if a.big_methods is not None:
        a.big_methods = [(m, p or "*") for m, _, p in
                         (s.strip().partition(":") for s in a.big_methods.split(",") if s.strip())]
        a.big_methods = [(m, "none" if m == "direct" else p) for m, p in a.big_methods]

    print("sparse bench: linsolve %s, backend %s, %s" % (a.linsolve, ",".join(a.backends),
                                                          " ".join(sys.argv[1:])), flush=True)
    bench = Bench(a)

    def _term(*_):
        raise SystemExit(143)  # through the finally below: the peer process goes too

    signal.signal(signal.SIGTERM, _term)
    bench.probe()
    os.makedirs(os.path.dirname(a.csv) or ".", exist_ok=True)
    try:
        with open(a.csv, "w") as out:
            out.write((WIDE_HEADER if a.layout == "wide" else LONG_HEADER) + "\n")
            # the generated sizes first: the targets are there, and a deadline
            # should cut the small real/ matrices rather than them
            for kind, sizes in (("poisson2d", a.poisson), ("convdiff", a.convdiff)):
                for s in size_list(sizes):
                    k = int(round(math.sqrt(s)))
                    if bench.timeout() is None:
                        print("## %s_%dx%d: skipped (deadline)" % (kind, k, k), flush=True)
                        continue
                    path = os.path.join(bench.tmp, "%s_%d.mtx" % (kind, k * k))
                    g = subprocess.run([a.linsolve, "gen", kind, "-n", str(k * k), "-o", path],
                                       capture_output=True, text=True)
                    if g.returncode != 0:
                        print("gen %s -n %d failed: %s" % (kind, k * k, g.stderr.strip()), flush=True)
                        continue
                    try:
                        bench.run_matrix("%s_%dx%d" % (kind, k, k), path, cases, out)
                    finally:
                        os.remove(path)
            if a.real:
                for f in sorted(os.listdir(a.real)):
                    path = os.path.join(a.real, f)
                    if not f.endswith(".mtx"):
                        continue
                    with open(path) as fh:
                        if "coordinate" not in fh.readline():
                            continue  # dense array files are not sparse problems
                    bench.run_matrix(f[:-4], path, real_cases, out)
    finally:
        bench.peers.stop()
        try:
            os.rmdir(bench.tmp)
        except OSError:
            pass
    print("done in %.0f s" % (time.monotonic() - bench.start), flush=True)


if __name__ == "__main__":
    main()
