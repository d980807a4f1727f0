"""Parity on NumPy arrays: each capability takes the planner's path for it
(read from the report) and gets NumPy's / SciPy's answer within rounding;
and NumPy's own solve tests pass with linsolve.solve put in place of
numpy.linalg.solve (real cases; complex ones must raise TypeError)."""
import numpy as np
import pytest

import linsolve
from conftest import scaled_residual, sparse_direct_available, well_conditioned

tl = pytest.importorskip("numpy.linalg.tests.test_linalg")


@pytest.mark.parametrize("capability,path", [
    ("single", "dense"), ("stack", "batched"), ("mixed", "mixed"), ("sparse", "sparse-direct"),
])
def test_path_and_answer(rng, capability, path):
    n, rtol = 24, 1e-9
    if capability == "sparse":
        sp = pytest.importorskip("scipy.sparse")
        spla = pytest.importorskip("scipy.sparse.linalg")
        a = (sp.random(n, n, density=0.2, random_state=np.random.RandomState(1)) +
             sp.eye(n) * 3).tocsr()
        b = rng.standard_normal(n)
        x, rep = linsolve.solve_ex(a, b)
        expected = spla.spsolve(a.tocsc(), b)
        if not sparse_direct_available():  # auto goes to a Krylov method, to its tolerance
            path, rtol = "sparse-krylov", 1e-6
    else:
        a = well_conditioned(rng, *((9, n, n) if capability == "stack" else (n, n)))
        b = rng.standard_normal(a.shape[:-1] + (2,))
        x, rep = linsolve.solve_ex(a, b, precision="mixed" if capability == "mixed" else None)
        expected = np.linalg.solve(a, b)
        assert scaled_residual(a, x, b) <= 30
    assert rep.path == path, rep.why
    assert rep.why and rep.ok
    np.testing.assert_allclose(x, expected, rtol=rtol, atol=rtol * 1e-3)


def _real(case):
    return all(not np.iscomplexobj(np.asarray(v)) for v in (case.a, case.b) if v is not None)


@pytest.fixture
def numpy_solve_is_linsolve(monkeypatch):
    monkeypatch.setattr(np.linalg, "solve", linsolve.solve)
    assert tl.linalg.solve is linsolve.solve


class TestNumpySolveSuite(tl.TestSolve):
    """numpy/linalg/tests/test_linalg.py's TestSolve on the real cases."""
    TEST_CASES = [c for c in tl.CASES if _real(c)]

    @pytest.fixture(autouse=True)
    def _patched(self, numpy_solve_is_linsolve):
        yield

    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_types(self, dtype):
        super().test_types(dtype)


def test_the_suite_was_substituted_and_has_cases():
    assert len(TestNumpySolveSuite.TEST_CASES) > 100
    assert any(not _real(c) for c in tl.CASES)


@pytest.mark.parametrize("case", [c for c in tl.CASES if not _real(c)][:24],
                         ids=lambda c: c.name)
def test_complex_cases_raise_type_error(case):
    if case.b is None:
        pytest.skip("not a solve case")
    with pytest.raises(TypeError):
        linsolve.solve(case.a, case.b)
