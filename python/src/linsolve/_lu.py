"""LU factors kept for later solves: lu_factor and lu_solve (SciPy's
convention), on NumPy arrays here and on device arrays in _gpu.py."""
import warnings

import numpy as np

from . import _core, _gpu
from ._api import _call, _empty_colmajor, _index, _native
from ._errors import ShapeError, SingularMatrixWarning, error_for
from ._shapes import broadcast_batch, check_matrix, rhs_is_vector, working_dtype


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


def lu_factor(a, *, overwrite_a=False, check_finite=True, backend="auto"):
    """LU factorization with partial pivoting, ``a = P @ L @ U``.

    Parameters
    ----------
    a : (..., m, n) array_like
        Matrix or stack of matrices (NumPy, or a CUDA array: then the
        factors stay on its device).
    overwrite_a : bool
        Allow the factors to overwrite a (when a is a writable,
        column-major array of the working dtype; otherwise a copy is made).
    check_finite : bool
        Refuse NaN and Inf with :class:`NonFiniteError`, as SciPy does.
    backend : str
        As in :func:`solve`, for NumPy arrays.

    Returns
    -------
    LUFactor
        ``(lu, piv)``, SciPy's convention (0-based int32 pivots), with
        ``info`` and ``backend``. An exactly zero pivot gives a
        :class:`SingularMatrixWarning`, as SciPy's LinAlgWarning; the
        factors are still returned and :func:`lu_solve` refuses them.
    """
    if _gpu.is_device_array(a):
        return _gpu.lu_factor(a, check_finite=check_finite)
    a = np.asarray(a)
    dtype = working_dtype("lu_factor", a.dtype)
    check_matrix("lu_factor", "a", a.shape, square=False)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    a = _native(a, dtype)
    if overwrite_a and a.dtype == dtype and a.flags.writeable and a.ndim == 2 and \
            a.flags.f_contiguous:
        lu = a
    else:
        lu = _empty_colmajor(batch, m, n, dtype)
    piv = np.empty(batch + (min(m, n),), np.intc)
    info = np.zeros(batch, np.intc)
    status, flat, message, _ = _call(_core.lu_factor, a, lu, piv, info, backend,
                                     bool(check_finite))
    if status:
        raise error_for(status, message, _index(flat, batch))
    if (info > 0).any():
        first = int(np.flatnonzero(info > 0)[0])
        col = int(info.flat[first])
        at = f" in system {_index(first, batch)}" if batch else ""
        warnings.warn(f"Diagonal number {col} is exactly zero{at}. Singular matrix.",
                      SingularMatrixWarning, stacklevel=2)
    return LUFactor(lu, piv, int(info) if not batch else info, _call(_core.backend_of, backend))


def lu_solve(lu_and_piv, b, trans=0, *, overwrite_b=False, check_finite=True, backend=None):
    """Solve ``a @ x = b`` (trans=0), ``a.T @ x = b`` (1) or ``a.H @ x = b`` (2)
    with the factors of :func:`lu_factor`.

    Parameters
    ----------
    lu_and_piv : LUFactor or (lu, piv)
        From :func:`lu_factor` or ``scipy.linalg.lu_factor`` (0-based piv).
        A stack of factors broadcasts against b's batch dimensions.
    b : (..., n) or (..., n, k) array_like
        Right-hand sides (on the same kind of device as the factors).
    trans : {0, 1, 2}
        Which system, as SciPy's; 2 equals 1 for real data.
    overwrite_b : bool
        Allow x to be written into b (a writable column-major array of the
        working dtype).
    check_finite : bool
        Refuse NaN and Inf in lu and b.
    backend : str or None
        None: where the factors were computed (``"auto"`` for a tuple).

    Returns
    -------
    x : array of b's shape

    Raises
    ------
    SingularMatrixError
        When U has an exactly zero diagonal entry.
    """
    lu, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"trans must be 0, 1 or 2, not {trans!r}")
    if _gpu.is_device_array(lu) or _gpu.is_device_array(b):
        return _gpu.lu_solve(lu_and_piv, b, trans)
    lu, piv, b = np.asarray(lu), np.asarray(piv), np.asarray(b)
    dtype = working_dtype("lu_solve", lu.dtype, b.dtype)
    if piv.dtype.kind not in "iu":
        raise TypeError(f"lu_solve: piv must hold integers, not {piv.dtype}")
    check_matrix("lu_solve", "lu", lu.shape)
    n = lu.shape[-1]
    if piv.ndim < 1 or piv.shape[-1] != n:
        raise ShapeError(f"lu_solve: piv of shape {piv.shape} does not fit lu of shape {lu.shape}")
    if piv.dtype.itemsize > 4 and piv.size and (piv.min() < 0 or piv.max() >= n):
        raise ValueError(f"lu_solve: pivots must lie in [0, {n})")
    if b.ndim == 0:
        raise ShapeError("lu_solve: b must be at least one-dimensional")
    vector = rhs_is_vector(lu.ndim, b.ndim)
    core = (b.shape[-1], 1) if vector else b.shape[-2:]
    if core[0] != n:
        raise ShapeError(f"lu_solve: b has {core[0]} rows but lu is {n} x {n}")
    b_batch = b.shape[:-1] if vector else b.shape[:-2]
    batch = broadcast_batch("lu_solve", ("lu", lu.shape[:-2]), ("piv", piv.shape[:-1]),
                            ("b", b_batch))
    k = core[1]
    lu = np.broadcast_to(_native(lu, dtype), batch + (n, n))
    piv = np.broadcast_to(piv.astype(np.intc, copy=False), batch + (n,))
    bb = _native(b, dtype)
    bb = np.broadcast_to(bb[..., None] if vector else bb, batch + (n, k))
    if overwrite_b and not batch and b.dtype == dtype and b.flags.writeable and \
            b.flags.f_contiguous:
        out = b[:, None] if vector else b  # x replaces b in place
    else:
        out = _empty_colmajor(batch, n, k, dtype)
    if backend is None:
        backend = getattr(lu_and_piv, "backend", "auto")
    status, flat, message, _ = _call(_core.lu_solve, lu, piv, bb, out, int(trans), backend,
                                     bool(check_finite))
    if status:
        raise error_for(status, message, _index(flat, batch))
    return out[..., 0] if vector else out
