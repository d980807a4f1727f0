"""lu_factor / lu_solve: SciPy's conventions, stacks, errors."""
import numpy as np
import pytest

import linsolve
from conftest import well_conditioned


def unpack(lu, piv):
    """P, L, U from packed factors and 0-based pivots (SciPy's convention)."""
    n = lu.shape[0]
    L = np.tril(lu, -1) + np.eye(n)
    U = np.triu(lu)
    perm = np.arange(n)
    for i, p in enumerate(piv):
        perm[[i, p]] = perm[[p, i]]
    P = np.eye(n)[:, perm]
    return P, L, U


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_factors_reconstruct_a(rng, dtype):
    a = rng.uniform(-1, 1, (25, 25)).astype(dtype)
    f = linsolve.lu_factor(a)
    lu, piv = f
    assert lu.dtype == dtype and piv.dtype == np.intc and lu.flags.f_contiguous
    assert f.lu is lu and f.piv is piv and f.info == 0 and f.backend
    P, L, U = unpack(lu.astype(np.float64), piv)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(P @ L @ U, a, atol=tol)


def test_matches_scipy(rng):
    sla = pytest.importorskip("scipy.linalg")
    a = rng.uniform(-1, 1, (30, 30))
    b = rng.uniform(-1, 1, (30, 4))
    lu, piv = linsolve.lu_factor(a)
    slu, spiv = sla.lu_factor(a)
    np.testing.assert_array_equal(piv, spiv)
    np.testing.assert_allclose(lu, slu, rtol=1e-10, atol=1e-12)
    for trans in (0, 1, 2):
        want = sla.lu_solve((slu, spiv), b, trans=trans)
        np.testing.assert_allclose(linsolve.lu_solve((lu, piv), b, trans=trans), want,
                                   rtol=1e-10, atol=1e-12)
        # and each library takes the other's factors
        np.testing.assert_allclose(linsolve.lu_solve((slu, spiv), b, trans=trans), want,
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sla.lu_solve(linsolve.lu_factor(a), b, trans=trans), want,
                                   rtol=1e-10, atol=1e-12)


def test_factor_once_solve_many(rng):
    a = well_conditioned(rng, 40, 40)
    f = linsolve.lu_factor(a)
    for _ in range(5):
        b = rng.uniform(-1, 1, 40)
        np.testing.assert_allclose(linsolve.lu_solve(f, b), np.linalg.solve(a, b),
                                   rtol=1e-10, atol=1e-12)


def test_rectangular_factor(rng):
    a = rng.uniform(-1, 1, (7, 4))
    lu, piv = linsolve.lu_factor(a)
    assert lu.shape == (7, 4) and piv.shape == (4,)
    sla = pytest.importorskip("scipy.linalg")
    slu, spiv = sla.lu_factor(a)
    np.testing.assert_allclose(lu, slu, atol=1e-12)
    np.testing.assert_array_equal(piv, spiv)


def test_stacked_factors_broadcast(rng):
    a = well_conditioned(rng, 3, 10, 10)
    f = linsolve.lu_factor(a)
    assert f.lu.shape == (3, 10, 10) and f.piv.shape == (3, 10) and f.info.shape == (3,)
    b = rng.uniform(-1, 1, (2, 1, 10, 2))
    np.testing.assert_allclose(linsolve.lu_solve(f, b), np.linalg.solve(a, b), rtol=1e-9,
                               atol=1e-11)


def test_non_contiguous_and_c_order_inputs(rng):
    a = well_conditioned(rng, 12, 12)
    big = np.zeros((24, 24))
    big[::2, ::2] = a
    lu, piv = linsolve.lu_factor(big[::2, ::2])
    b = rng.uniform(-1, 1, 12)
    want = np.linalg.solve(a, b)
    np.testing.assert_allclose(linsolve.lu_solve((lu, piv), b), want, rtol=1e-10)
    # C-ordered factors and int64 pivots (as a user might build them)
    np.testing.assert_allclose(linsolve.lu_solve((np.ascontiguousarray(lu), piv.astype(np.int64)),
                                                 b), want, rtol=1e-10)


def test_overwrite(rng):
    a = np.asfortranarray(well_conditioned(rng, 8, 8))
    a0 = a.copy()
    lu, piv = linsolve.lu_factor(a, overwrite_a=True)
    assert lu is a
    b = rng.uniform(-1, 1, 8)
    b0 = b.copy()
    x = linsolve.lu_solve((lu, piv), b, overwrite_b=True)
    assert np.shares_memory(x, b)
    np.testing.assert_allclose(x, np.linalg.solve(a0, b0), rtol=1e-10)
    c = well_conditioned(rng, 8, 8)
    c0 = c.copy()
    linsolve.lu_factor(c)  # default: a is left alone
    np.testing.assert_array_equal(c, c0)


def test_singular_factor_warns_then_solve_raises():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.warns(linsolve.SingularMatrixWarning, match="exactly zero"):
        f = linsolve.lu_factor(a)
    assert f.info == 2
    with pytest.raises(np.linalg.LinAlgError) as e:
        linsolve.lu_solve(f, np.ones(2))
    assert e.value.column == 1


def test_lu_errors(rng):
    a = np.eye(3)
    a[0, 0] = np.nan
    with pytest.raises(linsolve.NonFiniteError):
        linsolve.lu_factor(a)
    linsolve.lu_factor(a, check_finite=False)  # as SciPy: the caller's choice
    lu, piv = linsolve.lu_factor(np.eye(3))
    with pytest.raises(ValueError, match="outside"):
        linsolve.lu_solve((lu, np.array([0, 5, 2], np.intc)), np.ones(3))
    with pytest.raises(ValueError, match="rows"):
        linsolve.lu_solve((lu, piv), np.ones(4))
    with pytest.raises(ValueError, match="trans"):
        linsolve.lu_solve((lu, piv), np.ones(3), trans=3)
    with pytest.raises(TypeError, match="integers"):  # integral floats are taken, as SciPy
        linsolve.lu_solve((lu, piv + 0.5), np.ones(3))
    with pytest.raises(TypeError, match="complex"):
        linsolve.lu_factor(np.eye(2, dtype=complex))
    b = np.ones(3)
    b[1] = np.inf
    with pytest.raises(linsolve.NonFiniteError):
        linsolve.lu_solve((lu, piv), b)


def test_pickle_round_trip(rng):
    import pickle
    f = linsolve.lu_factor(well_conditioned(rng, 4, 4))
    g = pickle.loads(pickle.dumps(f))
    assert isinstance(g, linsolve.LUFactor) and g.backend == f.backend
    np.testing.assert_array_equal(g.lu, f.lu)
