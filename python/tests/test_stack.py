"""Stacks of systems through the planner's one call: broadcasting, storage
orders, views, a singular system's index, empty stacks, n = 1, float32,
SciPy's keywords, and Ctrl-C between the chunks of a long stack."""
import signal
import time

import numpy as np
import pytest

import linsolve
from linsolve import _core
from conftest import scaled_residual, well_conditioned


def check(a, b, x, bar=30):
    expected = np.linalg.solve(a, b)
    assert x.shape == expected.shape
    assert scaled_residual(a, x, b) <= bar


@pytest.mark.parametrize("a_shape,b_shape", [
    ((5, 4, 4), (5, 4, 3)),        # one stack
    ((3, 1, 4, 4), (1, 5, 4, 2)),  # both broadcast
    ((4, 4), (6, 4, 2)),           # one A for every b: side by side
    ((1, 4, 4), (6, 4, 2)),        # the same through a batch of size 1
    ((6, 4, 4), (1, 4, 2)),        # one b for every A
    ((6, 4, 4), (6, 4)),           # a stack of vectors (NumPy 1.x rule)
])
def test_broadcasting(rng, a_shape, b_shape):
    a = well_conditioned(rng, *a_shape)
    b = rng.standard_normal(b_shape)
    if len(b_shape) == len(a_shape) - 1 and np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        b = b[..., None]
    check(a, b, linsolve.solve(a, b))


@pytest.mark.parametrize("order", ["C", "F-matrices", "F", "transposed-view"])
def test_storage_orders(rng, order):
    a = well_conditioned(rng, 7, 5, 5)
    b = rng.standard_normal((7, 5, 2))
    if order == "F-matrices":
        a = a.swapaxes(-1, -2).copy().swapaxes(-1, -2)
        b = b.swapaxes(-1, -2).copy().swapaxes(-1, -2)
    elif order == "F":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    elif order == "transposed-view":
        a = a.transpose(1, 2, 0).copy().transpose(2, 0, 1)
    x, rep = linsolve.solve_ex(a, b)
    check(a, b, x)
    assert rep.path == "batched" and rep.batch == 7


def test_views_and_the_inputs_untouched(rng):
    big = well_conditioned(rng, 12, 9, 9)
    a = big[::2, ::-1, :][:, :6, :6][..., ::-1]   # negative and skipping strides
    a = a + 6 * np.eye(6)
    base = rng.standard_normal((6, 6, 8))
    b = base[:, :, ::4]
    a_before, b_before = a.copy(), b.copy()
    check(a, b, linsolve.solve(a, b))
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)


def test_read_only_and_zero_strides(rng):
    a = well_conditioned(rng, 3, 3)
    b = np.broadcast_to(rng.standard_normal((3, 1)), (4, 3, 1))
    a_ro = np.broadcast_to(a, (4, 3, 3))
    check(a_ro, b, linsolve.solve(a_ro, b, overwrite_a=True, overwrite_b=True))


def test_singular_system_in_the_middle(rng):
    a = well_conditioned(rng, 2, 5, 4, 4)
    a[1, 2] = 0.0
    a[1, 2, 0, 0] = 1.0  # rank 1: column 1 has no pivot
    b = rng.standard_normal((2, 5, 4, 1))  # a stack of vectors by every NumPy's rule
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, b)
    assert e.value.index == (1, 2)
    assert "(1, 2)" in str(e.value)
    assert isinstance(e.value, np.linalg.LinAlgError)


@pytest.mark.parametrize("a_shape,b_shape,x_shape", [
    ((0, 4, 4), (0, 4, 2), (0, 4, 2)),
    ((3, 0, 0), (3, 0, 2), (3, 0, 2)),
    ((3, 2, 2), (3, 2, 0), (3, 2, 0)),
    ((0, 3, 3), (0, 3, 1), (0, 3, 1)),
    ((0, 3, 3), (3,), (0, 3)),
])
def test_empty(a_shape, b_shape, x_shape):
    x, rep = linsolve.solve_ex(np.ones(a_shape), np.ones(b_shape))
    assert x.shape == x_shape and rep.ok


def test_order_one(rng):
    a = rng.uniform(1, 2, (9, 1, 1))
    b = rng.standard_normal((9, 1, 3))
    np.testing.assert_allclose(linsolve.solve(a, b), b / a, rtol=1e-15)
    np.testing.assert_allclose(linsolve.solve(a[0], b[0]), b[0] / a[0], rtol=1e-15)


def test_float32_stays_float32(rng):
    a = well_conditioned(rng, 50, 6, 6, dtype=np.float32)
    b = rng.standard_normal((50, 6, 2)).astype(np.float32)
    x, rep = linsolve.solve_ex(a, b)
    assert x.dtype == np.float32 and rep.precision == "single" and rep.path == "batched"
    r = b.astype(np.float64) - a.astype(np.float64) @ x.astype(np.float64)
    assert np.abs(r).max() < 1e-4


def test_scipy_keywords(rng):
    a = well_conditioned(rng, 5, 5)
    b = rng.standard_normal((5, 2))
    np.testing.assert_allclose(linsolve.solve(a, b, transposed=True), np.linalg.solve(a.T, b),
                               rtol=1e-10)
    stack = well_conditioned(rng, 4, 5, 5)
    np.testing.assert_allclose(linsolve.solve(stack, b[None], transposed=True),
                               np.linalg.solve(stack.swapaxes(-1, -2), b[None]), rtol=1e-10)
    # 'sym' reads one triangle (SciPy's meaning), here of a matrix that is not symmetric
    for lower in (False, True):
        tri = np.tril(a) if lower else np.triu(a)
        sym = tri + tri.T - np.diag(np.diag(a))
        x, rep = linsolve.solve_ex(a, b, assume_a="sym", lower=lower)
        np.testing.assert_allclose(x, np.linalg.solve(sym, b), rtol=1e-10)
        assert "general LU" in rep.why
    spd = a @ a.T + np.eye(5)
    np.testing.assert_allclose(linsolve.solve(spd, b, assume_a="pos"), np.linalg.solve(spd, b),
                               rtol=1e-10)
    with pytest.raises(ValueError):
        linsolve.solve(a, b, assume_a="banana")
    a_copy, b_copy = a.copy(order="F"), b.copy(order="F")
    x = linsolve.solve(a_copy, b_copy, overwrite_a=True, overwrite_b=True)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    assert x is b_copy  # b's storage was X's


def test_check_finite(rng):
    a = well_conditioned(rng, 6, 3, 3)
    b = rng.standard_normal((6, 3, 1))
    a[4, 1, 2] = np.nan
    with pytest.raises(linsolve.NonFiniteError) as e:
        linsolve.solve(a, b)
    assert e.value.index == (4,) and isinstance(e.value, ValueError)
    x = linsolve.solve(a, b, check_finite=False, check=False)  # no scan: NaN comes out
    assert np.isnan(x[4]).any() and np.isfinite(x[:4]).all()


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_subclass_kept(rng):
    class Sub(np.ndarray):
        pass
    a = well_conditioned(rng, 3, 3, 3)
    b = rng.standard_normal((3, 3, 2)).view(Sub)
    assert type(linsolve.solve(a, b)) is Sub
    assert type(linsolve.solve(np.asmatrix(a[0]), np.asmatrix(b[0]))) is np.ndarray


def test_ctrl_c_stops_a_long_stack(rng):
    """Between chunks the GIL is taken back and the signal handlers run: the
    KeyboardInterrupt comes long before the whole stack would be solved
    (without the chunks it would come only after the call returned)."""
    a = well_conditioned(rng, 100000, 8, 8)
    b = rng.standard_normal((100000, 8, 1))
    old = _core._stack_chunk(64)
    fired = []

    def handler(signum, frame):
        fired.append(time.perf_counter())
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        t0 = time.perf_counter()
        linsolve.solve(a, b, check=False)
        whole = time.perf_counter() - t0
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, 0.002)
        with pytest.raises(KeyboardInterrupt):
            linsolve.solve(a, b, check=False)
        stopped = time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _core._stack_chunk(old)
    assert fired and stopped < 0.5 * whole, (stopped, whole)
    check(a[:50], b[:50], linsolve.solve(a[:50], b[:50]))  # the context was released


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_opencl_stack_is_one_batched_call(rng, dtype):
    """On OpenCL a stack is the batched path too (one launch for all the
    systems), not a loop of single solves; C and Fortran order, a singular
    system named by its index."""
    if not linsolve.info().backend("opencl").available:
        pytest.skip("no OpenCL device")
    a = well_conditioned(rng, 40, 6, 6, dtype=dtype)
    b = rng.standard_normal((40, 6, 2)).astype(dtype)
    for a_in in (a, np.asfortranarray(a)):
        x, rep = linsolve.solve_ex(a_in, b, backend="opencl")
        assert rep.path == "batched" and rep.batch == 40 and x.dtype == dtype
        assert rep.residual <= 30
        if dtype == np.float64:
            check(a, b, x)
    a[7] = 0.0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, b, backend="opencl")
    assert e.value.index == (7,)


def test_opencl_large_orders_go_system_by_system(rng):
    """Above the OpenCL batched kernels' n = 384 auto solves a stack with
    the single-system LU, faster there; naming "batched" still takes them."""
    if not linsolve.info().backend("opencl").available:
        pytest.skip("no OpenCL device")
    a = well_conditioned(rng, 2, 385, 385)
    b = rng.standard_normal((2, 385, 1))
    for method, path in (("auto", "stack-loop"), ("batched", "batched")):
        x, rep = linsolve.solve_ex(a, b, backend="opencl", method=method)
        assert rep.path == path and rep.residual <= 30
        check(a, b, x)
