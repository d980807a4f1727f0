"""info(), methods(), GIL release, and no leaked references or memory."""
import gc
import sys
import threading
import time

import numpy as np
import pytest

import linsolve


def test_info_lists_backends():
    i = linsolve.info()
    names = [b.name for b in i.backends]
    assert names == ["auto", "cpu", "cuda", "opencl"]
    assert i.backend("cpu").available and i.backend("cpu").device
    assert not i.backend("cuda").available or i.backend("cuda").device.startswith("cuda")
    assert i.library_version == "0.1.0" and "[cpu]" in i.text and "cpu" in str(i)


def test_methods():
    names = [m for m, _ in linsolve.methods()]
    assert {"auto", "lu", "ge", "gj1", "gj2", "bicgstab"} <= set(names)


def test_threads_share_contexts(rng):
    """Solves from several threads at once (the GIL is released)."""
    a = rng.uniform(-1, 1, (8, 60, 60)) + 6 * np.eye(60)
    b = rng.uniform(-1, 1, (8, 60))
    want = np.linalg.solve(a, b[..., None])[..., 0]  # stacked vectors under NumPy 1.x and 2.x
    out = [None] * 8

    def work(i):
        out[i] = linsolve.solve(a[i], b[i], backend="cpu")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    np.testing.assert_allclose(np.stack(out), want, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("call", ["solve", "lu_factor", "lu_solve"])
def test_gil_released_while_the_library_works(rng, call):
    """The main thread runs while the worker's call is inside liblinsolve.

    With a switch interval far longer than the test, the worker keeps the
    GIL until it blocks or a C call releases it. The main thread waits for
    the worker to announce its calls; it gets the GIL back while they run
    only if a call releases it, else only after the last has returned.
    Tiny arrays, so nothing in NumPy releases the GIL on the way in."""
    n = 16
    a = np.asfortranarray(rng.uniform(-1, 1, (n, n)) + n * np.eye(n))
    b = rng.uniform(-1, 1, n)
    f = linsolve.lu_factor(a, backend="cpu")
    run = {"solve": lambda: linsolve.solve(a, b, method="lu", backend="cpu", check=False),
           "lu_factor": lambda: linsolve.lu_factor(a, backend="cpu"),
           "lu_solve": lambda: linsolve.lu_solve(f, b, backend="cpu")}[call]
    announced = threading.Event()
    state = {"inside": False, "seen": False}

    def work():
        run()  # warm: the context and its threads exist before the test
        state["inside"] = True
        announced.set()
        # Calls until the main thread has run (it runs at the first release
        # the OS lets it take), for at most 2 s; the loop itself never blocks.
        t_end = time.perf_counter() + 2.0
        while not state["seen"] and time.perf_counter() < t_end:
            run()
        state["inside"] = False

    seen = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        announced.wait()
        seen.append(state["inside"])
        state["seen"] = True
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert seen == [True], f"{call} kept the GIL for the whole call"


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def test_no_leaks_over_many_small_solves(rng):
    a = rng.uniform(-1, 1, (4, 4)) + 4 * np.eye(4)
    b = rng.uniform(-1, 1, 4)
    refs = sys.getrefcount(a), sys.getrefcount(b)
    for _ in range(200):  # warm up caches and allocators
        linsolve.solve_ex(a, b, backend="cpu")
        linsolve.lu_solve(linsolve.lu_factor(a, backend="cpu"), b)
    gc.collect()
    before = _rss_kib()
    for _ in range(10000):
        linsolve.solve_ex(a, b, backend="cpu")
    for _ in range(2000):
        linsolve.lu_solve(linsolve.lu_factor(a, backend="cpu"), b)
        try:
            linsolve.solve(np.zeros((4, 4)), b)
        except linsolve.SingularMatrixError:
            pass
    gc.collect()
    grown = _rss_kib() - before
    assert (sys.getrefcount(a), sys.getrefcount(b)) == refs
    assert grown < 4096, f"resident memory grew by {grown} KiB over 14000 calls"
