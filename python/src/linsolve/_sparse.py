"""scipy.sparse matrices solved sparse: the matrix goes to the library's
planner as CSR with int64 indices and float64 values (never densified),
which runs a sparse LU (UMFPACK on the CPU, cuDSS on CUDA) by default or a
preconditioned Krylov method by name. SciPy is imported by the caller's
matrix, never by this package."""
import numpy as np

from . import _core
from ._api import _call, _check_mode, _raise_or_warn
from ._errors import ShapeError
from ._report import Report

_METHODS = ("auto", "direct", "bicgstab", "gmres", "cg", "sparse-direct", "sparse-krylov")


def _csr_arrays(a, transposed):
    """(indptr, indices, data) of a (or a.T) in CSR with sorted, summed
    entries, as int64/int64/float64 contiguous arrays; the caller's matrix
    is left as it was."""
    csr = (a.T if transposed else a).tocsr()
    if csr.dtype.kind == "c":
        raise TypeError(f"solve: complex sparse matrix ({csr.dtype}) is not supported: "
                        "linsolve solves real systems only")
    if csr.dtype.kind not in "fiub":
        raise TypeError(f"solve: sparse matrix of type {csr.dtype} is unsupported")
    if not csr.has_canonical_format:
        csr = csr.copy()  # sum_duplicates works in place
        csr.sum_duplicates()
    return (np.ascontiguousarray(csr.indptr, dtype=np.int64),
            np.ascontiguousarray(csr.indices, dtype=np.int64),
            np.ascontiguousarray(csr.data, dtype=np.float64))


def _fp64(precision):
    if precision is None or isinstance(precision, str):
        return precision in (None, "double")
    try:
        return np.dtype(precision) == np.float64
    except TypeError:
        return False


def solve(a, b, method, backend, precision, check, transposed, want_report):
    """(x, report or None) for a scipy.sparse a; b a vector or (n, k)."""
    if not _fp64(precision):
        raise ValueError("sparse matrices are solved in FP64 (precision None or 'double')")
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not a sparse method ({', '.join(_METHODS)})")
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
        raise ShapeError(f"solve: sparse a is {' x '.join(map(str, a.shape))}: not square")
    n = a.shape[0]
    if hasattr(b, "toarray") and hasattr(b, "tocsr"):
        b = b.toarray()
    b = np.asarray(b)
    if b.dtype.kind == "c":
        raise TypeError("solve: complex b is not supported: linsolve solves real systems only")
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ShapeError(f"solve: b of shape {b.shape} does not fit sparse a of order {n} "
                         "(b must be (n,) or (n, k))")
    indptr, indices, data = _csr_arrays(a, transposed)
    x = np.array(b, dtype=np.float64, order="F", copy=True)
    mode = _check_mode(check)
    status, flat, rep = _call(_core.solve_csr, indptr, indices, data, n,
                              x if x.ndim == 2 else x[:, None], method, backend, mode != "off",
                              want_report)
    report = None
    if rep is not None:
        report = Report._from_core(rep)
        if status:
            _raise_or_warn(status, report, check)
    return x, report
