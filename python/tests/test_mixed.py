"""precision="mixed" on NumPy arrays: single-precision LU refined to a
double-precision answer by the planner's "mixed" path (ls_dsgesv)."""
import numpy as np
import pytest

import linsolve
from conftest import scaled_residual, well_conditioned


def test_one_system(rng):
    a = well_conditioned(rng, 60, 60)
    b = rng.standard_normal(60)
    x, rep = linsolve.solve_ex(a, b, precision="mixed")
    assert rep.path == "mixed" and x.dtype == np.float64
    assert scaled_residual(a, x, b) <= 30
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_stack_and_float32_input(rng):
    a = well_conditioned(rng, 5, 12, 12, dtype=np.float32)
    b = rng.standard_normal((5, 12, 2)).astype(np.float32)
    x, rep = linsolve.solve_ex(a, b, precision="mixed")
    assert rep.path == "mixed" and rep.batch == 5 and x.dtype == np.float64  # FP64 answer
    assert scaled_residual(a, x, b) <= 30


def test_ill_conditioned_still_double_accuracy(rng):
    """Far beyond single precision's reach the refinement falls back to FP64
    and the answer still meets the FP64 bar."""
    n = 40
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = u @ np.diag(np.logspace(0, -12, n)) @ v.T
    b = rng.standard_normal(n)
    x, rep = linsolve.solve_ex(a, b, precision="mixed")
    assert rep.path == "mixed"
    assert scaled_residual(a, x, b) <= 30


def test_singular_stack_names_the_system(rng):
    a = well_conditioned(rng, 4, 5, 5)
    a[2, :, 3] = 0.0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, rng.standard_normal((4, 5, 1)), precision="mixed")
    assert e.value.index == (2,)


def test_bad_precision_names_the_choices():
    with pytest.raises(ValueError, match="mixed"):
        linsolve.solve(np.eye(2), np.ones(2), precision="quad")


def test_mixed_on_opencl_says_it_ran_on_the_cpu(rng):
    """OpenCL has no mixed-precision kernels: ls_dsgesv runs on the CPU, and
    the report, which names the OpenCL device, says so in its reason."""
    if not linsolve.info().backend("opencl").available:
        pytest.skip("no OpenCL device")
    a = rng.standard_normal((40, 40)) + 8 * np.eye(40)
    b = rng.standard_normal(40)
    x, rep = linsolve.solve_ex(a, b, backend="opencl", precision="mixed")
    assert rep.path == "mixed" and "on the CPU" in rep.why and rep.residual <= 30
    np.testing.assert_allclose(a @ x, b, atol=1e-10)
