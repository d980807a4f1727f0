"""lu_factor / lu_solve against scipy.linalg's: signatures, empty systems,
pivots, finiteness checks, dtypes, trans, overwriting, result types, and the
CPU getrf behind them."""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import linsolve
from conftest import well_conditioned

sla = pytest.importorskip("scipy.linalg")


def test_signatures_take_scipys_arguments_in_scipys_order():
    for name in ("lu_factor", "lu_solve"):
        ours = list(inspect.signature(getattr(linsolve, name)).parameters.values())
        theirs = list(inspect.signature(getattr(sla, name)).parameters.values())
        assert [(p.name, p.default) for p in ours[:len(theirs)]] == \
            [(p.name, p.default) for p in theirs]
        assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in ours[:len(theirs)])
    a = well_conditioned(np.random.default_rng(1), 6, 6)
    b = np.arange(6.0)
    f = linsolve.lu_factor(a, False, True)  # positionally, as SciPy's callers may
    np.testing.assert_allclose(linsolve.lu_solve(f, b, 1, False, True),
                               np.linalg.solve(a.T, b), rtol=1e-10)


@pytest.mark.parametrize("m, n", [(0, 0), (0, 2), (2, 0)])
def test_empty_factor(m, n):
    lu, piv = linsolve.lu_factor(np.zeros((m, n)))
    assert lu.shape == (m, n) and lu.dtype == np.float64
    assert piv.shape == (0,) and piv.dtype == np.int32


@pytest.mark.parametrize("piv", [np.array([]), np.array([], dtype=float), [], np.array([], int)])
def test_empty_solve_takes_scipys_empty_pivots(piv):
    lu = np.empty((0, 0))
    x = linsolve.lu_solve((lu, piv), [])
    assert x.shape == (0,) and x.dtype == np.float64
    x = linsolve.lu_solve((lu, piv), np.empty((0, 0)))
    assert x.shape == (0, 0)
    x = linsolve.lu_solve((lu, piv), np.empty((0, 3), np.float32))
    assert x.shape == (0, 3) and x.dtype == np.float64


def test_no_right_hand_sides():
    f = linsolve.lu_factor(np.eye(3))
    assert linsolve.lu_solve(f, np.empty((3, 0))).shape == (3, 0)


def test_float_pivots_of_integer_value(rng):
    a = well_conditioned(rng, 9, 9)
    b = rng.uniform(-1, 1, 9)
    lu, piv = linsolve.lu_factor(a)
    want = linsolve.lu_solve((lu, piv), b)
    np.testing.assert_array_equal(linsolve.lu_solve((lu, piv.astype(np.float64)), b), want)
    np.testing.assert_array_equal(linsolve.lu_solve((lu, piv.tolist()), b), want)
    np.testing.assert_array_equal(linsolve.lu_solve((lu, piv.astype(np.int64)), b), want)
    with pytest.raises(TypeError, match="integers"):
        linsolve.lu_solve((lu, piv + 0.25), b)
    with pytest.raises(TypeError, match="integers"):
        linsolve.lu_solve((lu, np.where(piv == piv[0], np.nan, piv)), b)
    for bad in (piv.astype(float) + 9, piv.astype(np.int64) - 9):
        with pytest.raises(ValueError, match=r"\[0, 9\)"):
            linsolve.lu_solve((lu, bad), b)


def test_check_finite_looks_at_b_only(rng):
    """As SciPy: NaN in b is refused, NaN in lu is the caller's (the answer
    is NaN, no error), and check_finite=False lets b through."""
    a = well_conditioned(rng, 5, 5)
    lu, piv = linsolve.lu_factor(a)
    bad_lu = lu.copy()
    bad_lu[3, 1] = np.nan
    x = linsolve.lu_solve((bad_lu, piv), np.ones(5))
    assert np.isnan(x).any()
    assert np.isnan(sla.lu_solve((bad_lu, piv), np.ones(5))).any()
    b = np.ones(5)
    b[2] = np.inf
    with pytest.raises(ValueError, match="not finite"):
        linsolve.lu_solve((lu, piv), b)
    with pytest.raises(ValueError):
        sla.lu_solve((lu, piv), b)
    assert not np.isfinite(linsolve.lu_solve((lu, piv), b, check_finite=False)).all()
    a[0, 0] = np.nan
    with pytest.raises(ValueError):
        linsolve.lu_factor(a)
    linsolve.lu_factor(a, check_finite=False)


@pytest.mark.parametrize("dt_lu, dt_b", [(np.float64, np.float64), (np.float32, np.float32),
                                         (np.float32, np.float64), (np.float32, np.int64),
                                         (np.float64, np.float32), (np.int64, np.int64),
                                         (np.float16, np.float16)])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("b_shape", [(12,), (12, 3)])
def test_results_as_scipys(rng, dt_lu, dt_b, trans, b_shape):
    a = (well_conditioned(rng, 12, 12) * 8).round().astype(dt_lu)
    b = (rng.uniform(-4, 4, b_shape)).round().astype(dt_b)
    # SciPy solves float16 in float32; 1.18 deprecates passing it float16 (1.20
    # refuses it), so SciPy gets the float32 cast and linsolve the float16 arrays
    sa, sb = (x.astype(np.float32) if x.dtype == np.float16 else x for x in (a, b))
    f, sf = linsolve.lu_factor(a), sla.lu_factor(sa)
    assert f.lu.dtype == sf[0].dtype and f.lu.shape == sf[0].shape
    x, sx = linsolve.lu_solve(f, b, trans=trans), sla.lu_solve(sf, sb, trans=trans)
    assert x.dtype == sx.dtype and x.shape == sx.shape
    # SciPy >= 1.15 solves with float32 factors in float32 even for a float64
    # b: the bar follows the least precise of the factors and the answer
    least = np.float32 if np.float32 in (f.lu.dtype, x.dtype) else np.float64
    tol = {np.float32: 1e-4, np.float64: 1e-11}[least]
    np.testing.assert_allclose(x, sx, rtol=tol, atol=tol)
    # either library's factors feed the other's solve
    np.testing.assert_allclose(linsolve.lu_solve(sf, b, trans=trans), sx, rtol=tol, atol=tol)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_results_are_plain_ndarrays_as_scipys(rng):
    class Tagged(np.ndarray):
        pass

    a = well_conditioned(rng, 4, 4).view(Tagged)
    b = np.ones(4).view(Tagged)
    f = linsolve.lu_factor(a)
    x = linsolve.lu_solve(f, b)
    assert type(f.lu) is type(sla.lu_factor(a)[0]) is np.ndarray
    assert type(x) is type(sla.lu_solve(sla.lu_factor(a), b)) is np.ndarray
    assert type(linsolve.lu_factor(np.asmatrix(a.view(np.ndarray)))[0]) is np.ndarray


def test_overwrite_flags(rng):
    a = np.asfortranarray(well_conditioned(rng, 10, 10))
    a0 = a.copy()
    f = linsolve.lu_factor(a, overwrite_a=True)
    assert f.lu is a
    c = np.ascontiguousarray(a0)
    g = linsolve.lu_factor(c, overwrite_a=True)  # C order: a copy, c intact
    np.testing.assert_array_equal(c, a0)
    np.testing.assert_array_equal(g.lu, f.lu)
    b = np.asfortranarray(rng.uniform(-1, 1, (10, 2)))
    b0 = b.copy()
    x = linsolve.lu_solve(f, b, overwrite_b=True)
    assert np.shares_memory(x, b)
    np.testing.assert_allclose(a0 @ x, b0, atol=1e-12)
    b = b0.copy()
    linsolve.lu_solve(f, b)
    np.testing.assert_array_equal(b, b0)


def test_zero_on_the_diagonal_of_a_tuple_is_refused():
    lu, piv = linsolve.lu_factor(np.diag([2.0, 1.0, 3.0]))
    lu[1, 1] = 0.0
    with pytest.raises(np.linalg.LinAlgError) as e:
        linsolve.lu_solve((lu, piv), np.ones(3))
    assert e.value.column == 1  # 0-based, LAPACK's info 2


def _getrf_line(env):
    code = ("import linsolve; print([l for l in linsolve.info().text.splitlines() "
            "if 'getrf/getrs' in l][0])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def test_cpu_getrf_is_the_linked_lapack_unless_asked():
    """ls_?getrf on the CPU: the linked LAPACK's by default (it was 1.7-3.1x
    linsolve's own LU from n = 100 to 2000), linsolve's own with
    LS_CPU_GETRF=lu; both factor correctly."""
    if "not linked" in linsolve.info().lapack:
        pytest.skip("liblinsolve was built without LAPACK")
    env = {k: v for k, v in os.environ.items() if k != "LS_CPU_GETRF"}
    assert _getrf_line(env).endswith("the LAPACK above")
    own = dict(env, LS_CPU_GETRF="lu")
    assert "linsolve's own LU" in _getrf_line(own)
    code = ("import numpy as np, scipy.linalg as s, linsolve\n"
            "a = np.random.default_rng(3).uniform(-1, 1, (150, 150))\n"
            "lu, piv = linsolve.lu_factor(a); slu, spiv = s.lu_factor(a)\n"
            "assert (piv == spiv).all(), 'pivots differ'\n"
            "assert np.allclose(lu, slu, rtol=1e-9, atol=1e-12), 'factors differ'\n"
            "x = linsolve.lu_solve((lu, piv), np.ones(150), trans=1)\n"
            "assert np.allclose(a.T @ x, 1, atol=1e-9)\n")
    subprocess.run([sys.executable, "-c", code], env=own, check=True)
