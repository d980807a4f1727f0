"""LU factors kept for later solves: lu_factor and lu_solve with SciPy's
signatures and conventions, on NumPy arrays here and on device arrays in
_gpu.py. On the CPU the factorization and the triangular solves are the
linked LAPACK's getrf / getrs (OpenBLAS's where it is the system's) unless
LS_CPU_GETRF=lu asks for linsolve's own LU."""
import warnings

import numpy as np

from . import _core, _gpu
from ._api import _call, _empty_colmajor, _index, _native
from ._errors import ShapeError, SingularMatrixWarning, error_for
from ._shapes import array_kind, broadcast_batch, check_matrix, rhs_is_vector, working_dtype


class LUFactor(tuple):
    """The LU factorization of :func:`lu_factor`: ``(lu, piv)`` as SciPy.

    It unpacks as ``lu, piv = linsolve.lu_factor(a)`` and can be handed to
    ``scipy.linalg.lu_solve`` as well as to :func:`lu_solve`.

    Attributes
    ----------
    lu : array
        L (unit diagonal, not stored) and U packed in one (..., m, n)
        array whose matrices are column-major, on the device the input was.
    piv : array of int32
        0-based pivots as SciPy's: row i was interchanged with row piv[i].
    info : int or ndarray
        LAPACK's info per matrix: 0, or the 1-based column of an exactly
        zero pivot (the factorization still ran to the end).
    backend : str
        Where the factors were computed ("cpu", "cuda", ...).
    """

    def __new__(cls, lu, piv, info=0, backend="cpu", _device=None):
        self = super().__new__(cls, (lu, piv))
        self.info = info
        self.backend = backend
        self._device = _device  # the device path's private state
        return self

    def __getnewargs__(self):
        return (self[0], self[1], self.info, self.backend)

    def __reduce__(self):
        return (LUFactor, self.__getnewargs__())

    @property
    def lu(self):
        return self[0]

    @property
    def piv(self):
        return self[1]

    def __repr__(self):
        shape = tuple(getattr(self[0], "shape", ()))
        return (f"LUFactor(shape={shape}, dtype={getattr(self[0], 'dtype', '?')}, "
                f"backend={self.backend!r}, info={self.info!r})")


_F32, _F64, _F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)


def _lu_dtype(fname, *dtypes):
    """working_dtype, with float16 read as float32 (SciPy's getrf/getrs do);
    native float64/float32 answered without the general rules (per-call
    overhead matters for small systems)."""
    single = True
    for d in dtypes:
        if d == _F64:
            single = False
        elif d != _F32 and d != _F16:
            return working_dtype(fname, *(_F32 if d == _F16 else d for d in dtypes))
    return _F32 if single else _F64


def _in_place(x, dtype):
    """May the library write into x as a column-major matrix of dtype?"""
    f = x.flags
    return x.dtype == dtype and f.writeable and f.aligned and f.f_contiguous


def _is_host(*xs):
    """True unless one of xs may be a device array (NumPy arrays never are)."""
    for x in xs:
        if type(x) is not np.ndarray and _gpu.is_device_array(x):
            return False
    return True


def _floats(x, dtype):
    """x itself when the library reads it as is (native float32/float64: a
    float32 x read by a double solve is converted while it is packed), else
    x converted to dtype."""
    return x if x.dtype == _F64 or x.dtype == _F32 else x.astype(dtype)


def lu_factor(a, overwrite_a=False, check_finite=True, *, backend="auto"):
    """LU factorization with partial pivoting, ``a = P @ L @ U``.

    The signature and the results are ``scipy.linalg.lu_factor``'s.

    Parameters
    ----------
    a : (..., m, n) array_like
        Matrix or stack of matrices (NumPy, or a CUDA array: then the
        factors stay on its device).
    overwrite_a : bool
        Allow the factors to overwrite a (when a is a writable,
        column-major array of the working dtype; otherwise a copy is made).
    check_finite : bool
        Refuse NaN and Inf with :class:`NonFiniteError` (a ``ValueError``),
        as SciPy does.
    backend : str
        As in :func:`solve`, for NumPy arrays.

    Returns
    -------
    LUFactor
        ``(lu, piv)``, SciPy's convention (0-based int32 pivots), with
        ``info`` and ``backend``; lu is a plain ndarray (float32 for
        float32 and float16 input, float64 otherwise), as SciPy's. An
        exactly zero pivot gives a :class:`SingularMatrixWarning`, as
        SciPy's LinAlgWarning; the factors are still returned and
        :func:`lu_solve` refuses them.
    """
    if not _is_host(a):
        return _gpu.lu_factor(a, check_finite=check_finite)
    a = np.asarray(a)
    dtype = _lu_dtype("lu_factor", a.dtype)
    check_matrix("lu_factor", "a", a.shape, square=False)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    if a.ndim == 2:
        if overwrite_a and _in_place(a, dtype):
            lu = src = a
        elif a.dtype == dtype and a.flags.c_contiguous:
            # transposed into lu by the C side in cache-sized tiles, checked
            # on the way: one pass over a instead of a copy and a scan
            lu, src = np.empty((n, m), dtype).T, a
        else:
            # one column-major copy by NumPy, then factored in place: cheaper
            # than the C side's strided element-by-element copy
            lu = src = np.array(a, dtype, order="F")
    else:
        lu = _empty_colmajor(batch, m, n, dtype)
        src = _native(a, dtype)
    piv = np.empty(batch + (min(m, n),), np.intc)
    info = np.zeros(batch, np.intc)
    status, flat, message, _ = _call(_core.lu_factor, src, lu, piv, info, backend,
                                     bool(check_finite))
    if status:
        raise error_for(status, message, _index(flat, batch))
    if not batch:
        info = int(info)  # cheaper than info.any() on a 0-d array
        if info:
            warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.",
                          SingularMatrixWarning, stacklevel=2)
    elif info.any():
        first = int(np.flatnonzero(info > 0)[0])
        warnings.warn(f"Diagonal number {int(info.flat[first])} is exactly zero in system "
                      f"{_index(first, batch)}. Singular matrix.", SingularMatrixWarning,
                      stacklevel=2)
    return LUFactor(lu, piv, info, _call(_core.backend_of, backend))


def _pivots(piv, n):
    """piv as int32, 0-based, each in [0, n). Integer arrays and floats of
    integer value (SciPy accepts them too: its tests pass an empty float
    array for n = 0) are taken; the C side checks int32 ranges again."""
    piv = np.asarray(piv)
    kind = piv.dtype.kind
    if piv.dtype == np.intc or not piv.size and kind in "iuf":
        return piv.astype(np.intc, copy=False)
    if kind == "f":
        if not (np.isfinite(piv).all() and (piv == np.floor(piv)).all()):
            raise TypeError("lu_solve: piv must hold integers (or floats of integer value)")
    elif kind not in "iu":
        raise TypeError(f"lu_solve: piv must hold integers, not {piv.dtype}")
    if piv.min() < 0 or piv.max() >= n:
        raise ValueError(f"lu_solve: pivots must lie in [0, {n})")
    return piv.astype(np.intc)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True, *, backend=None):
    """Solve ``a @ x = b`` (trans=0), ``a.T @ x = b`` (1) or ``a.H @ x = b`` (2)
    with the factors of :func:`lu_factor`.

    The signature and the results are ``scipy.linalg.lu_solve``'s; stacks
    of factors and right-hand sides broadcast as in :func:`solve`.

    Parameters
    ----------
    lu_and_piv : LUFactor or (lu, piv)
        From :func:`lu_factor` or ``scipy.linalg.lu_factor`` (0-based piv:
        integers, or floats of integer value).
        A stack of factors broadcasts against b's batch dimensions.
    b : (..., n) or (..., n, k) array_like
        Right-hand sides (on the same kind of device as the factors).
    trans : {0, 1, 2}
        Which system, as SciPy's; 2 equals 1 for real data.
    overwrite_b : bool
        Allow x to be written into b (a writable column-major array of the
        working dtype).
    check_finite : bool
        Refuse NaN and Inf in b, as SciPy does (lu is not scanned: it came
        from a factorization that checked its input).
    backend : str or None
        None: where the factors were computed (``"auto"`` for a tuple).

    Returns
    -------
    x : ndarray of b's shape (a plain ndarray, as SciPy's)

    Raises
    ------
    SingularMatrixError
        When U has an exactly zero diagonal entry (SciPy's lu_solve
        returns Inf/NaN there).
    """
    lu, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"trans must be 0, 1 or 2, not {trans!r}")
    if not _is_host(lu, b):
        return _gpu.lu_solve(lu_and_piv, b, trans)
    kind = array_kind(lu, b)  # a torch CPU tensor's b is read by torch's rule
    lu, b = np.asarray(lu), np.asarray(b)
    dtype = _lu_dtype("lu_solve", lu.dtype, b.dtype)
    check_matrix("lu_solve", "lu", lu.shape)
    n = lu.shape[-1]
    piv = _pivots(piv, n)
    if piv.ndim < 1 or piv.shape[-1] != n:
        raise ShapeError(f"lu_solve: piv of shape {piv.shape} does not fit lu of shape {lu.shape}")
    if b.ndim == 0:
        raise ShapeError("lu_solve: b must be at least one-dimensional")
    vector = rhs_is_vector(lu.shape, b.shape, kind)
    core = (b.shape[-1], 1) if vector else b.shape[-2:]
    if core[0] != n:
        raise ShapeError(f"lu_solve: b has {core[0]} rows but lu is {n} x {n}")
    k = core[1]
    if backend is None:
        backend = getattr(lu_and_piv, "backend", "auto")
    # Factors from lu_factor with info 0 have no zero on U's diagonal: the
    # scan for one (a cache miss per column) is left to tuples of other origin.
    info = getattr(lu_and_piv, "info", None) if type(lu_and_piv) is LUFactor else None
    scan_diagonal = info is None or (info != 0 if type(info) is int else bool(info.any()))
    if lu.ndim == 2 and piv.ndim == 1 and b.ndim <= 2:  # one system: no broadcasting
        if not n or not k:
            return np.empty(b.shape, dtype)
        bb = b[:, None] if vector else b
        out = bb if overwrite_b and _in_place(bb, dtype) else np.empty((k, n), dtype).T
        status, flat, message, _ = _call(_core.lu_solve, _floats(lu, dtype), piv,
                                         _floats(bb, dtype), out, int(trans), backend,
                                         bool(check_finite), scan_diagonal)
        if status:
            raise error_for(status, message, None)
        return out[:, 0] if vector else out
    b_batch = b.shape[:-1] if vector else b.shape[:-2]
    batch = broadcast_batch("lu_solve", ("lu", lu.shape[:-2]), ("piv", piv.shape[:-1]),
                            ("b", b_batch))
    if not n or not k:
        return np.empty(batch + ((n,) if vector else (n, k)), dtype)
    lu = np.broadcast_to(_native(lu, dtype), batch + (n, n))
    piv = np.broadcast_to(piv, batch + (n,))
    bb = _native(b, dtype)
    bb = np.broadcast_to(bb[..., None] if vector else bb, batch + (n, k))
    out = _empty_colmajor(batch, n, k, dtype)
    status, flat, message, _ = _call(_core.lu_solve, lu, piv, bb, out, int(trans), backend,
                                     bool(check_finite), scan_diagonal)
    if status:
        raise error_for(status, message, _index(flat, batch))
    return out[..., 0] if vector else out
