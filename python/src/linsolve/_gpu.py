"""CUDA arrays: solved on their device through the library's planner.

PyTorch and CuPy arrays are used directly; other CUDA arrays (JAX, Numba,
anything with ``__dlpack__`` or ``__cuda_array_interface__``) are viewed
through whichever of CuPy or PyTorch is installed, without a copy. The
array library allocates the working copies and the result (its caching
allocator, no cudaMalloc per call); solve hands them to ls_solve_problem
as one problem -- one system, or a whole stack as one strided batch --
queued on the library's current stream. Finiteness and the scaled
residual are one call of the library's fused check (ls_check_batched_gpu:
one pass over A, B and X on the device) and come back with info in one
transfer. cupyx.scipy.sparse matrices are solved sparse on their
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
from ._shapes import array_kind, broadcast_batch, check_matrix, solve_shapes, working_dtype

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


def _elem_strides(x):
    """Element strides of a PyTorch, CuPy (or NumPy) array."""
    st = getattr(x, "stride", None)
    if callable(st):
        return tuple(st())
    return tuple(v // x.itemsize for v in x.strides)


def _matrix_layout(rows, cols, rs, cs):
    """(layout, ld) addressing element (i, j) at i*rs + j*cs -- 1 row-,
    0 column-major, as the library's ls_layout -- or None. A dimension of
    one is free to take either stride."""
    if (cs == 1 or cols <= 1) and (rows <= 1 or rs >= max(1, cols)):
        return 1, (rs if rows > 1 else max(1, cols))
    if (rs == 1 or rows <= 1) and (cols <= 1 or cs >= max(1, rows)):
        return 0, (cs if cols > 1 else max(1, rows))
    return None


def _batch_stride(batch, shape, strides):
    """One stride between consecutive systems of the flattened batch for an
    array whose leading dimensions broadcast to batch (0: one matrix for
    all), or None when no single stride addresses them."""
    lead = len(shape) - 2
    stride, span = None, None
    for d in range(len(batch) - 1, -1, -1):
        size = batch[d]
        xd = d - (len(batch) - lead)
        st = strides[xd] if xd >= 0 and shape[xd] != 1 else 0
        if size == 1:
            continue
        if stride is None:
            stride, span = st, st * size
        elif st != span:
            return None
        else:
            span = st * size
    return 0 if stride is None else stride


def _strided(fw, x, batch, rows, cols, wdt):
    """x as (layout, pointer, ld, stride) over the flattened batch, without
    a copy where its strides allow (views, broadcasting, either order);
    else a row-major copy. Returns the description and the array that
    must stay alive until the check has run."""
    st = _elem_strides(x)
    lay = _matrix_layout(rows, cols, st[-2], st[-1])
    bs = _batch_stride(batch, tuple(x.shape), st)
    if lay is not None and bs is not None and min(st) >= 0:
        return (lay[0], fw.ptr(x), lay[1], bs), x
    y = fw.copy(x, batch + (rows, cols), wdt, True)
    return (1, fw.ptr(y), max(1, cols), rows * cols), y


def _check(fw, wdt, dev, batch, count, n, k, a, b, x, x_row):
    """Queue ls_check_batched_gpu after the solve on the caller's stream:
    the worst scaled residual of x (None: finiteness only) over the
    systems, its index, whether a or b holds NaN or Inf and the first such
    system -- four doubles on the device, read with info."""
    out = fw.doubles(4, a)
    da, keep_a = _strided(fw, a, batch, n, n, wdt)
    db, keep_b = _strided(fw, b, batch, n, k, wdt)
    dx = (1 if x_row else 0, fw.ptr(x), max(1, k if x_row else n), n * k) if x is not None \
        else (0, 0, max(1, n), 0)
    try:
        st, message = _core.device_check("d" if wdt == np.float64 else "f", dev, fw.stream(dev),
                                          n, k, count, *da, *db, *dx, fw.ptr(out))
    except _core.Error as e:
        raise from_core(e) from None
    if st:
        raise error_for(st, message)
    # keep_a, keep_b (copies, if any) may go: the array library's caching
    # allocator hands their memory out again only behind the queued check
    return out


def _non_finite(first, batch):
    index = _flat_index(int(first), batch)
    return error_for(_core.ENONFINITE, "a or b holds NaN or Inf", index)


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


_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))


def _solve_shapes(a_shape, b_shape, kind):
    """solve_shapes, with one square matrix and a vector or an n x k b
    known without NumPy's broadcasting (a per-call cost at small n); b's
    (..., n) is read by the rule of the caller's array library, kind."""
    if len(a_shape) == 2 and a_shape[0] == a_shape[1] and b_shape[:1] == a_shape[:1]:
        if len(b_shape) == 1:
            return (), a_shape[0], 1, True
        if len(b_shape) == 2:
            return (), a_shape[0], b_shape[1], False
    return solve_shapes("solve", a_shape, b_shape, kind=kind)


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
    kind = array_kind(a, b)  # torch, CuPy, JAX: b read as their own solve reads it
    fw, back = _adapter(a, b)
    (a, b), dev = _take_all(fw, (("a", a), ("b", b)))
    da, db = fw.dtype(a), fw.dtype(b)
    dtype = da if da == db and da in _FLOATS else working_dtype("solve", da, db)
    wdt, policy = _policy(precision, dtype)
    batch, n, k, vector = _solve_shapes(tuple(a.shape), tuple(b.shape), kind)
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
    if st:  # refused, or (mixed) failed: NaN input is named as such, not as what it led to
        if check_finite:
            out = _check(fw, wdt, dev, batch, count, n, k, aw, bw, None, row)
            vals = fw.read([out[i] for i in range(4)])
            if vals[2]:
                raise _non_finite(vals[3], batch)
        index = _flat_index(flat, batch)
        raise error_for(st, message, index, Report._from_core(rd, index) if rd else None)
    if queued and rd:
        rd = dict(rd, message="")  # the planner's "queued" is not the outcome
    mixed_res = mixed and math.isfinite(lib_res)
    # One fused check after the solve, on the caller's unmodified a and b
    # and the answer: finiteness, and the residual unless the mixed solver
    # measured it; read back with info -- the call's one wait.
    residual_here = checking and not mixed_res
    scalars = []
    if check_finite or residual_here:
        out = _check(fw, wdt, dev, batch, count, n, k, aw, bw, wb if residual_here else None,
                     row)
        scalars = [out[i] for i in range(4)]
    at = len(scalars)  # where info's part starts
    if queued:
        scalars += list(fw.first_failure(info)) if stack else [info]
    vals = fw.read(scalars) if scalars else []
    if check_finite and vals[2]:
        raise _non_finite(vals[3], batch)
    if queued:
        bad = int(vals[at])
        if bad:
            raise _singular(bad, int(vals[at + 1]) if stack else -1, batch, rd)
    residual = float("nan")
    if checking:
        residual = lib_res if mixed_res else vals[0]
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
    kind = array_kind(lu, b)
    fw, back = _adapter(lu, b)
    (lu, piv, b), dev = _take_all(fw, (("lu", lu), ("piv", piv), ("b", b)))
    dt = working_dtype("lu_solve", fw.dtype(lu), fw.dtype(b))
    check_matrix("lu_solve", "lu", tuple(lu.shape))
    n = lu.shape[-1]
    batch, _, k, vector = solve_shapes("lu_solve", tuple(lu.shape), tuple(b.shape), "lu", kind)
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

