"""Checks an installed binary wheel of linsolve from the inside (run by
wheel_install.sh with the venv's Python): the package solves on the CPU with
the libraries it carries, show_config() names where each was loaded from,
and a backend that is not available says why. A plugin the wheel carries
loads from it, or fails to load for want of a library the wheel leaves to the
system (the OpenCL ICD loader, the CUDA libraries), and says so. Where the
system's OpenCL ICD loader lists a device (asked directly, not through
linsolve), show_config() must call the OpenCL backend available and a solve on
it must pass; elsewhere that part is reported SKIPPED, not ok.
LS_WHEEL_EXPECT_NO_OPENCL_LOADER=1 (wheel_install.sh's run with the loader
hidden) asserts instead that no libOpenCL.so.1 can be loaded and that
show_config() gives the plugin's dlopen error naming it.
Prints show_config's text; exit status = the number of failed checks."""
import ctypes
import os
import sys
import tempfile

import numpy as np

import linsolve
from linsolve import _cuda_libs

failures = []
# The libraries each plugin takes from outside the wheel.
EXTERNAL = {"cuda": set(_cuda_libs.LIBRARIES) | {"libcuda.so.1"},
            "opencl": {"libOpenCL.so.1"}}


def check(ok, what):
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        failures.append(what)


def skipped(what):
    print("SKIPPED " + what)


def scaled_residual(a, x, b):
    n = a.shape[0]
    return np.abs(b - a @ x).max() / (n * np.abs(a).sum(1).max() * np.abs(x).max()
                                      * np.finfo(np.float64).eps)


def opencl_devices():
    """(the number of OpenCL devices, why none), from the system's ICD loader."""
    try:
        cl = ctypes.CDLL("libOpenCL.so.1")
    except OSError as e:
        return 0, f"no OpenCL ICD loader ({e})"
    uint_p = ctypes.POINTER(ctypes.c_uint)
    cl.clGetPlatformIDs.argtypes = [ctypes.c_uint, ctypes.c_void_p, uint_p]
    cl.clGetDeviceIDs.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint,
                                  ctypes.c_void_p, uint_p]
    nplat = ctypes.c_uint(0)
    e = cl.clGetPlatformIDs(0, None, ctypes.byref(nplat))
    if e != 0 or nplat.value == 0:
        return 0, f"no OpenCL platform (clGetPlatformIDs: {e})"
    plats = (ctypes.c_void_p * nplat.value)()
    if cl.clGetPlatformIDs(nplat.value, plats, None) != 0:
        return 0, "clGetPlatformIDs failed"
    total = 0
    for p in plats:
        ndev = ctypes.c_uint(0)
        if cl.clGetDeviceIDs(p, 0xFFFFFFFF, 0, None, ctypes.byref(ndev)) == 0:  # TYPE_ALL
            total += ndev.value
    return total, "" if total else f"no device on {nplat.value} OpenCL platform(s)"


pkg = os.path.dirname(os.path.realpath(linsolve.__file__))
libs = os.path.join(os.path.dirname(pkg), "linsolve.libs")

rng = np.random.default_rng(7)
n = 200
a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n) * 0.1
b = rng.uniform(-1, 1, (n, 3))
x = linsolve.solve(a, b, backend="cpu")
res = scaled_residual(a, x, b)
check(res <= 30, f"CPU solve n={n}: scaled residual {res:.3g} <= 30")

linsolve.show_config()
d = linsolve.show_config(mode="dicts")
lib = d["library"]["liblinsolve"]
check(lib is not None and os.path.dirname(os.path.realpath(lib)) == pkg,
      f"liblinsolve loaded from the wheel ({lib})")
# NumPy may load the system's OpenBLAS too; liblinsolve's LAPACK must be the wheel's.
real_libs = os.path.realpath(libs)
ours = [p for p in d["blas"]["loaded"] if os.path.dirname(os.path.realpath(p)) == real_libs]
check(any("openblas" in os.path.basename(p) for p in ours),
      f"the wheel's OpenBLAS is loaded ({ours})")
# "dgetrf_ from PATH; OpenBLAS ..." (ls_lapack_library)
lapack_path = d["blas"]["lapack"].split(" from ", 1)[-1].split(";", 1)[0]
check(os.path.dirname(os.path.realpath(lapack_path)) == real_libs,
      f"liblinsolve's LAPACK is the wheel's ({d['blas']['lapack']})")
cpu = d["backends"]["cpu"]
check(cpu.startswith("yes"), f"cpu backend available ({cpu})")
for name, p in d["plugins"].items():
    if p["in the package"] and p["loaded from"] is not None:
        # shipped and loaded (it may still find no device, then say why)
        check(os.path.dirname(os.path.realpath(p["loaded from"])) == pkg,
              f"{name} plugin loaded from the wheel ({p['loaded from']})")
    elif p["in the package"]:
        # shipped, not loadable: only for want of a library from outside
        why = p["why not"] or ""
        missing = sorted(lib for lib in EXTERNAL.get(name, ()) if lib in why)
        check(bool(missing) and "cannot open shared object file" in why,
              f"{name} plugin not loaded for want of {missing or 'a library from outside the wheel'}")
    if not p["available"]:
        check(bool(p["why not"]), f"{name} unavailable, and says why: {p['why not']}")
if not _cuda_libs.loaded:
    check(_cuda_libs.summary != "not tried",
          f"the CUDA libraries' preload says what it did: {_cuda_libs.summary}")

# NVIDIA's wheel layout is found on sys.path (CUDA 13's folder first).
with tempfile.TemporaryDirectory() as site:
    for sub in ("nvidia/cublas/lib", f"nvidia/cu{_cuda_libs.CUDA_MAJOR}/lib"):
        os.makedirs(os.path.join(site, sub))
    sys.path.insert(0, site)
    try:
        found = _cuda_libs.wheel_dirs()[:2]
    finally:
        sys.path.remove(site)
    want = [os.path.join(site, f"nvidia/cu{_cuda_libs.CUDA_MAJOR}/lib"),
            os.path.join(site, "nvidia/cublas/lib")]
    check(found == want, f"NVIDIA wheel folders found in order ({found})")

# OpenCL: the plugin with the system's ICD loader, or its absence explained.
ocl = d["plugins"].get("opencl")
ndev, no_dev = opencl_devices()
if os.environ.get("LS_WHEEL_EXPECT_NO_OPENCL_LOADER") == "1":
    check(ndev == 0 and "libOpenCL.so.1" in no_dev, f"no OpenCL ICD loader here ({no_dev})")
    check(ocl is not None and ocl["in the package"], "the wheel carries the OpenCL plugin")
    why = ocl["why not"] if ocl else ""
    check(d["backends"]["opencl"].startswith("no:") and "libOpenCL.so.1: cannot open" in why,
          f"show_config: opencl unavailable, the plugin's dlopen error: {why}")
elif ocl is None or not ocl["in the package"]:
    skipped("OpenCL solve: the wheel has no OpenCL plugin")
elif ndev == 0:
    skipped(f"OpenCL solve: {no_dev}")
else:
    check(ocl["available"] and d["backends"]["opencl"].startswith("yes"),
          f"{ndev} OpenCL device(s): show_config calls opencl available"
          f" ({d['backends']['opencl']}; loader {ocl.get('loader')})")
    # the zig toolchain's wheel leaves the loader to the system, the system
    # toolchain's grafts it: the one loaded must be the one that applies
    loader = ocl.get("loader") or ""
    grafted = any(f.startswith("libOpenCL") for f in os.listdir(libs))
    where = "the wheel's grafted one" if grafted else "the system's"
    check(bool(loader) and (os.path.dirname(os.path.realpath(loader)) == real_libs) == grafted,
          f"the OpenCL ICD loader is {where} ({loader})")
    try:
        x, rep = linsolve.solve_ex(a, b, backend="opencl")
        res = scaled_residual(a, x, b)
        check(rep.backend == "opencl" and res <= 30,
              f"OpenCL solve n={n} on {rep.device}: backend {rep.backend},"
              f" scaled residual {res:.3g} <= 30")
    except linsolve.LinsolveError as e:
        check(False, f"OpenCL solve n={n}: {e}")

print(f"wheel_check: {len(failures)} failed")
sys.exit(len(failures))
