"""CUDA arrays (PyTorch, CuPy) solved on their device. Skipped without a GPU
or without torch / cupy in this Python."""
import numpy as np
import pytest

import linsolve


def _cuda_ready():
    i = linsolve.info()
    return i.backend("cuda").available and i.device_api is None


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not _cuda_ready():
        pytest.skip("no CUDA device (or no device API in liblinsolve)")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no CUDA device for CuPy")
    if not _cuda_ready():
        pytest.skip("no CUDA device (or no device API in liblinsolve)")
    return cupy


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_torch_solve_on_device(dtype):
    torch = _torch()
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.rand((3, 200, 200), device="cuda", dtype=dt, generator=g) + \
        20 * torch.eye(200, device="cuda", dtype=dt)
    b = torch.rand((3, 200, 4), device="cuda", dtype=dt, generator=g)
    x, rep = linsolve.solve_ex(a, b)
    assert isinstance(x, torch.Tensor) and x.is_cuda and x.dtype == dt
    assert x.device == a.device and rep.backend == "cuda" and rep.batch == 3
    want = torch.linalg.solve(a, b)
    tol = 1e-3 if dtype == "float32" else 1e-10
    assert torch.allclose(x, want, rtol=tol, atol=tol)
    assert rep.residual <= 30


def test_torch_vector_rhs_and_lu():
    torch = _torch()
    a = torch.rand((64, 64), device="cuda", dtype=torch.float64) + 8 * torch.eye(
        64, device="cuda", dtype=torch.float64)
    b = torch.rand(64, device="cuda", dtype=torch.float64)
    x = linsolve.solve(a, b)
    assert x.shape == (64,) and x.is_cuda
    f = linsolve.lu_factor(a)
    assert f.lu.is_cuda and f.piv.is_cuda and f.backend == "cuda"
    for trans, op in ((0, a), (1, a.T)):
        y = linsolve.lu_solve(f, b, trans=trans)
        assert torch.allclose(y, torch.linalg.solve(op, b), rtol=1e-10, atol=1e-12)
    # the same pivots as LAPACK on the host
    lu_h, piv_h = linsolve.lu_factor(a.cpu().numpy(), backend="cpu")
    np.testing.assert_array_equal(f.piv.cpu().numpy(), piv_h)


def test_torch_singular_raises():
    torch = _torch()
    a = torch.eye(4, device="cuda", dtype=torch.float64)
    a[:, 2] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, torch.ones(4, device="cuda", dtype=torch.float64))
    assert e.value.column == 2


def test_torch_on_a_side_stream():
    torch = _torch()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a = torch.rand((128, 128), device="cuda", dtype=torch.float64) + 10 * torch.eye(
            128, device="cuda", dtype=torch.float64)
        b = torch.rand((128, 3), device="cuda", dtype=torch.float64)
        x = linsolve.solve(a, b)
        want = torch.linalg.solve(a, b)
    s.synchronize()
    assert torch.allclose(x, want, rtol=1e-10, atol=1e-12)


def test_cupy_solve_on_device():
    cupy = _cupy()
    rs = cupy.random.RandomState(2)
    a = rs.rand(150, 150) + 15 * cupy.eye(150)
    b = rs.rand(150, 2)
    x = linsolve.solve(a, b)
    assert isinstance(x, cupy.ndarray)
    cupy.testing.assert_allclose(x, cupy.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_mixed_host_and_device_refused():
    torch = _torch()
    a = torch.eye(3, device="cuda", dtype=torch.float64)
    with pytest.raises(TypeError, match="host memory"):
        linsolve.solve(a, np.ones(3))
