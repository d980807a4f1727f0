"""Shared helpers: seeded generators and the residual bar the library uses."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20240614)


def scaled_residual(a, x, b):
    """||b - a x||inf / (n ||a||inf ||x||inf eps), per system, worst of a stack."""
    a, x, b = np.asarray(a, np.float64), np.asarray(x, np.float64), np.asarray(b, np.float64)
    if x.ndim == a.ndim - 1 and b.ndim == a.ndim - 1:
        x, b = x[..., None], b[..., None]
    n = a.shape[-1]
    r = b - a @ x
    eps = np.finfo(np.float64).eps
    num = np.abs(r).max(axis=(-2, -1))
    den = n * np.abs(a).sum(-1).max(-1) * np.abs(x).max(axis=(-2, -1)) * eps
    return float(np.max(num / den))


def well_conditioned(rng, *shape, dtype=np.float64):
    n = shape[-1]
    a = rng.uniform(-1, 1, shape) + n * np.eye(n) * 0.1
    return a.astype(dtype)


NO_SPARSE_DIRECT = r"no sparse direct solver|without UMFPACK"


def sparse_direct_available():
    """Does the planner have a sparse direct solver for scipy.sparse input
    here (UMFPACK on the CPU, cuDSS on CUDA, when the library is built with
    them)? Asked of the package itself: a 1 x 1 solve with method="direct"
    either runs or is refused with a message that names the missing solver
    (any other error is raised)."""
    sp = pytest.importorskip("scipy.sparse")
    import linsolve
    try:
        linsolve.solve(sp.csr_matrix(np.ones((1, 1))), np.ones(1), method="direct")
    except linsolve.LinsolveError as e:
        import re
        if re.search(NO_SPARSE_DIRECT, str(e)):
            return False
        raise
    return True
