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


def test_torch_mixed_precision():
    torch = _torch()
    g = torch.Generator(device="cuda").manual_seed(4)
    n = 512
    a = torch.rand((n, n), device="cuda", dtype=torch.float64, generator=g) * 2 - 1
    b = torch.rand((n, 1), device="cuda", dtype=torch.float64, generator=g)
    x, rep = linsolve.solve_ex(a, b, precision="mixed")
    assert x.dtype == torch.float64 and "mixed" in rep.note and rep.residual <= 30
    assert torch.allclose(x, torch.linalg.solve(a, b), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("where", ["a", "b"])
def test_torch_non_finite_refused(where):
    torch = _torch()
    a = torch.eye(16, device="cuda", dtype=torch.float64) * 3
    b = torch.ones((4, 16), device="cuda", dtype=torch.float64).T.contiguous()
    (a if where == "a" else b)[5, 2] = float("nan")
    with pytest.raises(linsolve.NonFiniteError) as e:
        linsolve.solve(a, b)
    assert isinstance(e.value, ValueError)
    x = linsolve.solve(a, b, check_finite=False, check=False)  # skipped: NaN in, NaN out
    assert torch.isnan(x).any()


def test_cupy_non_finite_refused():
    cupy = _cupy()
    a = cupy.eye(8) * 2
    a[3, 3] = cupy.inf
    with pytest.raises(linsolve.NonFiniteError):
        linsolve.solve(a, cupy.ones(8))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_torch_report_has_device_times(dtype):
    torch = _torch()
    dt = getattr(torch, dtype)
    a = torch.rand((1024, 1024), device="cuda", dtype=dt) + 1024 * torch.eye(
        1024, device="cuda", dtype=dt)
    _, rep = linsolve.solve_ex(a, torch.rand(1024, device="cuda", dtype=dt))
    assert rep.t_factor + rep.t_solve > 0 and rep.gflops > 0 and rep.flops > 0
    assert rep.t_total >= rep.t_factor + rep.t_solve
    assert rep.gflops < 1e6  # a real rate, not a division by a near-zero host time


def test_cupyx_sparse_solved_sparse():
    cupy = _cupy()
    sp = pytest.importorskip("cupyx.scipy.sparse")
    n = 2000
    main = cupy.full(n, 4.0)
    off = cupy.full(n - 1, -1.0)
    a = sp.diags([off, main, off], [-1, 0, 1], format="csr")
    b = cupy.arange(n, dtype=cupy.float64) / n
    for fmt in ("csr", "csc", "coo"):
        x, rep = linsolve.solve_ex(a.asformat(fmt), b)
        assert isinstance(x, cupy.ndarray) and x.shape == (n,)
        assert rep.backend == "cuda" and "sparse" in rep.note
        cupy.testing.assert_allclose(a @ x, b, rtol=1e-10, atol=1e-12)
    x2 = linsolve.solve(a, cupy.stack([b, 2 * b], axis=1))
    cupy.testing.assert_allclose(x2[:, 1], 2 * x, rtol=1e-10, atol=1e-12)
    with pytest.raises(linsolve.ShapeError):
        linsolve.solve(sp.csr_matrix(cupy.ones((3, 4))), cupy.ones(3))
    singular = sp.csr_matrix(cupy.array([[1.0, 2.0], [2.0, 4.0]]))
    # without cuDSS the Krylov path's ILU(0) meets the zero pivot first and
    # refuses the preconditioner (an invalid argument naming the pivot)
    with pytest.raises((linsolve.SingularMatrixError, linsolve.ConvergenceError,
                        linsolve.InaccurateError, linsolve.InvalidArgumentError),
                       match="(?i)singular|pivot|converge|residual"):
        linsolve.solve(singular, cupy.ones(2), check="raise")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [1, 7, 64, 300])
def test_torch_single_queued_solve(dtype, n):
    """One system on the queue-only path: the caller's C-order A untouched,
    the answer right, the device time measured, and a zero pivot still
    found through the device info with every check off."""
    torch = _torch()
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.rand((n, n), device="cuda", dtype=dt, generator=g) * 2 - 1 + \
        n / 2 * torch.eye(n, device="cuda", dtype=dt)  # conditioned for comparing with torch
    b = torch.rand((n, 2), device="cuda", dtype=dt, generator=g)
    keep = a.clone()
    x, rep = linsolve.solve_ex(a, b)
    assert torch.equal(a, keep) and x.dtype == dt and x.shape == (n, 2)
    tol = 1e-3 if dtype == "float32" else 1e-9
    assert torch.allclose(x, torch.linalg.solve(a, b), rtol=tol, atol=tol)
    assert rep.residual <= 30 and rep.t_factor > 0 and "queued" not in rep.message
    x1 = linsolve.solve(a, b[:, 0], check=False, check_finite=False)
    assert torch.allclose(x1, x[:, 0], rtol=tol, atol=tol)
    a[:, n // 2] = 0
    for kw in ({}, {"check": False, "check_finite": False}):
        with pytest.raises(linsolve.SingularMatrixError) as e:
            linsolve.solve(a, b, **kw)
        assert e.value.column == n // 2 and e.value.index is None


def test_torch_stack_singular_with_checks_off():
    torch = _torch()
    a = torch.eye(6, device="cuda", dtype=torch.float32).repeat(1000, 1, 1)
    a[618, :, 2] = 0
    a[900, :, 1] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, torch.ones((1000, 6), device="cuda", dtype=torch.float32),
                       check=False, check_finite=False)
    assert e.value.index == (618,) and e.value.column == 2


@pytest.mark.parametrize("dtype,n", [("float64", 130), ("float32", 260)])
def test_torch_c_order_stack_needs_pivots(dtype, n):
    """A C-order stack of the order the GPU factors as it lies (A^T's LU and
    a transposed solve, where the factor kernel would not solve in its own
    pass): random matrices that need interchanges, answers as torch's and
    the caller's A untouched; a singular system found, with its index."""
    torch = _torch()
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.rand((5, n, n), device="cuda", dtype=dt, generator=g) * 2 - 1
    b = torch.rand((5, n, 3), device="cuda", dtype=dt, generator=g)
    keep = a.clone()
    x, rep = linsolve.solve_ex(a, b)
    assert torch.equal(a, keep) and x.shape == (5, n, 3) and rep.residual <= 30
    r = torch.linalg.matrix_norm(b - a @ x, ord=float("inf"))
    scale = n * torch.linalg.matrix_norm(a, ord=float("inf")) * x.abs().amax(dim=(1, 2))
    assert bool((r / (scale * torch.finfo(dt).eps) <= 30).all())
    a[3, :, n // 3] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, b, check=False, check_finite=False)
    assert e.value.index == (3,) and 0 <= e.value.column < n


def test_cupy_single_queued_singular():
    cupy = _cupy()
    a = cupy.eye(9)
    x = linsolve.solve(a, cupy.arange(9.0))
    cupy.testing.assert_allclose(x, cupy.arange(9.0))
    a[:, 5] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a, cupy.ones(9), check=False, check_finite=False)
    assert e.value.column == 5
