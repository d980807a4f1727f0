"""CUDA arrays: solved on their device through the library's planner.

PyTorch and CuPy arrays are used directly; other CUDA arrays (JAX, Numba,
anything with ``__dlpack__`` or ``__cuda_array_interface__``) are viewed
through whichever of CuPy or PyTorch is installed, without a copy. The
array library allocates the working copies and the result (its caching
allocator, no cudaMalloc per call); solve hands them to ls_solve_problem
as one problem -- one system, or a whole stack as one strided batch --
queued on the library's current stream. Finiteness and the scaled
residual are computed on the device and come back as a few scalars in
one transfer. cupyx.scipy.sparse matrices are solved sparse on their
device's CUDA context. lu_factor and lu_solve call the MAGMA-shaped
getrf/getrs routines system by system.
"""
import math
import time
import warnings

import numpy as np

from . import _core
from ._errors import (InaccurateWarning, ShapeError, SingularMatrixWarning, error_for,
                      from_core)
from ._gpu_arrays import _Cupy, _Torch, _module, _scaled  # noqa: F401 (_scaled: tests)
from ._report import Report
from ._shapes import broadcast_batch, check_matrix, solve_shapes, working_dtype

_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


def is_device_sparse(x):
    """Is x a cupyx.scipy.sparse matrix (CSR, CSC, COO, ... on a GPU)?"""
    return _module(x) == "cupyx" and hasattr(x, "tocsr") and hasattr(x, "nnz")


def is_device_array(x):
    """Is x an array in CUDA device memory?"""
    if isinstance(x, (np.ndarray, np.generic, list, tuple, int, float)):
        return False
    if _module(x) == "torch":
        return bool(getattr(x, "is_cuda", False))
    if _module(x) == "cupy" or is_device_sparse(x):
        return True
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        try:
            return dev()[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED)
        except Exception:  # a producer that cannot say: not ours to take
            return False
    try:
        return getattr(x, "__cuda_array_interface__", None) is not None
    except Exception:
        return False


_cuda_ready = False


def _require_cuda():
    """A clear RuntimeError, before any array library is touched, when this
    liblinsolve has no device API or this machine no CUDA device. Once it
    has passed, it is not asked again (it is a per-call cost)."""
    global _cuda_ready
    if _cuda_ready:
        return
    missing = _core.device_api()
    if missing:
        raise error_for(_core.EUNAVAIL, "CUDA arrays need liblinsolve's device API, and this "
                        f"liblinsolve lacks {missing}: build it with CUDA")
    try:
        _core.backend_of("cuda")
    except _core.Error as e:
        raise from_core(e) from None
    _cuda_ready = True


_adapters = {}


def _make(cls):
    """One adapter per array library for the process (made on first use)."""
    fw = _adapters.get(cls)
    if fw is None:
        fw = _adapters[cls] = cls()
    return fw


def _adapter(*xs):
    """The array library to work with, and how to give results back."""
    for x in xs:
        if _module(x) == "torch" and is_device_array(x):
            return _make(_Torch), None
        if _module(x) == "cupy":
            return _make(_Cupy), None
    back = None
    if any(_module(x) in ("jax", "jaxlib") for x in xs):
        import jax.numpy as jnp
        back = jnp.from_dlpack
    for cls in (_Cupy, _Torch):
        try:
            return _make(cls), back
        except ImportError:
            continue
    raise TypeError("linsolve: CUDA arrays other than PyTorch's and CuPy's need CuPy or "
                    "PyTorch installed, to hold the working copies and the result")


def _take_all(fw, names_and_arrays):
    out = []
    for name, x in names_and_arrays:
        if not is_device_array(x):
            raise TypeError(f"linsolve: {name} is in host memory but the other operand is a "
                            "CUDA array: put both on the same device")
        out.append(fw.take(x))
    devs = {fw.device(x) for x in out}
    if len(devs) > 1:
        raise ValueError(f"linsolve: operands are on different devices {sorted(devs)}")
    return out, devs.pop()


def _run(op, fw, dt, dev, n, nrhs, count, a, ipiv, b, info, trans="N", batch=()):
    if count == 0 or n == 0 or (op != "getrf" and nrhs == 0):
        return
    args = (op, "d" if dt == np.float64 else "f", dev, fw.stream(dev), n, nrhs, count,
            fw.ptr(a), n * n, n, fw.ptr(ipiv), fw.ptr(b) if b is not None else 0,
            n * nrhs, n, fw.ptr(info), trans)
    try:
        status, flat, message, _ = _core.device_run(*args)
    except _core.Error as e:
        raise from_core(e) from None
    if status:
        idx = tuple(int(v) for v in np.unravel_index(flat, batch)) if batch and flat >= 0 else None
        raise error_for(status, message, idx)


def _first_singular(infos, batch):
    bad = np.flatnonzero(infos > 0)
    if bad.size == 0:
        return None
    i = int(bad[0])
    return int(infos.flat[i]), (tuple(int(v) for v in np.unravel_index(i, batch)) if batch else None)


# ls_policy (linsolve.h): how the planner picks the working precision.
_POLICY_AUTO, _POLICY_MIXED = 0, 3


def _policy(precision, dtype):
    """(working dtype of the copies, ls_policy) for precision=."""
    if precision is None:
        return dtype, _POLICY_AUTO
    if isinstance(precision, str) and precision == "mixed":
        return np.dtype(np.float64), _POLICY_MIXED
    if isinstance(precision, str) and precision in ("single", "double"):
        return np.dtype(np.float32 if precision == "single" else np.float64), _POLICY_AUTO
    try:
        dt = np.dtype(precision)
    except TypeError:
        dt = None
    if dt in (np.float32, np.float64):
        return dt, _POLICY_AUTO
    raise ValueError("precision must be None, 'single', 'double' or 'mixed', not "
                     f"{precision!r}")


def _flat_index(flat, batch):
    if flat is None or flat < 0 or not batch:
        return None
    return tuple(int(v) for v in np.unravel_index(flat, batch))


def _finite_or_raise(fw, fa, fb, a, b):
    """fa, fb: the norms read back. A norm that is not finite means NaN or
    Inf in the data, or a row sum that overflowed: the exact test tells."""
    if math.isfinite(fa) and math.isfinite(fb):
        return
    for name, x, f in (("a", a, fa), ("b", b, fb)):
        if not math.isfinite(f) and not fw.all_finite(x):
            raise error_for(_core.ENONFINITE, f"{name} holds NaN or Inf")


def _report(fw, rd, timer, t0, flops, residual, index):
    """The planner's report, with the device time measured by CUDA events
    on the caller's stream when the planner gives no split of its own."""
    rd = dict(rd)
    rd.setdefault("note", rd.get("why", ""))
    if rd.get("path"):
        rd["note"] = f"path {rd['path']}: {rd.get('why', '')}"
    if timer is not None and not (rd.get("t_factor", 0) + rd.get("t_solve", 0) > 0):
        dt = fw.seconds(timer)
        rd["t_factor"], rd["t_solve"] = dt, 0.0
        rd["gflops"] = flops / dt * 1e-9 if dt > 0 else 0.0
        done = rd.get("message") or "solved on the device"
        rd["message"] = (f"{done}; device time {dt * 1e3:.3g} ms for factorization and "
                         "substitution together (CUDA events on the stream), in t_factor")
    rd["flops"] = rd.get("flops") or flops
    rd["residual"] = residual
    rd["t_total"] = time.perf_counter() - t0
    return Report._from_core(rd, index)


def _empty_result(fw, back, batch, n, k, vector, dtype, dev, t0):
    shape = batch + ((n,) if vector else (n, k))
    x = fw.ints(shape, dev)
    x = fw.cast(x, dtype)
    rep = Report(method="lu", backend="cuda", device=f"cuda:{dev}", n=n, nrhs=k,
                 batch=int(np.prod(batch, dtype=np.int64)) if batch else 1, residual=0.0,
                 precision="single" if dtype == np.float32 else "double",
                 message="nothing to solve (an empty stack or matrix)",
                 t_total=time.perf_counter() - t0)
    return (back(x) if back else x), rep


_EPS = {np.dtype(np.float64): float(np.finfo(np.float64).eps),
        np.dtype(np.float32): float(np.finfo(np.float32).eps)}


def _solve_shapes(a_shape, b_shape):
    """solve_shapes, with one square matrix and a vector or an n x k b
    known without NumPy's broadcasting (a per-call cost at small n)."""
    if len(a_shape) == 2 and a_shape[0] == a_shape[1] and b_shape[:1] == a_shape[:1]:
        if len(b_shape) == 1:
            return (), a_shape[0], 1, True
        if len(b_shape) == 2:
            return (), a_shape[0], b_shape[1], False
    return solve_shapes("solve", a_shape, b_shape)


def _scaled_scalar(num, den):
    """_scaled for two Python floats, without NumPy's per-call cost."""
    if den > 0:
        return num / den
    return 0.0 if num == 0 else math.inf


def _singular(value, where, batch, rd):
    index = _flat_index(where, batch)
    return error_for(value, "", index, Report._from_core(rd, index) if rd else None)


def solve(a, b, *, method="auto", precision=None, check="warn", check_finite=True,
          want_report=True):
    """solve / solve_ex on CUDA arrays: one call of the library's planner
    (ls_solve_problem) on working copies, only queued on the caller's stream
    (info, and one system's pivots, in device memory: nothing waits for the
    device there). Each system's info, finiteness and the scaled residual
    are reduced on the device and read back in one transfer -- the call's
    one synchronization, which check="off" with check_finite=False keeps
    for info alone, as torch.linalg.solve does."""
    t0 = time.perf_counter()
    if is_device_sparse(a):
        return _sparse_solve(a, b, method, precision, check, t0)
    _require_cuda()
    fw, back = _adapter(a, b)
    (a, b), dev = _take_all(fw, (("a", a), ("b", b)))
    da, db = fw.dtype(a), fw.dtype(b)
    dtype = da if da == db and da in _EPS else working_dtype("solve", da, db)
    wdt, policy = _policy(precision, dtype)
    batch, n, k, vector = _solve_shapes(tuple(a.shape), tuple(b.shape))
    count = int(np.prod(batch, dtype=np.int64)) if batch else 1
    if count == 0 or n == 0 or k == 0:
        return _empty_result(fw, back, batch, n, k, vector, dtype, dev, t0)
    bk = fw.unsqueeze(b) if vector else b
    stack = bool(batch)
    mixed = policy == _POLICY_MIXED
    # One system: column-major copies (A's is a transposing copy of a C-order
    # A; a vector is both layouts), which ls_?gesv_gpu factors in place. A
    # stack of C-order matrices: plain row-major copies, which the batched
    # kernels take as they are (A^T's LU with a transposed solve).
    row = stack and not mixed and not fw.is_colmajor(a)
    aw, bw = fw.cast(a, wdt), fw.cast(bk, wdt)  # no copy when the dtype is right
    checking = check != "off"
    # Reductions of the input, queued before the solve and read after it.
    # The residual needs ||A_i||inf, which also shows NaN/Inf in A; without
    # it, max|A| (one reduction) does. check_finite=False skips max|B|.
    na = fw.row_norms(aw) if checking else None
    fa = (fw.largest(na) if stack else na) if checking else \
        fw.abs_max(aw) if check_finite else None
    fb = fw.abs_max(bw) if check_finite else None
    wa = fw.copy(a, batch + (n, n), wdt, row)
    wb = fw.copy(bk, batch + (n, k), wdt, row)
    # Device info (and a single system's pivots) make the planner queue the
    # solve and return at once; the mixed solver waits for the device and
    # says how it went itself.
    queued = not mixed
    info = fw.int_buffer(count, wa) if queued else None
    ipiv = fw.int_buffer(n, wa) if queued and not stack else None
    timer = fw.start_timer() if want_report else None
    try:
        st, flat, t_lib, gflops, lib_res, message, rd = _core.device_solve(
            "d" if wdt == np.float64 else "f", dev, fw.stream(dev), int(stack), int(row), n, k,
            count, fw.ptr(wa), n, n * n, fw.ptr(wb), k if row else n, n * k,
            fw.ptr(info) if queued else 0, fw.ptr(ipiv) if ipiv is not None else 0, policy,
            method, bool(want_report))
    except _core.Error as e:
        raise from_core(e) from None
    if timer is not None:
        fw.stop_timer(timer)
    if st:  # refused, or (mixed) failed: nothing of ours is pending but the reductions
        if check_finite:  # NaN input is named as such, not as what it led to
            fav, fbv = fw.read([fa, fb])
            _finite_or_raise(fw, fav, fbv, aw, bw)
        index = _flat_index(flat, batch)
        raise error_for(st, message, index, Report._from_core(rd, index) if rd else None)
    if queued and rd:
        rd = dict(rd, message="")  # the planner's "queued" is not the outcome
    eps = _EPS[wdt]
    mixed_res = mixed and math.isfinite(lib_res)
    scalars = [fa, fb] if check_finite else []
    if queued:
        scalars += list(fw.first_failure(info)) if stack else [info]
    parts = None
    if checking and not mixed_res:
        if stack:
            scalars.append(fw.worst_ratio(aw, wb, bw, na))
        else:  # the division on the host: two launches fewer
            parts = fw.residual_parts(aw, wb, bw)
            scalars += [na, parts[0], parts[1]]
    vals = fw.read(scalars) if scalars else []  # the one wait for the device
    if check_finite:
        _finite_or_raise(fw, vals[0], vals[1], aw, bw)
    if queued:
        at = 2 if check_finite else 0
        bad = int(vals[at])
        if bad:
            raise _singular(bad, int(vals[at + 1]) if stack else -1, batch, rd)
    residual = float("nan")
    if checking:
        if mixed_res:
            residual = lib_res
        elif parts is not None:
            nav, nr, nx = vals[-3:]
            residual = _scaled_scalar(nr, n * nav * nx * eps)
        else:
            residual = vals[-1] / (n * eps)
            if math.isnan(residual):  # 0/0 (x = 0) or a non-finite x: per system, exactly
                res = fw.residual(aw, wb, bw, eps)
                residual = float(np.max(res)) if np.size(res) else 0.0
    flops = count * (2 * n ** 3 / 3 - n * n / 2 + 5 * n / 6 + k * (2 * n * n - n))
    rep = _report(fw, rd, timer, t0, flops, residual, _flat_index(flat, batch)) \
        if want_report else None
    if checking and not residual <= 30:
        text = f"scaled residual {residual:.3g} exceeds 30: the answer is not accurate"
        if check == "raise":
            raise error_for(_core.INACCURATE, text, None, rep)
        warnings.warn(f"linsolve.solve: {text}", InaccurateWarning, stacklevel=4)
    x = wb[..., 0] if vector else wb
    if wdt != dtype:
        x = fw.cast(x, dtype)
    return (back(x) if back else x), rep


def _sparse_solve(a, b, method, precision, check, t0):
    """A cupyx.scipy.sparse matrix, solved sparse: its CSR copied to the
    host (int64 indices, FP64 values) and given to the planner on the CUDA
    context of its device, which runs cuDSS's sparse LU there (or a Krylov
    method, by method=); b and the answer are CuPy arrays."""
    import cupy
    if precision not in (None, "double", np.float64):
        raise ValueError("sparse matrices are solved in FP64 (precision None or 'double')")
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
        raise ShapeError(f"solve: sparse a is {a.shape[0]} x {a.shape[1]}: not square")
    n = a.shape[0]
    if _module(b) != "cupy" and not is_device_array(b):
        raise TypeError("linsolve: b is in host memory but a is a CuPy sparse matrix: put "
                        "both on the same device")
    b = cupy.asarray(b)
    dtype = working_dtype("solve", np.dtype(a.dtype), np.dtype(b.dtype))
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ShapeError(f"solve: b of shape {tuple(b.shape)} does not fit sparse a of order {n}")
    csr = a.tocsr()
    if not csr.has_canonical_format:  # duplicates summed, indices sorted, on a copy
        csr = csr.copy()
        csr.sum_duplicates()
    dev = csr.data.device.id
    indptr = np.ascontiguousarray(cupy.asnumpy(csr.indptr), dtype=np.int64)
    indices = np.ascontiguousarray(cupy.asnumpy(csr.indices), dtype=np.int64)
    data = np.ascontiguousarray(cupy.asnumpy(csr.data), dtype=np.float64)
    k = 1 if b.ndim == 1 else b.shape[1]
    # column-major n x k: the rows of a C-order k x n block
    bx = np.ascontiguousarray(cupy.asnumpy(b).reshape(n, k).T, dtype=np.float64)
    try:
        st, flat, rd = _core.csr_solve_on("cuda", dev, n, indptr, indices, data, bx, k, method,
                                          check != "off")
    except _core.Error as e:
        raise from_core(e) from None
    rep = Report._from_core(dict(rd, t_total=time.perf_counter() - t0,
                                 note=f"path {rd.get('path', '')}: {rd.get('why', '')}"))
    if st == _core.INACCURATE and check == "warn":
        warnings.warn(f"linsolve.solve: {rep.message}", InaccurateWarning, stacklevel=4)
    elif st:
        raise error_for(st, rep.message, None, rep)
    with cupy.cuda.Device(dev):
        x = cupy.asarray(bx.T if b.ndim == 2 else bx[0]).astype(dtype, copy=False)
    return x, rep


def lu_factor(a, *, check_finite=True):
    from ._lu import LUFactor
    _require_cuda()
    fw, back = _adapter(a)
    (a,), dev = _take_all(fw, (("a", a),))
    dt = working_dtype("lu_factor", fw.dtype(a))
    check_matrix("lu_factor", "a", tuple(a.shape))
    batch, n = tuple(a.shape[:-2]), a.shape[-1]
    lu = fw.colmajor(a, batch, n, n, dt, dev)
    count = int(np.prod(batch, dtype=np.int64))
    ipiv, info = fw.ints((max(count, 1), max(n, 1)), dev), fw.ints((max(count, 1),), dev)
    _run("getrf", fw, dt, dev, n, 0, count, lu, ipiv, None, info, batch=batch)
    infos = fw.host(info)[:count].astype(np.intc)
    bad = _first_singular(infos, batch)
    if bad:
        where = f" in system {bad[1]}" if bad[1] else ""
        warnings.warn(f"Diagonal number {bad[0]} is exactly zero{where}. Singular matrix.",
                      SingularMatrixWarning, stacklevel=3)
    piv = fw.reshape(ipiv[:count, :n] - 1, batch + (n,))
    wrap = back or (lambda x: x)
    return LUFactor(wrap(lu), wrap(piv), infos.reshape(batch) if batch else int(infos[0]) if
                    count else 0, "cuda", _device=(fw.name, ipiv, dev, batch))


def lu_solve(lu_and_piv, b, trans=0):
    lu, piv = lu_and_piv
    _require_cuda()
    fw, back = _adapter(lu, b)
    (lu, piv, b), dev = _take_all(fw, (("lu", lu), ("piv", piv), ("b", b)))
    dt = working_dtype("lu_solve", fw.dtype(lu), fw.dtype(b))
    check_matrix("lu_solve", "lu", tuple(lu.shape))
    n = lu.shape[-1]
    batch, _, k, vector = solve_shapes("lu_solve", tuple(lu.shape), tuple(b.shape), "lu")
    batch = broadcast_batch("lu_solve", ("lu", tuple(lu.shape[:-2])), ("piv", tuple(piv.shape[:-1])),
                            ("b", batch))
    count = int(np.prod(batch, dtype=np.int64))
    state = getattr(lu_and_piv, "_device", None)
    own = state is not None and state[0] == fw.name and state[3] == batch and fw.dtype(lu) == dt
    wlu = lu if own else fw.colmajor(lu, batch, n, n, dt, dev)
    ipiv = state[1] if own else fw.pivots1(piv, batch, n, count)
    # A zero pivot would divide by zero: our own factors know their info,
    # others are looked at on the device.
    if own:
        bad = _first_singular(np.asarray(lu_and_piv.info).reshape(-1), batch)
    else:
        zero = fw.diag_zero(wlu) if count and n else np.zeros((0, 0), bool)
        bad = None
        if zero.any():
            i, c = np.argwhere(zero)[0]
            bad = (int(c) + 1, tuple(int(v) for v in np.unravel_index(int(i), batch))
                   if batch else None)
    if bad:
        raise error_for(bad[0], "", bad[1])
    wb = fw.colmajor(fw.unsqueeze(b) if vector else b, batch, n, k, dt, dev)
    info = fw.ints((max(count, 1),), dev)
    _run("getrs", fw, dt, dev, n, k, count, wlu, ipiv, wb, info, "NTC"[trans], batch)
    x = wb[..., 0] if vector else wb
    return back(x) if back else x

