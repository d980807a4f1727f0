"""The public functions; NumPy arrays here, device arrays in _gpu.py."""
import warnings

import numpy as np

from . import _core, _gpu
from ._errors import InaccurateWarning, error_for, from_core
from ._report import Report
from ._shapes import solve_shapes, working_dtype

_CHECKS = {True: "warn", False: "off", "warn": "warn", "raise": "raise", "off": "off"}


def _check_mode(check):
    try:
        return _CHECKS[check]
    except (KeyError, TypeError):
        raise ValueError(f"check must be True, False, 'warn' or 'raise', not {check!r}") from None


def _precision(precision, dtype):
    if precision is None:
        return "single" if dtype == np.float32 else "double"
    if isinstance(precision, str) and precision in ("single", "double"):
        return precision
    try:
        dt = np.dtype(precision)
    except TypeError:
        dt = None
    if dt == np.float32:
        return "single"
    if dt == np.float64:
        return "double"
    raise ValueError(f"precision must be None, 'single' or 'double', not {precision!r}")


def _native(x, dtype):
    """x as a native-endian float32/float64 array, copying only when the
    dtype must change (float32 input read by a double solve stays as is:
    the C side converts while it packs)."""
    if x.dtype in (np.float32, np.float64) and x.dtype.isnative:
        return x
    return x.astype(dtype)


def _empty_colmajor(batch, rows, cols, dtype):
    """Stack whose matrices are column-major (Fortran order for 2-D)."""
    return np.empty(tuple(batch) + (cols, rows), dtype).swapaxes(-1, -2)


def _index(flat, batch):
    """Batch index of flat position flat; None for no stack or no system."""
    if flat is None or flat < 0 or not batch:
        return None
    return tuple(int(i) for i in np.unravel_index(flat, batch))


def _call(fn, *args):
    try:
        return fn(*args)
    except _core.Error as e:
        raise from_core(e) from None


def _torch_cpu(*xs):
    """Were any inputs PyTorch CPU tensors? Then the result is one too."""
    return any(type(x).__module__.split(".")[0] == "torch" for x in xs)


def _wrap_like(x, like_torch):
    if like_torch:
        import torch
        return torch.from_numpy(np.ascontiguousarray(x) if x.ndim else x)
    return x


def _host_solve(a, b, method, backend, precision, check, refine, want_report=True):
    like_torch = _torch_cpu(a, b)
    a, b = np.asarray(a), np.asarray(b)
    dtype = working_dtype("solve", a.dtype, b.dtype)
    batch, n, k, vector = solve_shapes("solve", a.shape, b.shape)
    prec = _precision(precision, dtype)
    mode = _check_mode(check)
    a, b = _native(a, dtype), _native(b, dtype)
    if vector:
        b = b[..., None]
    if a.shape != batch + (n, n):  # broadcast_to costs ~10 us a call: only when needed
        a = np.broadcast_to(a, batch + (n, n))
    if b.shape != batch + (n, k):
        b = np.broadcast_to(b, batch + (n, k))
    out = _empty_colmajor(batch, n, k, dtype)
    status, flat, rep = _call(_core.solve, a, b, out, method, backend, prec, mode != "off",
                              bool(refine))
    # the report is built only when it is returned or explains an error:
    # for small systems it costs more than the solve
    report = Report._from_core(rep, _index(flat, batch)) if want_report or status else None
    if status == _core.INACCURATE and mode == "warn":
        warnings.warn(f"linsolve.solve: {report.message}", InaccurateWarning, stacklevel=4)
    elif status:
        raise error_for(status, report.message, report.index, report)
    x = out[..., 0] if vector else out
    return _wrap_like(x, like_torch), report


def solve(a, b, *, method="auto", backend="auto", precision=None, check=True, refine=True):
    """Solve the linear system(s) ``a @ x = b`` for x.

    Parameters
    ----------
    a : (..., n, n) array_like
        Coefficient matrices; a NumPy array, anything ``numpy.asarray``
        takes, or a CUDA array (PyTorch, CuPy, JAX, DLPack or
        ``__cuda_array_interface__``), which is solved on its device.
    b : (..., n) or (..., n, k) array_like
        Right-hand sides. Batch dimensions broadcast as in NumPy; a b of
        shape (..., n) is read as vectors by the installed NumPy's rule.
    method : str
        ``"auto"`` or a method of ``linsolve.methods()`` ("lu", "ge",
        "gj1", "gj2", "bicgstab", "lapack", ...).
    backend : {"auto", "cpu", "cuda", "opencl"}
        Where NumPy arrays are solved; ``"auto"`` lets the library pick
        (CUDA, then an OpenCL GPU, then the CPU). Device arrays are always
        solved on their own device.
    precision : {None, "single", "double"}
        Working precision; None follows the dtype (float32 -> single).
        The result keeps the input's dtype.
    check : bool or {"warn", "raise"}
        Compute the scaled residual; an inaccurate answer (residual > 30)
        warns (``True``/``"warn"``, :class:`InaccurateWarning`) or raises
        (``"raise"``, :class:`InaccurateError`). ``False`` skips it.
    refine : bool
        Let an inaccurate direct solve take up to 4 steps of iterative
        refinement before it is judged (needs ``check``).

    Returns
    -------
    x : ndarray (or the caller's array type)
        Shape of the broadcast b; float32 for float32 inputs, else float64.

    Raises
    ------
    SingularMatrixError
        (a ``numpy.linalg.LinAlgError``) with the zero pivot's column.
    ShapeError
        (``LinAlgError`` and ``ValueError``) for shapes that do not fit.
    TypeError
        For complex or other unsupported dtypes.
    NonFiniteError
        (``ValueError``) when a or b holds NaN or Inf.
    BackendUnavailableError
        (``RuntimeError``) when the backend or device is not there.

    Examples
    --------
    >>> import numpy as np, linsolve
    >>> linsolve.solve(np.array([[3., 1.], [1., 2.]]), np.array([9., 8.]))
    array([2., 3.])
    """
    if _gpu.is_device_array(a) or _gpu.is_device_array(b):
        return _gpu.solve(a, b, method=method, precision=precision, check=_check_mode(check),
                          want_report=False)[0]
    return _host_solve(a, b, method, backend, precision, check, refine, want_report=False)[0]


def solve_ex(a, b, *, method="auto", backend="auto", precision=None, check=True, refine=True):
    """As :func:`solve`, and also return the library's :class:`Report`.

    Returns
    -------
    x : ndarray (or the caller's array type)
    report : Report
        Method and backend that ran, device, times, GFLOP/s, residual,
        refinement steps, and the library's message.
    """
    if _gpu.is_device_array(a) or _gpu.is_device_array(b):
        return _gpu.solve(a, b, method=method, precision=precision, check=_check_mode(check))
    return _host_solve(a, b, method, backend, precision, check, refine)


def methods():
    """``[(name, description)]`` of every method the library knows."""
    return _core.methods()
