"""scipy.sparse input solved sparse (never densified) through the planner's
CSR paths: sparse LU by default where the library has one (UMFPACK on the
CPU, cuDSS on CUDA), a Krylov method otherwise, and Krylov methods by name."""
import subprocess
import sys

import numpy as np
import pytest

import linsolve
from conftest import NO_SPARSE_DIRECT, sparse_direct_available

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")


def poisson(m):
    """The 5-point Laplacian on an m x m grid: SPD, n = m^2."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return (sp.kron(sp.eye(m), t) + sp.kron(t, sp.eye(m))).tocsr()


def nonsymmetric(rng, n=80):
    a = sp.random(n, n, density=0.05, random_state=np.random.RandomState(3), format="csr")
    return (a + sp.eye(n) * 4).tocsr()


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "csr_array", "coo_array", "lil"])
def test_formats_match_spsolve(rng, fmt):
    a = nonsymmetric(rng)
    if fmt.endswith("_array"):
        if not hasattr(sp, fmt):
            pytest.skip(f"this SciPy has no {fmt}")
        m = getattr(sp, fmt)(a)
    else:
        m = a.asformat(fmt)
    b = rng.standard_normal(a.shape[0])
    x, rep = linsolve.solve_ex(m, b)
    direct = sparse_direct_available()
    assert rep.path == ("sparse-direct" if direct else "sparse-krylov"), rep.why
    assert isinstance(x, np.ndarray) and x.shape == b.shape
    tol = 1e-10 if direct else 1e-6  # the sparse LU's rounding; the Krylov method's tolerance
    np.testing.assert_allclose(x, spla.spsolve(a.tocsc(), b), rtol=tol, atol=tol * 1e-2)


def test_several_right_hand_sides_and_transposed(rng):
    a = nonsymmetric(rng)
    b = rng.standard_normal((a.shape[0], 3))
    x = linsolve.solve(a, b)
    assert x.shape == (a.shape[0], 3)
    np.testing.assert_allclose(a @ x, b, atol=1e-10)
    xt = linsolve.solve(a, b[:, 0], transposed=True)
    np.testing.assert_allclose(a.T @ xt, b[:, 0], atol=1e-10)


@pytest.mark.parametrize("method", ["bicgstab", "gmres", "cg", "direct"])
def test_methods_by_name(method):
    a = poisson(12)
    b = np.ones(a.shape[0])
    if method == "direct" and not sparse_direct_available():
        with pytest.raises(linsolve.InvalidArgumentError, match=NO_SPARSE_DIRECT):
            linsolve.solve(a, b, method=method)
        return
    x, rep = linsolve.solve_ex(a, b, method=method)
    assert rep.path == ("sparse-direct" if method == "direct" else "sparse-krylov")
    np.testing.assert_allclose(x, spla.spsolve(a.tocsc(), b), rtol=1e-6)


def test_duplicates_summed_and_input_untouched(rng):
    rows = np.array([0, 0, 1, 2, 2, 1])
    cols = np.array([0, 0, 1, 2, 0, 1])
    vals = np.array([1.0, 2.0, 4.0, 5.0, 1.0, 1.0])
    a = sp.csr_matrix((vals, (rows, cols)), shape=(3, 3))
    raw = sp.csr_matrix((vals.copy(), cols.copy(), np.array([0, 2, 4, 6])), shape=(3, 3))
    raw.has_canonical_format = False  # duplicates kept, as a user may build it
    before = (raw.data.copy(), raw.indices.copy())
    x = linsolve.solve(raw, np.ones(3))
    np.testing.assert_allclose(raw @ x, np.ones(3), atol=1e-12)
    np.testing.assert_array_equal(raw.data, before[0])
    np.testing.assert_array_equal(raw.indices, before[1])
    np.testing.assert_allclose(linsolve.solve(a, np.ones(3)), spla.spsolve(a.tocsc(), np.ones(3)))


def test_singular_and_non_square(rng):
    a = nonsymmetric(rng).tolil()
    a[5, :] = 0
    if sparse_direct_available():  # the sparse LU meets a zero pivot
        with pytest.raises(linsolve.SingularMatrixError):
            linsolve.solve(a.tocsr(), np.ones(a.shape[0]))
    else:  # the Krylov path's structural check refuses it (as an invalid argument)
        with pytest.raises(linsolve.LinsolveError, match="structurally singular"):
            linsolve.solve(a.tocsr(), np.ones(a.shape[0]))
    with pytest.raises(linsolve.ShapeError):
        linsolve.solve(sp.random(5, 6, format="csr"), np.ones(5))
    with pytest.raises(linsolve.ShapeError):
        linsolve.solve(poisson(3), np.ones(4))
    with pytest.raises(TypeError):
        linsolve.solve(poisson(3).astype(np.complex128), np.ones(9))


def test_scipy_not_imported_by_the_package():
    code = "import sys, linsolve; sys.exit('scipy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
