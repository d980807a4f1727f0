"""linsolve.solve against numpy.linalg.solve: values, dtypes, layouts, stacks."""
import numpy as np
import pytest

import linsolve
from conftest import scaled_residual, well_conditioned

@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 150])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_matches_numpy(rng, n, dtype):
    a = rng.uniform(-1, 1, (n, n)).astype(dtype) + np.eye(n, dtype=dtype)
    b = rng.uniform(-1, 1, n).astype(dtype)
    x = linsolve.solve(a, b)
    assert x.dtype == dtype and x.shape == (n,)
    if n:
        # The scaled residual in the working precision; then the forward
        # error against FP64's answer within what cond(a) allows. A fixed
        # tolerance against NumPy's answer fails a correct FP32 solve whose
        # rounding differs from LAPACK's (a GPU's does).
        a64, b64, x64 = a.astype(np.float64), b.astype(np.float64), x.astype(np.float64)
        eps = np.finfo(dtype).eps
        r = np.abs(b64 - a64 @ x64).max()
        den = n * np.abs(a64).sum(1).max() * np.abs(x64).max() * eps
        assert r <= 30 * den
        ref = np.linalg.solve(a64, b64)
        err = np.abs(x64 - ref).max() / np.abs(ref).max()
        assert err <= 4 * n * np.linalg.cond(a64, np.inf) * eps


@pytest.mark.parametrize("k", [1, 3])
def test_many_rhs(rng, k):
    a = well_conditioned(rng, 20, 20)
    b = rng.uniform(-1, 1, (20, k))
    x = linsolve.solve(a, b)
    assert x.shape == (20, k)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_needs_pivoting(rng):
    a = rng.uniform(-1, 1, (30, 30))
    np.fill_diagonal(a, 0.0)  # without row interchanges the first pivot is zero
    b = rng.uniform(-1, 1, 30)
    x = linsolve.solve(a, b)
    assert scaled_residual(a, x, b) < 30
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-8, atol=1e-10)


def test_ill_conditioned_hilbert():
    n = 10  # cond ~ 1e13: accurate residual, inaccurate solution, as numpy's
    i = np.arange(n)
    a = 1.0 / (i[:, None] + i[None, :] + 1)
    b = a @ np.ones(n)
    x, rep = linsolve.solve_ex(a, b)
    assert rep.residual <= 30
    assert scaled_residual(a, x, b) < 30
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-3)


@pytest.mark.parametrize("method", ["lu", "ge", "gj1", "gj2", "lapack"])
def test_methods(rng, method):
    a = well_conditioned(rng, 40, 40)
    b = rng.uniform(-1, 1, (40, 2))
    x, rep = linsolve.solve_ex(a, b, method=method, backend="cpu")
    assert rep.method == method and rep.backend == "cpu"
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-9, atol=1e-11)


def test_bicgstab_diagonally_dominant(rng):
    a = rng.uniform(-1, 1, (50, 50)) + 60 * np.eye(50)
    b = rng.uniform(-1, 1, 50)
    x, rep = linsolve.solve_ex(a, b, method="bicgstab", backend="cpu")
    assert rep.iterations > 0 and rep.history
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("a_dt,b_dt,want", [
    (np.float32, np.float32, np.float32), (np.float64, np.float64, np.float64),
    (np.float32, np.float64, np.float64), (np.int64, np.int64, np.float64),
    (np.int32, np.float32, np.float64), (np.bool_, np.float32, np.float64),
])
def test_dtype_rules_follow_numpy(a_dt, b_dt, want):
    a = np.array([[4, 1], [2, 3]]).astype(a_dt) if a_dt != np.bool_ else np.eye(2, dtype=bool)
    b = np.array([1, 2]).astype(b_dt)
    x = linsolve.solve(a, b)
    assert x.dtype == want == np.linalg.solve(a, b).dtype
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-6)


def test_precision_override(rng):
    a = well_conditioned(rng, 30, 30)
    b = rng.uniform(-1, 1, 30)
    x, rep = linsolve.solve_ex(a, b, precision="single")
    assert x.dtype == np.float64 and rep.precision == "single"
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="precision"):
        linsolve.solve(a, b, precision="half")


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_refused(dtype):
    with pytest.raises(TypeError, match="complex"):
        linsolve.solve(np.eye(2, dtype=dtype), np.ones(2))


@pytest.mark.parametrize("dtype", [np.float16, object])
def test_other_dtypes_refused(dtype):
    with pytest.raises(TypeError, match="unsupported"):
        linsolve.solve(np.eye(2).astype(dtype), np.ones(2))


def test_memory_orders_and_views(rng):
    base = well_conditioned(rng, 24, 24)
    b = rng.uniform(-1, 1, (24, 3))
    want = np.linalg.solve(base, b)
    big = np.zeros((48, 72))
    big[::2, ::3] = base
    views = [np.ascontiguousarray(base), np.asfortranarray(base), big[::2, ::3],
             base[::-1, ::-1][::-1, ::-1], base.astype(">f8")]
    for a in views:
        np.testing.assert_allclose(linsolve.solve(a, b), want, rtol=1e-10, atol=1e-12)
    bv = np.zeros((24, 9))
    bv[:, ::3] = b
    np.testing.assert_allclose(linsolve.solve(base, bv[:, ::3]), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(linsolve.solve(base, b[::-1][::-1]), want, rtol=1e-10)


def test_inputs_not_modified(rng):
    a = well_conditioned(rng, 10, 10)
    b = rng.uniform(-1, 1, 10)
    a0, b0 = a.copy(), b.copy()
    linsolve.solve(np.asfortranarray(a), b)
    linsolve.solve(a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_stack(rng):
    a = well_conditioned(rng, 5, 3, 12, 12)
    b = rng.uniform(-1, 1, (5, 3, 12, 2))
    x = linsolve.solve(a, b)
    assert x.shape == (5, 3, 12, 2)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((4, 6, 6), (1, 6, 2)),       # one b for every a
    ((6, 6), (4, 6, 2)),          # one a for every b: one solve with 8 columns
    ((3, 1, 6, 6), (1, 5, 6, 1)),  # both broadcast
    ((2, 6, 6), (6,)),            # a 1-D b is a vector (NumPy 2's rule; 1.x refuses it)
    ((2, 6, 6), (2, 6)),          # NumPy 1.x: a stack of vectors; 2.x: one (2, 6) matrix
])
def test_broadcasting_like_numpy(rng, a_shape, b_shape):
    a = well_conditioned(rng, *a_shape)
    b = rng.uniform(-1, 1, b_shape)
    if b.ndim == 1:  # one vector for every system (NumPy 1 refuses it with a stack)
        want = np.linalg.solve(a, np.broadcast_to(b, a.shape[:-1])[..., None])[..., 0]
    else:
        try:  # b as the installed NumPy reads it (1.x and 2.x differ on (..., n))
            want = np.linalg.solve(a, b)
        except ValueError:
            with pytest.raises(ValueError):
                linsolve.solve(a, b)
            return
    x = linsolve.solve(a, b)
    assert x.shape == want.shape
    np.testing.assert_allclose(x, want, rtol=1e-9, atol=1e-11)


def test_empty_stack_and_zero_rhs():
    # (0, 3, 1): a stack of no systems under NumPy 1.x and 2.x rules alike
    assert linsolve.solve(np.zeros((0, 3, 3)), np.zeros((0, 3, 1))).shape == \
        np.linalg.solve(np.zeros((0, 3, 3)), np.zeros((0, 3, 1))).shape
    assert linsolve.solve(np.eye(3), np.zeros((3, 0))).shape == (3, 0)
    assert linsolve.solve(np.zeros((0, 0)), np.zeros(0)).shape == (0,)


def test_lists_and_scalars_of_python():
    x = linsolve.solve([[2, 0], [0, 4]], [2, 4])
    np.testing.assert_allclose(x, [1, 1])
    assert x.dtype == np.float64


def test_report(rng):
    a = well_conditioned(rng, 3, 16, 16)
    b = rng.uniform(-1, 1, (3, 16, 1))
    x, rep = linsolve.solve_ex(a, b, backend="cpu")
    assert rep.ok and rep.status_name == "LS_OK" and rep.batch == 3
    assert rep.n == 16 and rep.nrhs == 1 and rep.backend == "cpu" and rep.device
    assert 0 <= rep.residual <= 30 and rep.t_total > 0 and rep.flops > 0
    text = repr(rep)
    for word in ("residual", "GFLOP/s", "refinement", "cpu", "n=16", "batch=3"):
        assert word in text
    assert rep.as_dict()["method"] == rep.method


def test_refinement_counted():
    # Wilkinson's growth matrix: GEPP's answer is poor, refinement rescues it.
    n = 60
    a = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    a[:, -1] = 1
    b = a @ np.ones(n)
    x, rep = linsolve.solve_ex(a, b, method="lu", backend="cpu")
    assert rep.residual <= 30
    assert rep.refinement_steps >= 1 and "refinement" in rep.message
    with pytest.warns(linsolve.InaccurateWarning):
        linsolve.solve(a, b, method="lu", backend="cpu", refine=False)
    with pytest.raises(linsolve.InaccurateError):
        linsolve.solve(a, b, method="lu", backend="cpu", refine=False, check="raise")
    x = linsolve.solve(a, b, method="lu", backend="cpu", check=False)
    assert x.shape == (n,)


def test_torch_cpu_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    a = torch.tensor([[3.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
    x = linsolve.solve(a, torch.tensor([9.0, 8.0], dtype=torch.float64))
    assert isinstance(x, torch.Tensor)
    assert torch.allclose(x, torch.tensor([2.0, 3.0], dtype=torch.float64))
