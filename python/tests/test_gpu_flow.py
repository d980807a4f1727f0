"""The device path's plumbing without a GPU: a NumPy-backed stand-in for
the array library, and a stand-in for the device API that reads the
pointers it is given as LAPACK's column-major storage. It checks what the
real run depends on: layouts, leading dimensions, batch strides, pivots,
info, broadcasting and the result's shape; test_gpu.py checks the rest on
a GPU."""
import ctypes

import numpy as np
import pytest

import linsolve
from linsolve import _gpu


class DeviceArray:
    """A host array that says it lives on CUDA device 0."""

    def __init__(self, a):
        self.a = np.asarray(a)
        self.shape, self.dtype = self.a.shape, self.a.dtype

    def __dlpack_device__(self):
        return (2, 0)


def host(x):
    assert isinstance(x, DeviceArray)
    return x.a


class FakeLibrary:
    """The adapter interface of _gpu._Torch / _gpu._Cupy, on NumPy."""

    name = "fake"

    def take(self, x):
        return x.a

    def device(self, x):
        return 0

    def dtype(self, x):
        return x.dtype

    def colmajor(self, x, batch, rows, cols, dt, dev):
        out = np.empty(batch + (cols, rows), dt).swapaxes(-1, -2)
        out[...] = x
        return out

    def ints(self, shape, dev):
        return np.zeros(shape, np.int32)

    def ptr(self, x):
        return x.__array_interface__["data"][0]

    def stream(self, dev):
        return 0

    def host(self, x):
        return np.asarray(x)

    def cast(self, x, dt):
        return x.astype(dt)

    def unsqueeze(self, x):
        return x[..., None]

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = np.broadcast_to(piv.astype(np.int32) + 1, batch + (n,))
        return np.ascontiguousarray(p.reshape(max(count, 1), n))

    def diag_zero(self, lu):
        return (np.diagonal(lu, axis1=-2, axis2=-1) == 0).reshape(-1, lu.shape[-1])

    def residual(self, a, x, b, eps):
        n = a.shape[-1]
        r = b - a @ x
        return _gpu._scaled(np.abs(r).max((-2, -1)),
                            n * np.abs(a).sum(-1).max(-1) * np.abs(x).max((-2, -1)) * eps)


def _column_major(ptr, rows, cols, ld, ctype):
    buf = (ctype * (ld * cols)).from_address(ptr)
    return np.ctypeslib.as_array(buf).reshape(cols, ld).T[:rows]


def fake_device_run(op, fmt, dev, stream, n, nrhs, count, a, a_bs, lda, ipiv, b, b_bs, ldb,
                    info, trans):
    """getrf / getrs / gesv on 'device' pointers, by the host library."""
    ct, es = (ctypes.c_double, 8) if fmt == "d" else (ctypes.c_float, 4)
    assert stream == 0 and op in ("gesv", "getrf", "getrs") and trans in "NTC"
    for i in range(count):
        A = _column_major(a + i * a_bs * es, n, n, lda, ct)
        P = np.ctypeslib.as_array((ctypes.c_int * n).from_address(ipiv + i * n * 4))
        I = np.ctypeslib.as_array((ctypes.c_int * 1).from_address(info + i * 4))
        if op != "getrs":
            with _quiet():
                f = linsolve.lu_factor(A.copy(), backend="cpu")
            A[...] = f.lu
            P[:] = f.piv + 1
            I[0] = f.info
            if f.info:
                continue
        if op != "getrf":
            B = _column_major(b + i * b_bs * es, n, nrhs, ldb, ct)
            B[...] = linsolve.lu_solve((A.copy(), P - 1), B.copy(), trans="NTC".index(trans))
    return (0, -1, "", "")


class _quiet:
    def __enter__(self):
        import warnings
        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self.w.__exit__(*exc)


@pytest.fixture(autouse=True)
def fake_device(monkeypatch):
    monkeypatch.setattr(_gpu, "_require_cuda", lambda: None)
    # results come back wrapped, as JAX arrays do through their converter
    monkeypatch.setattr(_gpu, "_adapter", lambda *xs: (FakeLibrary(), DeviceArray))
    monkeypatch.setattr(_gpu._core, "device_run", fake_device_run)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((9, 9), (9,)), ((9, 9), (9, 3)), ((4, 9, 9), (4, 9, 2)), ((2, 1, 9, 9), (1, 3, 9, 1)),
    ((0, 9, 9), (0, 9, 1)), ((1, 1), (1,)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_solve_layouts(rng, a_shape, b_shape, dtype):
    n = a_shape[-1]
    a = (rng.uniform(-1, 1, a_shape) + n * np.eye(n)).astype(dtype)
    b = rng.uniform(-1, 1, b_shape).astype(dtype)
    x, rep = linsolve.solve_ex(DeviceArray(a), DeviceArray(b))
    x = host(x)
    want = np.linalg.solve(a, b if b.ndim > 1 else b[:, None])
    want = want[..., 0] if b.ndim == 1 else want
    assert x.shape == want.shape and x.dtype == dtype
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(x, want, rtol=tol, atol=tol)
    assert rep.backend == "cuda" and rep.method == "lu"
    if x.size:
        assert rep.residual <= 30


def test_solve_singular_and_precision(rng):
    a = np.eye(5)
    a[:, 3] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(DeviceArray(np.stack([np.eye(5), a])), DeviceArray(np.ones((2, 5, 1))))
    assert e.value.column == 3 and e.value.index == (1,)
    g = rng.uniform(-1, 1, (6, 6)) + 6 * np.eye(6)
    x, rep = linsolve.solve_ex(DeviceArray(g), DeviceArray(np.ones(6)), precision="single")
    x = host(x)
    assert x.dtype == np.float64 and rep.precision == "single"
    np.testing.assert_allclose(x, np.linalg.solve(g, np.ones(6)), rtol=1e-4)
    with pytest.raises(ValueError, match="'lu'"):
        linsolve.solve(DeviceArray(g), DeviceArray(np.ones(6)), method="gj1")
    with pytest.raises(TypeError, match="host memory"):
        linsolve.solve(DeviceArray(g), np.ones(6))


def test_lu_factor_and_solve(rng):
    a = rng.uniform(-1, 1, (3, 7, 7))
    f = linsolve.lu_factor(DeviceArray(a))
    ref = linsolve.lu_factor(a, backend="cpu")
    np.testing.assert_array_equal(host(f.piv), ref.piv)
    np.testing.assert_allclose(host(f.lu), ref.lu, rtol=1e-12, atol=1e-14)
    assert f.backend == "cuda" and f.info.shape == (3,)
    b = rng.uniform(-1, 1, (3, 7, 2))
    for trans in (0, 1, 2):
        want = linsolve.lu_solve(ref, b, trans=trans)
        # own factors (pivots reused) and a plain (lu, piv) tuple (pivots rebuilt)
        np.testing.assert_allclose(host(linsolve.lu_solve(f, DeviceArray(b), trans=trans)), want,
                                   rtol=1e-10, atol=1e-12)
        pair = (DeviceArray(host(f.lu).copy()), DeviceArray(host(f.piv).copy()))
        x = linsolve.lu_solve(pair, DeviceArray(b), trans=trans)
        np.testing.assert_allclose(host(x), want,
                                   rtol=1e-10, atol=1e-12)


def test_lu_singular_device_factors():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.warns(linsolve.SingularMatrixWarning):
        f = linsolve.lu_factor(DeviceArray(a))
    with pytest.raises(linsolve.SingularMatrixError):
        linsolve.lu_solve(f, DeviceArray(np.ones(2)))
    with pytest.raises(linsolve.SingularMatrixError):
        linsolve.lu_solve((f.lu, f.piv), DeviceArray(np.ones(2)))
