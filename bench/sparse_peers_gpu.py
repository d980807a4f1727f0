"""CuPy peers of bench/sparse_vs_scipy.py: cupyx.scipy.sparse.linalg on the GPU.

Importing this module does not import CuPy; load() does, and says why not
when it cannot (no CuPy, no GPU), so the bench goes on without these peers.

One run of run():
  t0  host -> device copy of A (CSR: data, indices, indptr) and b
  t1  preconditioner setup + solve, all on the GPU as CuPy does it
  t2  device -> host copy of x
  t3
time = t3 - t0 (the fair peer of linsolve's time_solve, which includes its
own uploads and preconditioner setup), time_nocopy = t2 - t1. The device is
synchronised before each of these marks.

Preconditioners, the nearest CuPy has to linsolve's:
  jacobi  a LinearOperator multiplying by 1 / diag(A), computed on the GPU
  ilu0    cupyx spilu(A, fill_factor=1): cuSPARSE csrilu02 on the GPU, ILU(0)
          without pivoting (CuPy then splits L and U on the host and applies
          them with cusparseSpSM, whose analysis runs on every apply)
  ilut    cupyx spilu(A, drop_tol, fill_factor): SciPy's SuperLU ILUTP on the
          host, L and U moved to the GPU
  none    no preconditioner
GMRES in CuPy tests convergence only at the end of each restart cycle, so its
iteration count is a multiple of the restart length (counted here as restart
cycles x restart); its maxiter counts inner iterations (SciPy's counts cycles).
"""
import inspect
import time

import numpy as np


class NotAvailable(Exception):
    """The peer has no such solver or preconditioner here, or its setup failed."""


_mods = None


def load(device=None):
    """(True, description) when CuPy and a GPU are usable, else (False, reason)."""
    global _mods
    try:
        import cupy
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cspla
        ndev = cupy.cuda.runtime.getDeviceCount()
        if ndev < 1:
            return False, "cupy not available (no CUDA device)"
        dev = cupy.cuda.Device(device or 0)
        dev.use()
        props = cupy.cuda.runtime.getDeviceProperties(dev.id)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception as e:  # ImportError, CUDARuntimeError, ...
        return False, "cupy not available (%s: %s)" % (type(e).__name__, str(e)[:120])
    _mods = (cupy, csp, cspla)
    have = [f for f in ("cg", "gmres", "bicgstab", "spsolve", "spilu", "splu", "LinearOperator")
            if hasattr(cspla, f)]
    missing = [f for f in ("cg", "gmres", "bicgstab", "spsolve", "spilu") if f not in have]
    return True, "cupy %s, device %d: %s, CUDA runtime %d; cupyx.scipy.sparse.linalg has %s%s" % (
        cupy.__version__, dev.id, name, cupy.cuda.runtime.runtimeGetVersion(), ",".join(have),
        ("; LACKS " + ",".join(missing)) if missing else "")


def free():
    """Give CuPy's pooled device memory back (between matrices)."""
    if _mods is not None:
        _mods[0].get_default_memory_pool().free_all_blocks()
        _mods[0].get_default_pinned_memory_pool().free_all_blocks()


def _tol_kw(fn):
    """CuPy >= 14 takes rtol= (as SciPy >= 1.12), older CuPy tol=."""
    try:
        return "rtol" if "rtol" in inspect.signature(fn).parameters else "tol"
    except (TypeError, ValueError):
        return "rtol"


def _precond(cp, cspla, Ag, precond, o):
    if precond in ("none", "", None):
        return None
    if precond == "jacobi":
        if o.get("zero_diag"):
            raise NotAvailable("jacobi: zero or missing diagonal entry")
        dinv = 1.0 / Ag.diagonal()
        return cspla.LinearOperator(Ag.shape, matvec=lambda v: dinv * v, dtype=Ag.dtype)
    if not hasattr(cspla, "spilu"):
        raise NotAvailable("cupyx has no spilu")
    try:
        if precond == "ilu0":
            ilu = cspla.spilu(Ag, fill_factor=1)
        elif precond == "ilut":
            ilu = cspla.spilu(Ag, drop_tol=o["ilut_tol"], fill_factor=o["ilut_fill_factor"])
        else:
            raise NotAvailable("no CuPy preconditioner %r" % precond)
    except NotAvailable:
        raise
    except Exception as e:  # zero pivot, SciPy missing, ...
        raise NotAvailable("spilu: %s: %s" % (type(e).__name__, str(e)[:80]))
    return cspla.LinearOperator(Ag.shape, matvec=ilu.solve, dtype=Ag.dtype)


def _solve(cp, cspla, Ag, bg, method, precond, o):
    """x, info, iterations (None for direct) on the GPU."""
    if method == "direct":
        try:
            return cspla.spsolve(Ag, bg), 0, None
        except NotImplementedError as e:
            raise NotAvailable("cupyx spsolve unavailable (%s)" % e)
    fn = getattr(cspla, method, None)
    if fn is None:
        raise NotAvailable("cupyx has no %s (CuPy %s)" % (method, cp.__version__))
    M = _precond(cp, cspla, Ag, precond, o)
    count = [0]

    def cb(_):
        count[0] += 1

    kw = {_tol_kw(fn): o["rtol"], "atol": 0.0, "M": M, "callback": cb}
    if method == "gmres":
        r = o["restart"]
        kw.update(restart=r, maxiter=max(1, o["max_iter"] // r) * r, callback_type="pr_norm")
        x, info = fn(Ag, bg, **kw)
        return x, int(info), count[0] * r
    x, info = fn(Ag, bg, maxiter=o["max_iter"], **kw)
    return x, int(info), count[0]


def _small_system(n=64):
    """A 1-D Laplacian, for warming up a direct solve without paying for A's."""
    import scipy.sparse as sp
    A = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    return A, A @ np.ones(n)


def run(A, b, method, precond, o, want_x, warm=False):
    """One solve of A x = b (scipy CSR, numpy b) on the GPU, timed as above.

    warm: the untimed warm-up, which only has to compile and run every CuPy
    kernel once: an iterative solve capped at o["warmup_iters"] iterations,
    a direct one on a small system (cupyx spsolve is cuSOLVER's QR; its cost
    at large n is the solve itself, not compilation).
    """
    if _mods is None:
        raise NotAvailable("cupy not loaded")
    cp, csp, cspla = _mods
    if warm:
        if method == "direct":
            A, b = _small_system()
        else:
            o = dict(o, max_iter=min(o["max_iter"], o.get("warmup_iters", 35)))
    dev = cp.cuda.Device()
    dev.synchronize()
    t0 = time.perf_counter()
    Ag = csp.csr_matrix(A)  # copies data, indices, indptr to the device
    Ag.has_canonical_format = True  # the bench hands over a canonical CSR
    bg = cp.asarray(b)
    dev.synchronize()
    t1 = time.perf_counter()
    x, info, its = _solve(cp, cspla, Ag, bg, method, precond, o)
    dev.synchronize()
    t2 = time.perf_counter()
    xh = cp.asnumpy(x)
    t3 = time.perf_counter()
    return {"time": t3 - t0, "time_nocopy": t2 - t1, "info": info, "iterations": its,
            "x": np.asarray(xh, dtype=float).ravel() if want_x else None}
