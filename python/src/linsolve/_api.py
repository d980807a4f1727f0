"""The public functions; NumPy arrays here, CUDA arrays in _gpu.py and
scipy.sparse matrices in _sparse.py. Every solve is one call of the
library's planner (``ls_solve_problem``): one system as a dense problem, a
stack as one strided stack, a sparse matrix as CSR."""
import warnings

import numpy as np

from . import _core, _gpu
from ._errors import InaccurateWarning, ShapeError, error_for, from_core
from ._report import Report
from ._shapes import solve_shapes, working_dtype

_CHECKS = {True: "warn", False: "off", "warn": "warn", "raise": "raise", "off": "off"}
_ndarray = np.ndarray
_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)
# flags of _core.solve (solve.c)
_TRANS, _OWN_A, _FINITE, _CHECK, _REFINE, _REPORT = 1, 2, 4, 8, 16, 32
_POLICIES = {None: _core.POLICY_AUTO, "double": _core.POLICY_DOUBLE,
             "single": _core.POLICY_SINGLE, "mixed": _core.POLICY_MIXED}
# assume_a (SciPy's names): the general LU solves every structure, on the
# matrix SciPy would read (one triangle of a symmetric one, ...)
# (None: SciPy >= 1.15's default, which detects the structure; the general
# LU solves whatever it would detect, so it is read as "gen"; "banded" reads
# the whole matrix, as SciPy's banded solver finds the band from it)
_GENERAL = ("gen", "general", None, "banded")
_SYMMETRIC = ("sym", "her", "pos", "symmetric", "hermitian", "positive definite")
_TRIANGULAR = ("upper triangular", "lower triangular", "diagonal", "tridiagonal")


def _check_mode(check):
    try:
        return _CHECKS[check]
    except (KeyError, TypeError):
        raise ValueError(f"check must be True, False, 'warn' or 'raise', not {check!r}") from None


def _policy(precision, dtype):
    """(policy, working dtype): mixed solves FP64 data to an FP64 answer."""
    if isinstance(precision, str) and precision in _POLICIES:
        return _POLICIES[precision], _F64 if precision == "mixed" else dtype
    if not isinstance(precision, str):  # np.float32, np.dtype("f8"), ...
        try:
            dt = np.dtype(precision)
        except TypeError:
            dt = None
        if dt is not None and dt == _F32:  # (dtype("f8") == None holds)
            return _core.POLICY_SINGLE, dtype
        if dt is not None and dt == _F64:
            return _core.POLICY_DOUBLE, dtype
    raise ValueError(f"precision must be None, 'single', 'double' or 'mixed', not {precision!r}")


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


def _structure(a, assume_a, lower):
    """The matrix SciPy's solve reads for assume_a: a symmetric one from one
    triangle, a triangular one or a diagonal. A new array (ours to overwrite)
    and the words the report adds."""
    if assume_a in _SYMMETRIC:
        tri, strict = (np.tril, np.tril) if lower else (np.triu, np.triu)
        full = tri(a) + strict(a, -1 if lower else 1).swapaxes(-1, -2)
        side = "lower" if lower else "upper"
        return full, (f"assume_a={assume_a!r}: solved by the general LU with partial pivoting "
                      f"of the symmetric matrix read from its {side} triangle")
    if assume_a == "diagonal":
        eye = np.eye(a.shape[-1], dtype=bool)
        return np.where(eye, a, 0), ("assume_a='diagonal': solved by the general LU of "
                                     "the diagonal")
    if assume_a == "tridiagonal":
        return np.triu(np.tril(a, 1), -1), ("assume_a='tridiagonal': solved by the general "
                                            "LU of the three diagonals")
    part = np.triu(a) if assume_a == "upper triangular" else np.tril(a)
    return part, f"assume_a={assume_a!r}: solved by the general LU of that triangle"


def _out_for(a, b, batch, n, k, vector, dt, transposed, overwrite_b):
    """X's storage, in the layout the planner will solve in: column-major
    for one system (LAPACK's) and for one A shared by a stack (the
    right-hand sides side by side); a stack's matrices follow A's order, so
    that a C-order stack goes as a row-major stack without repacking. With
    overwrite_b, b itself when it already is that storage."""
    shared = a.ndim == 2 or not any(d != 1 for d in a.shape[:-2])
    if not shared and batch:
        s_r, s_c = a.strides[-2:]
        if transposed:
            s_r, s_c = s_c, s_r
        col = n <= 1 or (s_r == a.itemsize and s_c == n * a.itemsize)
    else:
        col = True
    if vector:
        out_shape = batch + (n,)
        fits = b.flags.c_contiguous
    elif not batch:
        out_shape = (n, k)
        fits = b.flags.f_contiguous
    else:
        out_shape = batch + (n, k)
        fits = (b.swapaxes(-1, -2).flags.c_contiguous if col or shared
                else b.flags.c_contiguous)
    if (overwrite_b and fits and b.dtype is dt and b.shape == out_shape and b.flags.writeable
            and b.size):
        return b
    if vector:
        return np.empty(out_shape, dt)
    if not batch:
        return np.empty(out_shape, dt, order="F")
    if col or shared:
        return np.empty(batch + (k, n), dt).swapaxes(-1, -2)
    return np.empty(out_shape, dt)


def _host_solve(a, b, lower, overwrite_a, overwrite_b, check_finite, assume_a, transposed,
                method, backend, precision, check, refine, want_report):
    wrap = like_torch = None
    if type(a) is not _ndarray or type(b) is not _ndarray:
        like_torch = _torch_cpu(a, b)  # then b is read by torch.linalg.solve's rule
        if (type(b) is not _ndarray and isinstance(b, _ndarray)
                and not isinstance(b, np.matrix)):
            wrap = b.__array_wrap__  # NumPy keeps b's subclass
        overwrite_a = overwrite_a and isinstance(a, _ndarray)
        overwrite_b = overwrite_b and isinstance(b, _ndarray)
        a, b = np.asarray(a), np.asarray(b)
    dt = a.dtype
    if dt is not b.dtype or (dt is not _F64 and dt is not _F32):
        dt = working_dtype("solve", a.dtype, b.dtype)
    policy = _core.POLICY_AUTO
    if precision is not None:
        policy, dt = _policy(precision, dt)
    if a.ndim == 2 and 0 < b.ndim <= 2:  # one matrix: no batch to broadcast
        n = a.shape[0]
        if a.shape[1] != n:
            solve_shapes("solve", a.shape, b.shape)  # raises its ShapeError
        vector = b.ndim == 1
        if b.shape[0] != n:
            solve_shapes("solve", a.shape, b.shape)
        batch, k = (), 1 if vector else b.shape[1]
    else:
        batch, n, k, vector = solve_shapes("solve", a.shape, b.shape,
                                           kind="torch" if like_torch else "numpy")
    if check is True or _check_mode(check) != "off":
        flags = _CHECK | _REFINE if refine else _CHECK
    else:
        flags = 0
    if check_finite:
        flags |= _FINITE
    if transposed:
        flags |= _TRANS
    note = None
    if a.dtype is not _F64 and a.dtype is not _F32:
        a, overwrite_a = _native(a, dt), True  # our own copy
    if b.dtype is not _F64 and b.dtype is not _F32:
        b = _native(b, dt)
    if assume_a not in _GENERAL:
        if assume_a not in _SYMMETRIC and assume_a not in _TRIANGULAR:
            raise ValueError(f"{assume_a!r} is not a recognized matrix structure")
        a, note = _structure(a, assume_a, lower)
        overwrite_a = True
    if overwrite_a and a.flags.writeable:
        flags |= _OWN_A
    if want_report:
        flags |= _REPORT
    out = _out_for(a, b, batch, n, k, vector, dt, transposed, overwrite_b)
    status, flat, rep = _call(_core.solve, a, b, out, vector, flags, policy, method, backend)
    report = None
    if rep is not None:
        if note:
            rep["why"] = f"{rep['why']}; {note}" if rep.get("why") else note
        report = Report._from_core(rep, _index(flat, batch))
        if status:
            _raise_or_warn(status, report, check)
    if wrap is not None:
        out = wrap(out)
    if like_torch:
        out = _wrap_like(out, like_torch)
    return out, report


def _raise_or_warn(status, report, check):
    if status == _core.INACCURATE and _check_mode(check) == "warn":
        warnings.warn(f"linsolve.solve: {report.message}", InaccurateWarning, stacklevel=5)
    else:
        raise error_for(status, report.message, report.index, report)


def _torch_cpu(*xs):
    """Were any inputs PyTorch CPU tensors? Then the result is one too."""
    return any(type(x).__module__.split(".")[0] == "torch" for x in xs)


def _wrap_like(x, like_torch):
    if like_torch:
        import torch
        return torch.from_numpy(np.ascontiguousarray(x) if x.ndim else x)
    return x


def _is_scipy_sparse(x):
    """A scipy.sparse matrix or array, known without importing SciPy."""
    return hasattr(x, "tocsr") and type(x).__module__.startswith("scipy.sparse")


def _other(a, b, kw, want_report):
    """CUDA arrays and scipy.sparse matrices: (x, report), or None for the
    NumPy path."""
    if _gpu.is_device_array(a) or _gpu.is_device_array(b):
        if kw["transposed"] or kw["assume_a"] not in _GENERAL:
            raise ValueError("transposed and assume_a are for host arrays; transpose the "
                             "device array instead")
        return _gpu.solve(a, b, method=kw["method"], precision=kw["precision"],
                          check=_check_mode(kw["check"]), check_finite=kw["check_finite"],
                          want_report=want_report)
    if _is_scipy_sparse(a):
        from . import _sparse
        return _sparse.solve(a, b, kw["method"], kw["backend"], kw["precision"], kw["check"],
                             kw["transposed"], want_report)
    return None


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a="gen", transposed=False, *, method="auto", backend="auto", precision=None,
          check=True, refine=True):
    """Solve the linear system(s) ``a @ x = b`` for x.

    The signature is SciPy's (``scipy.linalg.solve``) and the shapes are
    NumPy's (``numpy.linalg.solve``: stacks broadcast); the work is one
    call of liblinsolve's planner, which picks the path: one dense system,
    a stack in one batched LU call, the mixed-precision solver, or a sparse
    solver for a ``scipy.sparse`` matrix.

    Parameters
    ----------
    a : (..., n, n) array_like or scipy.sparse matrix
        Coefficient matrices; a NumPy array, anything ``numpy.asarray``
        takes, a CUDA array (PyTorch, CuPy, JAX, DLPack or
        ``__cuda_array_interface__``), which is solved on its device, or a
        ``scipy.sparse`` matrix or array (CSR, CSC, COO, ...), solved
        sparse without densifying.
    b : (n,), (..., n, k) or (..., n) array_like
        Right-hand sides. Batch dimensions broadcast as in NumPy. A 1-D b
        is one vector; whether a b of shape (..., n) is a stack of vectors
        follows the caller's own library: the installed NumPy's
        ``numpy.linalg.solve`` for NumPy arrays (2.x: never; 1.x: when
        ``b.ndim == a.ndim - 1``), ``torch.linalg.solve``'s for PyTorch
        tensors (when ``b.shape == a.shape[:-1]``), the installed CuPy's for
        CuPy arrays. ``b[..., None]`` is read alike everywhere.
    lower : bool
        With ``assume_a`` 'sym', 'her' or 'pos': a is read from its lower
        triangle (SciPy's meaning); ignored otherwise.
    overwrite_a, overwrite_b : bool
        Allow a (its factors) and b (the answer) to be overwritten, which
        saves a copy when they are writable arrays of the working dtype in
        the storage order the solve uses.
    check_finite : bool
        Refuse NaN and Inf with :class:`NonFiniteError` (a ``ValueError``);
        ``False`` skips the scan of a stack (one dense system is still
        checked by the library).
    assume_a : str or None
        SciPy's structure of a: 'gen' ('general'), 'sym', 'her', 'pos'
        (read from one triangle), 'upper triangular', 'lower triangular',
        'diagonal', 'tridiagonal' (the three diagonals), 'banded' (the
        whole matrix); None (SciPy >= 1.15's default, which detects the
        structure) is 'gen'. Every one is solved by the general LU with
        partial pivoting on the matrix SciPy would read; the report's
        ``why`` says so.
    transposed : bool
        Solve ``a.T @ x = b`` instead (no transposed copy is made).
    method : str
        ``"auto"`` or a method of ``linsolve.methods()`` ("lu", "ge",
        "gj1", "gj2", "bicgstab", "lapack", ...), or a path of the planner
        ("batched", "dense", "mixed", ...). Sparse a: "auto" or "direct"
        (sparse LU), "bicgstab", "gmres", "cg".
    backend : {"auto", "cpu", "cuda", "opencl"}
        Where NumPy arrays are solved; ``"auto"`` lets the library pick
        (CUDA, then an OpenCL GPU, then the CPU). Device arrays are always
        solved on their own device.
    precision : {None, "single", "double", "mixed"}
        Working precision; None follows the dtype (float32 -> single).
        "mixed": single-precision LU refined to a double-precision answer
        (LAPACK's dsgesv idea), float64 result. Otherwise the result keeps
        the input's dtype.
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
        Shape of the broadcast b, b's ndarray subclass (not np.matrix);
        float32 for float32 inputs, else float64.

    Raises
    ------
    SingularMatrixError
        (a ``numpy.linalg.LinAlgError``) with the zero pivot's column and,
        for a stack, the failed system's index.
    ShapeError
        (``LinAlgError`` and ``ValueError``) for shapes that do not fit.
    TypeError
        For complex or other unsupported dtypes.
    NonFiniteError
        (``ValueError``) when a or b holds NaN or Inf.
    BackendUnavailableError
        (``RuntimeError``) when the backend or device is not there.
    KeyboardInterrupt
        Ctrl-C during a long stack solve (checked between chunks).

    Examples
    --------
    >>> import numpy as np, linsolve
    >>> linsolve.solve(np.array([[3., 1.], [1., 2.]]), np.array([9., 8.]))
    array([2., 3.])
    """
    if type(a) is not _ndarray or type(b) is not _ndarray:
        r = _other(a, b, dict(method=method, backend=backend, precision=precision,
                              check=check, check_finite=check_finite, transposed=transposed,
                              assume_a=assume_a), False)
        if r is not None:
            return r[0]
    return _host_solve(a, b, lower, overwrite_a, overwrite_b, check_finite, assume_a,
                       transposed, method, backend, precision, check, refine, False)[0]


def solve_ex(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
             assume_a="gen", transposed=False, *, method="auto", backend="auto",
             precision=None, check=True, refine=True):
    """As :func:`solve`, and also return the library's :class:`Report`.

    Returns
    -------
    x : ndarray (or the caller's array type)
    report : Report
        The planner's path and why, method and backend that ran, device,
        times, GFLOP/s, residual, refinement steps, and the library's
        message.
    """
    r = _other(a, b, dict(method=method, backend=backend, precision=precision, check=check,
                          check_finite=check_finite, transposed=transposed,
                          assume_a=assume_a), True)
    if r is not None:
        return r
    return _host_solve(a, b, lower, overwrite_a, overwrite_b, check_finite, assume_a,
                       transposed, method, backend, precision, check, refine, True)


def methods():
    """``[(name, description)]`` of every method the library knows."""
    return _core.methods()
