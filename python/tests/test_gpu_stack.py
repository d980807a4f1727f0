"""Stacks of CUDA arrays: one batched solve through the planner. Skipped
without a GPU or without torch / cupy in this Python."""
import pytest

import linsolve
from test_gpu import _cupy, _torch


def _rand(torch, shape, dt, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(shape, device="cuda", dtype=dt, generator=g) * 2 - 1


def _system(torch, batch, n, k, dt, seed=1):
    a = _rand(torch, batch + (n, n), dt, seed) + n * torch.eye(n, device="cuda", dtype=dt)
    return a, _rand(torch, batch + (n, k), dt, seed + 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_torch_stack_one_batched_call(dtype, order):
    torch = _torch()
    dt = getattr(torch, dtype)
    a, b = _system(torch, (300,), 8, 2, dt)
    if order == "F":
        a = a.mT.contiguous().mT  # each matrix column-major
    keep = a.clone()
    x, rep = linsolve.solve_ex(a, b)
    assert x.is_cuda and x.dtype == dt and x.shape == b.shape
    tol = 1e-3 if dtype == "float32" else 1e-10
    assert torch.allclose(x, torch.linalg.solve(a, b), rtol=tol, atol=tol)
    assert torch.equal(a, keep)  # the caller's array is not touched
    assert rep.batch == 300 and "batched" in rep.note and rep.residual <= 30
    assert rep.t_factor > 0 and rep.gflops > 0


def test_torch_stack_broadcast_views_and_vectors():
    torch = _torch()
    a, _ = _system(torch, (3, 1), 16, 1, torch.float64)
    b = _rand(torch, (1, 2, 16, 3), torch.float64, 5)
    x = linsolve.solve(a, b)
    assert x.shape == (3, 2, 16, 3)
    assert torch.allclose(x, torch.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    big, bb = _system(torch, (10,), 12, 2, torch.float64, 7)
    va, vb = big[::3], bb[::3]  # strided views
    assert torch.allclose(linsolve.solve(va, vb), torch.linalg.solve(va, vb), rtol=1e-10,
                          atol=1e-12)
    vec = _rand(torch, (12,), torch.float64, 9)  # one b for every system
    x = linsolve.solve(big, vec)
    assert x.shape == (10, 12)
    assert torch.allclose(x, torch.linalg.solve(big, vec), rtol=1e-10, atol=1e-12)


def test_torch_stack_singular_in_the_middle():
    torch = _torch()
    a, b = _system(torch, (4, 5), 6, 1, torch.float64)
    a[2, 3, :, 4] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, b)
    assert e.value.index == (2, 3) and e.value.column == 4


def test_torch_stack_empty_and_order_one():
    torch = _torch()
    x = linsolve.solve(torch.zeros((0, 4, 4), device="cuda", dtype=torch.float64),
                       torch.zeros((0, 4, 1), device="cuda", dtype=torch.float64))
    assert x.shape == (0, 4, 1) and x.is_cuda
    a = torch.full((7, 1, 1), 4.0, device="cuda", dtype=torch.float32)
    x = linsolve.solve(a, torch.full((7, 1, 1), 2.0, device="cuda", dtype=torch.float32))
    assert torch.equal(x, torch.full((7, 1, 1), 0.5, device="cuda", dtype=torch.float32))


def test_torch_stack_on_a_side_stream():
    torch = _torch()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a, b = _system(torch, (64,), 32, 1, torch.float64, 11)
        x = linsolve.solve(a, b)
        want = torch.linalg.solve(a, b)
    s.synchronize()
    assert torch.allclose(x, want, rtol=1e-10, atol=1e-12)


def test_cupy_stack():
    cupy = _cupy()
    rs = cupy.random.RandomState(3)
    a = rs.uniform(-1, 1, (50, 10, 10)) + 10 * cupy.eye(10)
    b = rs.uniform(-1, 1, (50, 10, 2))
    x, rep = linsolve.solve_ex(a, b)
    assert isinstance(x, cupy.ndarray) and rep.batch == 50 and "batched" in rep.note
    cupy.testing.assert_allclose(x, cupy.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    a[17, :, 3] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, b)
    assert e.value.index == (17,) and e.value.column == 3


def _host_residual(a, b, x, dtype):
    """ls_scaled_residual's measure on the host, worst over the systems:
    ||b - a x||inf / (n ||a||inf ||x||inf eps), eps LAPACK's unit roundoff."""
    import numpy as np
    a, b, x = (t.double().cpu().numpy() for t in (a, b, x))
    n = a.shape[-1]
    eps = float(np.finfo(np.float32 if dtype == "float32" else np.float64).eps) / 2
    rn = np.abs(b - a @ x).sum(-1).max(-1)
    an, xn = np.abs(a).sum(-1).max(-1), np.abs(x).sum(-1).max(-1)
    return float(np.max(rn / (n * an * xn * eps)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [((), 64, 1), ((), 300, 3), ((500,), 8, 1), ((40,), 48, 5),
                                   ((7,), 33, 2)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_torch_residual_is_the_host_measure(dtype, shape, order):
    """The fused device check reports the residual the host computes from
    the same a, b and x (FP64: within the rounding of two sums; FP32: the
    device sums in FP64 as the host does)."""
    torch = _torch()
    dt = getattr(torch, dtype)
    batch, n, k = shape
    a, b = _system(torch, batch, n, k, dt, 21)
    if order == "F":
        a = a.mT.contiguous().mT
    x, rep = linsolve.solve_ex(a, b)
    want = _host_residual(a, b, x, dtype)
    tol = 3.0 if dtype == "float64" else 1e-6 + 1e-9 * want
    assert abs(rep.residual - want) <= tol, (rep.residual, want)


def test_torch_non_finite_names_the_system():
    """NaN or Inf in a or b of a stack (the caller's arrays, read where they
    are: a view, a broadcast b) is refused before anything else, with the
    first such system's index; check_finite=False lets it through."""
    torch = _torch()
    a, b = _system(torch, (6, 5), 9, 1, torch.float64, 31)
    a[4, 1, 2, 2] = float("nan")
    a[5, 0, 0, 0] = float("inf")
    with pytest.raises(linsolve.NonFiniteError) as e:
        linsolve.solve(a, b)
    assert e.value.index == (4, 1)
    big, bb = _system(torch, (12,), 9, 2, torch.float32, 33)
    bb[7, 3, 1] = float("inf")
    with pytest.raises(linsolve.NonFiniteError) as e:
        linsolve.solve(big[1::2], bb[1::2])  # system 3 of the view
    assert e.value.index == (3,)
    vec = _rand(torch, (9,), torch.float32, 35)
    vec[4] = float("nan")  # one b for every system: the first is named
    with pytest.raises(linsolve.NonFiniteError) as e:
        linsolve.solve(big, vec, check=False)
    assert e.value.index == (0,)
    with pytest.warns(linsolve.InaccurateWarning):
        linsolve.solve(big, vec, check_finite=False)
