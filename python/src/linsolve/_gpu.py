"""CUDA arrays: solved on their device with the library's device API.

PyTorch and CuPy arrays are used directly; other CUDA arrays (JAX, Numba,
anything with ``__dlpack__`` or ``__cuda_array_interface__``) are viewed
through whichever of CuPy or PyTorch is installed, without a copy. The
array library allocates the working copies (column-major, as LAPACK) and
the result, and the solve is queued on its current stream; nothing goes
through host memory but the per-system ``info`` flags that ``check``
reads.
"""
import time
import warnings

import numpy as np

from . import _core
from ._errors import (InaccurateWarning, SingularMatrixWarning, error_for,
                      from_core)
from ._report import Report
from ._shapes import broadcast_batch, check_matrix, solve_shapes, working_dtype

_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


def _module(x):
    return type(x).__module__.split(".")[0]


def is_device_array(x):
    """Is x an array in CUDA device memory?"""
    if isinstance(x, (np.ndarray, np.generic, list, tuple, int, float)):
        return False
    if _module(x) == "torch":
        return bool(getattr(x, "is_cuda", False))
    if _module(x) == "cupy":
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


class _Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.t = torch

    def take(self, x):
        if _module(x) == "torch":
            return x
        if hasattr(x, "__dlpack__"):
            return self.t.from_dlpack(x)
        return self.t.as_tensor(x, device="cuda")  # __cuda_array_interface__, no copy

    def device(self, x):
        return x.device.index if x.device.index is not None else self.t.cuda.current_device()

    def dtype(self, x):
        if x.is_complex():
            return np.dtype(np.complex128)
        try:
            return np.dtype(str(x.dtype).replace("torch.", ""))
        except TypeError:
            raise TypeError(f"linsolve: array type {x.dtype} is unsupported (float32, float64, "
                            "integers and booleans are)") from None

    def tdtype(self, dt):
        return self.t.float32 if dt == np.float32 else self.t.float64

    def colmajor(self, x, batch, rows, cols, dt, dev):
        out = self.t.empty(batch + (cols, rows), dtype=self.tdtype(dt),
                           device=f"cuda:{dev}").transpose(-1, -2)
        out.copy_(x)  # broadcasts and converts on the device
        return out

    def ints(self, shape, dev):
        return self.t.zeros(shape, dtype=self.t.int32, device=f"cuda:{dev}")

    def ptr(self, x):
        return x.data_ptr()

    def stream(self, dev):
        return self.t.cuda.current_stream(dev).cuda_stream

    def host(self, x):
        return x.cpu().numpy()

    def cast(self, x, dt):
        return x.to(self.tdtype(dt))

    def unsqueeze(self, x):
        return x.unsqueeze(-1)

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = (piv.to(self.t.int32) + 1).broadcast_to(batch + (n,))
        return p.reshape(max(count, 1), n).contiguous()

    def diag_zero(self, lu):
        return self.host((self.t.diagonal(lu, dim1=-2, dim2=-1) == 0).reshape(-1, lu.shape[-1]))

    def residual(self, a, x, b, eps):
        n = a.shape[-1]
        r = b - a @ x
        na = a.abs().sum(-1).amax(-1)
        nx = x.abs().amax((-2, -1))
        nr = r.abs().amax((-2, -1))
        return _scaled(self.host(nr), self.host(n * na * nx * eps))


class _Cupy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cp = cupy

    def take(self, x):
        if _module(x) == "cupy":
            return x
        if hasattr(x, "__dlpack__"):
            return self.cp.from_dlpack(x)
        return self.cp.asarray(x)  # __cuda_array_interface__, no copy

    def device(self, x):
        return x.device.id

    def dtype(self, x):
        return np.dtype(x.dtype)

    def colmajor(self, x, batch, rows, cols, dt, dev):
        with self.cp.cuda.Device(dev):
            out = self.cp.empty(batch + (cols, rows), dtype=dt).swapaxes(-1, -2)
            out[...] = x
        return out

    def ints(self, shape, dev):
        with self.cp.cuda.Device(dev):
            return self.cp.zeros(shape, dtype=np.int32)

    def ptr(self, x):
        return x.data.ptr

    def stream(self, dev):
        with self.cp.cuda.Device(dev):
            return self.cp.cuda.get_current_stream().ptr

    def host(self, x):
        return self.cp.asnumpy(x)

    def cast(self, x, dt):
        return x.astype(dt)

    def unsqueeze(self, x):
        return x[..., None]

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = self.cp.broadcast_to(piv.astype(np.int32) + 1, batch + (n,))
        return self.cp.ascontiguousarray(p.reshape(max(count, 1), n))

    def diag_zero(self, lu):
        d = self.cp.diagonal(lu, axis1=-2, axis2=-1)
        return self.host((d == 0).reshape(-1, lu.shape[-1]))

    def residual(self, a, x, b, eps):
        cp = self.cp
        n = a.shape[-1]
        r = b - cp.matmul(a, x)
        na = cp.abs(a).sum(-1).max(-1)
        nx = cp.abs(x).max((-2, -1))
        nr = cp.abs(r).max((-2, -1))
        return _scaled(self.host(nr), self.host(n * na * nx * eps))


def _scaled(num, den):
    """num / den, where a zero denominator means 0 for a zero residual and
    inf otherwise (x = 0 solves b = 0 exactly)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    return np.where(den > 0, r, np.where(num == 0, 0.0, np.inf))


def _require_cuda():
    """A clear RuntimeError, before any array library is touched, when this
    liblinsolve has no device API or this machine no CUDA device."""
    missing = _core.device_api()
    if missing:
        raise error_for(_core.EUNAVAIL, "CUDA arrays need liblinsolve's device API, and this "
                        f"liblinsolve lacks {missing}: build it with CUDA")
    try:
        _core.backend_of("cuda")
    except _core.Error as e:
        raise from_core(e) from None


def _adapter(*xs):
    """The array library to work with, and how to give results back."""
    for x in xs:
        if _module(x) == "torch" and is_device_array(x):
            return _Torch(), None
        if _module(x) == "cupy":
            return _Cupy(), None
    back = None
    if any(_module(x) in ("jax", "jaxlib") for x in xs):
        import jax.numpy as jnp
        back = jnp.from_dlpack
    for cls in (_Cupy, _Torch):
        try:
            return cls(), back
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


def _prec_dtype(precision, dtype):
    if precision is None:
        return dtype
    if precision in ("single", np.float32):
        return np.dtype(np.float32)
    if precision in ("double", np.float64):
        return np.dtype(np.float64)
    raise ValueError(f"precision must be None, 'single' or 'double', not {precision!r}")


def solve(a, b, *, method="auto", precision=None, check="warn"):
    if method not in ("auto", "lu"):
        raise ValueError(f"method {method!r}: CUDA arrays are solved with 'lu' (getrf + getrs "
                         "on the device); pass NumPy arrays for the other methods")
    t0 = time.perf_counter()
    _require_cuda()
    fw, back = _adapter(a, b)
    (a, b), dev = _take_all(fw, (("a", a), ("b", b)))
    dtype = working_dtype("solve", fw.dtype(a), fw.dtype(b))
    wdt = _prec_dtype(precision, dtype)
    batch, n, k, vector = solve_shapes("solve", tuple(a.shape), tuple(b.shape))
    bk = fw.unsqueeze(b) if vector else b
    wa = fw.colmajor(a, batch, n, n, wdt, dev)
    wb = fw.colmajor(bk, batch, n, k, wdt, dev)
    count = int(np.prod(batch, dtype=np.int64))
    ipiv, info = fw.ints((max(count, 1), max(n, 1)), dev), fw.ints((max(count, 1),), dev)
    _run("gesv", fw, wdt, dev, n, k, count, wa, ipiv, wb, info, batch=batch)
    rep = dict(method="lu", backend="cuda", precision="single" if wdt == np.float32 else "double",
               device=f"cuda:{dev}", n=n, nrhs=k, batch=count,
               flops=count * (2 * n ** 3 / 3 - n * n / 2 + 5 * n / 6 + k * (2 * n * n - n)),
               message="solved on the device")
    if check != "off" and count and n and k:
        bad = _first_singular(fw.host(info)[:count], batch)
        if bad:
            raise error_for(bad[0], "", bad[1])
        # On the device too, from the caller's a and b (broadcasting matmul).
        res = fw.residual(fw.cast(a, wdt), wb, fw.cast(bk, wdt), float(np.finfo(wdt).eps))
        rep["residual"] = float(np.max(res)) if np.size(res) else 0.0
        if not rep["residual"] <= 30:
            rep["status"] = _core.INACCURATE
            rep["status_name"] = _core.status_name(_core.INACCURATE)
            rep["message"] = (f"scaled residual {rep['residual']:.3g} exceeds 30: the answer "
                              "is not accurate")
            if check == "raise":
                raise error_for(_core.INACCURATE, rep["message"], None, Report(**rep))
            warnings.warn(f"linsolve.solve: {rep['message']}", InaccurateWarning, stacklevel=4)
    rep["t_total"] = time.perf_counter() - t0
    x = wb[..., 0] if vector else wb
    if wdt != dtype:
        x = fw.cast(x, dtype)
    return (back(x) if back else x), Report(**rep)


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

