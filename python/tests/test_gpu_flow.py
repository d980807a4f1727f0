"""The device path's plumbing without a GPU: a NumPy-backed stand-in for
the array library, and a stand-in for the device API that reads the
pointers it is given as LAPACK's column-major storage. It checks what the
real run depends on: layouts, leading dimensions, batch strides, pivots,
info, broadcasting and the result's shape; test_gpu.py checks the rest on
a GPU."""
import ctypes
import time

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
    """The adapter interface of _gpu_arrays._Torch / _Cupy, on NumPy."""

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

    def is_colmajor(self, x):
        return not x.flags.c_contiguous and x.swapaxes(-1, -2).flags.c_contiguous

    def copy(self, x, shape, dt, row):
        out = np.empty(shape, dt) if row else \
            np.empty(shape[:-2] + (shape[-1], shape[-2]), dt).swapaxes(-1, -2)
        out[...] = x
        return out

    def ints(self, shape, dev):
        return np.zeros(shape, np.int32)

    def int_buffer(self, count, like):
        return np.full(count, -99, np.int32)  # the solve must write every entry

    def doubles(self, count, like):
        return np.full(count, np.nan)  # the check must write every entry

    def ptr(self, x):
        return x.__array_interface__["data"][0]

    def stream(self, dev):
        return 0

    def host(self, x):
        return np.asarray(x)

    def cast(self, x, dt):
        return x.astype(dt, copy=False)

    def unsqueeze(self, x):
        return x[..., None]

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = np.broadcast_to(piv.astype(np.int32) + 1, batch + (n,))
        return np.ascontiguousarray(p.reshape(max(count, 1), n))

    def diag_zero(self, lu):
        return (np.diagonal(lu, axis1=-2, axis2=-1) == 0).reshape(-1, lu.shape[-1])

    def row_norms(self, a):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.abs(a).sum(-1).max(-1)

    def abs_max(self, x):
        return np.abs(x).max()

    def residual_parts(self, a, x, b):
        with np.errstate(invalid="ignore", over="ignore"):
            r = np.matmul(a, x) - b
            return np.abs(r).max((-2, -1)), np.abs(x).max((-2, -1))

    def worst_ratio(self, a, x, b, na):
        nr, nx = self.residual_parts(a, x, b)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (nr / na / nx).max()

    def first_failure(self, info):
        i = np.argmax(info != 0)
        return info[i], i

    def largest(self, x):
        return np.max(x)

    def read(self, scalars):
        FakeLibrary.reads += 1
        # what a stack of 0-d device arrays gives back: numbers, ints kept
        # when every scalar is an integer (type promotion)
        out = np.stack([np.asarray(s).reshape(()) for s in scalars])
        return out.tolist()

    reads = 0

    def all_finite(self, x):
        return bool(np.isfinite(x).all())

    def start_timer(self):
        return [time.perf_counter()]

    def stop_timer(self, e):
        e.append(time.perf_counter())

    def seconds(self, e):
        return e[1] - e[0]

    def residual(self, a, x, b, eps):
        n = a.shape[-1]
        with np.errstate(invalid="ignore", over="ignore"):
            r = b - a @ x
            return _gpu._scaled(np.abs(r).max((-2, -1)),
                                n * np.abs(a).sum(-1).max(-1) * np.abs(x).max((-2, -1)) * eps)


def _block(ptr, rows, cols, ld, row, ctype):
    """A rows x cols matrix at ptr, row- or column-major with leading dimension ld."""
    if row:
        buf = (ctype * (ld * rows)).from_address(ptr)
        return np.ctypeslib.as_array(buf).reshape(rows, ld)[:, :cols]
    buf = (ctype * (ld * cols)).from_address(ptr)
    return np.ctypeslib.as_array(buf).reshape(cols, ld).T[:rows]


CALLS = []


def fake_device_solve(fmt, dev, stream, stack, layout, n, nrhs, batch, a, lda, sa, b, ldb, sb,
                      info, ipiv, policy, method, want):
    """The planner's contract for device memory, by NumPy on the pointers:
    with info given (and, for one column-major system, ipiv) the solve is
    only queued -- status 0 whatever the systems' infos, which are written
    to info for the caller to read; without, it waits and returns them."""
    queued = info != 0 and (stack or layout or ipiv != 0)
    CALLS.append(dict(stack=stack, layout=layout, policy=policy, batch=batch, method=method,
                      queued=queued, ipiv=ipiv != 0))
    ct, es = (ctypes.c_double, 8) if fmt == "d" else (ctypes.c_float, 4)
    assert ldb == (nrhs if layout else n) and lda == n
    rep = dict(method="lu", backend="cuda", precision="double" if fmt == "d" else "single",
               n=n, nrhs=nrhs, batch=batch, path="batched" if stack else "dense", why="test",
               t_factor=0.0, t_solve=0.0,
               message="queued on the stream: info is the caller's to read" if queued else "")
    if method not in ("auto", "lu") or (policy == 3 and (stack or layout or fmt != "d")):
        return (_gpu._core.EUNSUPPORTED, -1, 0.0, 0.0, float("nan"), "no path", rep)
    first, st = -1, 0
    for i in range(batch if stack else 1):
        A = _block(a + i * sa * es, n, n, lda, layout, ct)
        B = _block(b + i * sb * es, n, nrhs, ldb, layout, ct)
        with _quiet():
            f = linsolve.lu_factor(A.copy(), backend="cpu", check_finite=False)
        if info:
            ctypes.c_int.from_address(info + 4 * i).value = f.info
        if ipiv:
            P = np.ctypeslib.as_array((ctypes.c_int * n).from_address(ipiv))
            P[:] = f.piv + 1
        if f.info:
            if first < 0:
                first, st = i, int(f.info)
            B[...] = np.nan  # undefined after a zero pivot, as the queued gesv leaves it
            continue
        with np.errstate(all="ignore"):
            B[...] = np.linalg.solve(A.astype(np.float64), B.astype(np.float64))
    if queued:
        first, st = -1, 0
    return (st, first if stack else -1, 1e-3, 1.0, float("nan"), "singular" if st else "",
            rep if (want or st) else None)


CHECKS = []


def fake_device_check(fmt, dev, stream, n, nrhs, batch, la, a, lda, sa, lb, b, ldb, sb, lx, x, ldx,
                      sx, out):
    """ls_check_batched_gpu's contract by NumPy on the pointers: each
    matrix read through its own layout, leading dimension and batch stride
    (0: one matrix for all); ls_scaled_residual's rules with LAPACK's eps."""
    ct, es = (ctypes.c_double, 8) if fmt == "d" else (ctypes.c_float, 4)
    eps = float(np.finfo(np.float64 if fmt == "d" else np.float32).eps) / 2
    CHECKS.append(dict(x=x != 0, layouts=(la, lb, lx), strides=(sa, sb, sx)))
    assert sa >= 0 and sb >= 0 and sx >= 0
    worst, at, first = -1.0, -1, -1
    for s in range(batch if n else 0):
        A = _block(a + s * sa * es, n, n, lda, la, ct).astype(np.float64)
        B = _block(b + s * sb * es, n, nrhs, ldb, lb, ct).astype(np.float64)
        if first < 0 and not (np.isfinite(A).all() and np.isfinite(B).all()):
            first = s
        if not x:
            continue
        X = _block(x + s * sx * es, n, nrhs, ldx, lx, ct).astype(np.float64)
        with np.errstate(all="ignore"):
            rn = np.abs(B - A @ X).sum(1).max()
            an, xn = np.abs(A).sum(1).max(), np.abs(X).sum(1).max()
            d = n * an * xn * eps
        r = (0.0 if nrhs == 0 else float("nan") if np.isnan([rn, an, xn]).any() else
             0.0 if rn == 0 else float("inf") if d == 0 or not np.isfinite(d) else rn / d)
        if at < 0 or (np.isnan(r) and not np.isnan(worst)) or (
                not np.isnan(r) and not np.isnan(worst) and r > worst):
            worst, at = r, s
    res = np.ctypeslib.as_array((ctypes.c_double * 4).from_address(out))
    res[:] = [worst if at >= 0 else 0.0, at, 1.0 if first >= 0 else 0.0, first]
    return (0, "")


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
    monkeypatch.setattr(_gpu._core, "device_solve", fake_device_solve)
    monkeypatch.setattr(_gpu._core, "device_check", fake_device_check)
    CALLS.clear()
    CHECKS.clear()


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
    # the method goes to the planner, which names what it cannot run
    with pytest.raises(ValueError, match="no path"):
        linsolve.solve(DeviceArray(g), DeviceArray(np.ones(6)), method="gj1")
    assert CALLS[-1]["method"] == "gj1"
    with pytest.raises(TypeError, match="host memory"):
        linsolve.solve(DeviceArray(g), np.ones(6))


def _solve(a, b, **kw):
    return _gpu.solve(DeviceArray(a), DeviceArray(b), **kw)


@pytest.mark.parametrize("order", ["C", "F"])
def test_stack_is_one_planner_call(rng, order):
    a = np.asarray(rng.uniform(-1, 1, (6, 5, 5)) + 5 * np.eye(5), order=order)
    if order == "F":  # each matrix column-major, as a Fortran-order stack of transposes
        a = np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)
    b = rng.uniform(-1, 1, (6, 5, 1))  # vectors by every library's rule
    x, rep = _solve(a, b)
    np.testing.assert_allclose(host(x), np.linalg.solve(a, b), rtol=1e-10)
    assert len(CALLS) == 1 and CALLS[0]["stack"] == 1 and CALLS[0]["batch"] == 6
    assert CALLS[0]["layout"] == (1 if order == "C" else 0)
    assert rep.batch == 6 and "batched" in rep.note and rep.residual <= 30


def test_stack_broadcast_and_views(rng):
    a = rng.uniform(-1, 1, (3, 1, 4, 4)) + 4 * np.eye(4)
    b = rng.uniform(-1, 1, (1, 2, 4, 3))
    x = host(_solve(a, b)[0])
    assert x.shape == (3, 2, 4, 3)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    big = rng.uniform(-1, 1, (8, 6, 6)) + 6 * np.eye(6)
    view = big[::2, :, :]  # every other system: not contiguous
    bv = rng.uniform(-1, 1, (8, 6, 2))[::2]
    np.testing.assert_allclose(host(_solve(view, bv)[0]), np.linalg.solve(view, bv), rtol=1e-10)
    assert [c["batch"] for c in CALLS] == [6, 4]


def test_stack_singular_in_the_middle(rng):
    a = np.broadcast_to(np.eye(4), (2, 3, 4, 4)).copy()
    a[1, 1][:, 2] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        _solve(a, np.ones((2, 3, 4, 1)))
    assert e.value.index == (1, 1) and e.value.column == 2


def test_empty_and_order_one(rng):
    x, rep = _solve(np.zeros((0, 3, 3)), np.zeros((0, 3, 1)))
    assert host(x).shape == (0, 3, 1) and rep.batch == 0 and not CALLS
    x, _ = _solve(np.zeros((0, 3, 3)), np.zeros(3))  # one vector for no system
    assert host(x).shape == (0, 3)
    x, _ = _solve(np.full((5, 1, 1), 4.0), np.full((5, 1, 1), 2.0))
    np.testing.assert_allclose(host(x), np.full((5, 1, 1), 0.5))
    x, _ = _solve(np.zeros((3, 3)), np.zeros((3, 0)))
    assert host(x).shape == (3, 0)


def test_mixed_goes_to_the_planner(rng):
    a = rng.uniform(-1, 1, (7, 7)) + 7 * np.eye(7)
    b = rng.uniform(-1, 1, 7)
    x, rep = _solve(a, b, precision="mixed")
    assert host(x).dtype == np.float64
    np.testing.assert_allclose(host(x), np.linalg.solve(a, b), rtol=1e-10)
    assert CALLS[-1]["policy"] == 3 and CALLS[-1]["layout"] == 0
    # a stack the planner cannot take mixed: its message, as a ValueError
    with pytest.raises(ValueError, match="no path"):
        _solve(np.stack([a, a]), np.stack([b, b])[..., None], precision="mixed")
    with pytest.raises(ValueError, match="mixed"):
        _solve(a, b, precision="quad")


@pytest.mark.parametrize("where", ["a", "b"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_refused(rng, where, bad):
    a = rng.uniform(-1, 1, (2, 5, 5)) + 5 * np.eye(5)
    b = rng.uniform(-1, 1, (2, 5, 1))
    (a if where == "a" else b)[1, 2, ...] = bad
    with pytest.raises(linsolve.NonFiniteError) as e:
        _solve(a, b)
    assert isinstance(e.value, ValueError)
    # skipped by check_finite=False: the answer is what the solve made of it
    with pytest.warns(linsolve.InaccurateWarning):
        _solve(a, b, check_finite=False)


@pytest.mark.parametrize("shape", [(6, 6), (4, 6, 6)])
def test_one_read_back_per_call(rng, shape):
    """info, finiteness and the residual come back in one transfer; with
    every check off info still comes back (one wait, as torch.linalg.solve
    makes), and nothing else is computed."""
    a = rng.uniform(-1, 1, shape) + 6 * np.eye(6)
    b = rng.uniform(-1, 1, shape[:-1] + (1,))
    for kw in ({}, {"check": "off"}, {"check_finite": False},
               {"check": "off", "check_finite": False}):
        for want in (False, True):
            FakeLibrary.reads = 0
            _gpu.solve(DeviceArray(a), DeviceArray(b), want_report=want, **kw)
            assert FakeLibrary.reads == 1, (kw, want)


def test_checks_off_queue_no_device_work(rng):
    """check="off" and check_finite=False leave out their parts of the one
    fused check: both off, no check; finiteness alone reads no X."""
    a = rng.uniform(-1, 1, (5, 5)) + 5 * np.eye(5)
    _solve(a, np.ones(5), check="off", check_finite=False)
    assert CHECKS == []
    _solve(a, np.ones(5), check="off")
    assert [c["x"] for c in CHECKS] == [False]
    CHECKS.clear()
    _solve(a, np.ones(5), check_finite=False)
    assert [c["x"] for c in CHECKS] == [True]


def test_check_reads_the_callers_arrays_in_place(rng):
    """The check reads a and b where they are -- C or F order, a view, a
    broadcast a (stride 0) -- and copies only what one stride cannot
    address."""
    a = rng.uniform(-1, 1, (4, 6, 6)) + 6 * np.eye(6)
    b = rng.uniform(-1, 1, (4, 6, 1))
    _solve(a, b)
    assert CHECKS[-1]["layouts"][0] == 1 and CHECKS[-1]["strides"][0] == 36
    _solve(np.asfortranarray(a[0]), b[0])
    assert CHECKS[-1]["layouts"][0] == 0
    _solve(a[0], b)  # one a for all four systems
    assert CHECKS[-1]["strides"][0] == 0
    big = rng.uniform(-1, 1, (8, 6, 6)) + 6 * np.eye(6)
    _solve(big[::2], b)
    assert CHECKS[-1]["strides"][0] == 72
    x, rep = _solve(rng.uniform(-1, 1, (3, 1, 6, 6)) + 6 * np.eye(6), rng.uniform(-1, 1, (1, 2, 6, 1)))
    assert host(x).shape == (3, 2, 6, 1) and rep.residual <= 30


@pytest.mark.parametrize("b_shape", [(9,), (9, 3)])
def test_single_system_queued_column_major(rng, b_shape):
    """One system: column-major working copies (A transposed on copy), the
    caller's pivots and info in device memory, so the planner only queues."""
    a = rng.uniform(-1, 1, (9, 9))
    keep = a.copy()
    b = rng.uniform(-1, 1, b_shape)
    x, rep = _solve(a, b)
    np.testing.assert_allclose(host(x), np.linalg.solve(a, b), rtol=1e-9)
    c = CALLS[-1]
    assert c["layout"] == 0 and c["queued"] and c["ipiv"] and c["stack"] == 0
    assert np.array_equal(a, keep)  # the caller's A is not the working copy
    assert "queued" not in rep.message and "device time" in rep.message


def test_stack_queued_without_pivots(rng):
    a = rng.uniform(-1, 1, (3, 4, 4)) + 4 * np.eye(4)
    _solve(a, rng.uniform(-1, 1, (3, 4, 1)))
    c = CALLS[-1]
    assert c["queued"] and not c["ipiv"] and c["stack"] == 1


@pytest.mark.parametrize("kw", [{}, {"check": "off", "check_finite": False},
                                {"check_finite": False}])
def test_singular_read_from_device_info(kw):
    """A zero pivot comes back through info in the one read: column and,
    for a stack, the index of the first singular system."""
    a = np.eye(5)
    a[:, 3] = 0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        _solve(a, np.ones(5), **kw)
    assert e.value.column == 3 and e.value.index is None
    s = np.broadcast_to(np.eye(5), (7, 5, 5)).copy()
    s[4] = a
    s[6] = a
    with pytest.raises(linsolve.SingularMatrixError) as e:
        _solve(s, np.ones((7, 5, 1)), **kw)
    assert e.value.column == 3 and e.value.index == (4,)


def test_nan_named_before_singular():
    a = np.eye(4)
    a[:, 1] = 0
    a[2, 2] = np.nan
    with pytest.raises(linsolve.NonFiniteError):
        _solve(a, np.ones(4))
    with pytest.raises(linsolve.NonFiniteError):
        _solve(np.stack([np.eye(4), a]), np.ones(4))


def test_mixed_is_not_queued(rng):
    a = rng.uniform(-1, 1, (6, 6)) + 6 * np.eye(6)
    _solve(a, np.ones(6), precision="mixed")
    assert not CALLS[-1]["queued"] and not CALLS[-1]["ipiv"]


def test_overflowing_norm_is_not_non_finite():
    a = np.diag([1e308, 1e308, 1.0])
    a[0, 1] = 1e308  # the row sum overflows; every entry is finite
    x, _ = _solve(a, np.array([1.0, 1.0, 1.0]), check="off")
    assert np.isfinite(host(x)).all()


def test_report_has_device_times(rng):
    a = rng.uniform(-1, 1, (30, 30)) + 30 * np.eye(30)
    _, rep = _solve(a, rng.uniform(-1, 1, 30))
    assert rep.t_factor > 0 and rep.gflops > 0 and rep.t_total >= rep.t_factor
    assert rep.flops == pytest.approx(2 * 30 ** 3 / 3 - 900 / 2 + 25 + 2 * 900 - 30)
    assert "device time" in rep.message and "dense" in rep.note


def test_inaccurate_answer_warns_or_raises(monkeypatch, rng):
    a = rng.uniform(-1, 1, (5, 5)) + 5 * np.eye(5)
    b = rng.uniform(-1, 1, 5)

    def wrong(*args):
        out = fake_device_solve(*args)
        _block(args[11], 5, 1, args[12], args[4], ctypes.c_double)[...] += 1.0
        return out

    monkeypatch.setattr(_gpu._core, "device_solve", wrong)
    with pytest.warns(linsolve.InaccurateWarning):
        _solve(a, b)
    with pytest.raises(linsolve.InaccurateError):
        _solve(a, b, check="raise")
    _solve(a, b, check="off")


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



def test_b_read_by_the_callers_library(rng, monkeypatch):
    """A (4, 5) b with a (4, 5, 5) a from PyTorch: four vectors by
    torch.linalg.solve's rule (b.shape == a.shape[:-1]), whatever NumPy is
    installed; the stand-in arrays say they are torch's."""
    monkeypatch.setattr(_gpu, "array_kind", lambda *xs: "torch")
    a = rng.uniform(-1, 1, (4, 5, 5)) + 5 * np.eye(5)
    b = rng.uniform(-1, 1, (4, 5))
    x = host(_solve(a, b)[0])
    assert x.shape == (4, 5)
    np.testing.assert_allclose(x, np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-10)
