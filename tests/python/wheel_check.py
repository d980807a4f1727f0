"""Checks an installed binary wheel of linsolve from the inside (run by
wheel_install.sh with the venv's Python): the package solves on the CPU with
the libraries it carries, show_config() names where each was loaded from,
and a backend that is not available says why. Prints show_config's text;
exit status = the number of failed checks."""
import os
import sys
import tempfile

import numpy as np

import linsolve
from linsolve import _cuda_libs

failures = []


def check(ok, what):
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        failures.append(what)


pkg = os.path.dirname(os.path.realpath(linsolve.__file__))
libs = os.path.join(os.path.dirname(pkg), "linsolve.libs")

rng = np.random.default_rng(7)
n = 200
a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n) * 0.1
b = rng.uniform(-1, 1, (n, 3))
x = linsolve.solve(a, b, backend="cpu")
res = np.abs(b - a @ x).max() / (n * np.abs(a).sum(1).max() * np.abs(x).max()
                                 * np.finfo(np.float64).eps)
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
    if p["in the package"]:
        # shipped: it must load (it may still find no device, then say why)
        check(p["loaded from"] is not None
              and os.path.dirname(os.path.realpath(p["loaded from"])) == pkg,
              f"{name} plugin loaded from the wheel ({p['loaded from']})")
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

print(f"wheel_check: {len(failures)} failed")
sys.exit(len(failures))
