"""NumPy, unmodified, under the drop-in: numpy.linalg.solve / inv / det
computed in a child Python without LD_PRELOAD and in one with
LD_PRELOAD=liblinsolve_lapack.so LS_LAPACK_BACKEND=cpu LS_LAPACK_TRACE=1
must agree to rounding, and the trace must hold exactly the LAPACK calls
NumPy makes for them.

Which symbols: Debian's NumPy computes these in numpy/linalg/_umath_linalg,
which imports dgesv_ (solve, inv; float32 inputs are computed in double)
and dgetrf_ (det) from the system liblapack.so.3 rather than from a bundled
copy, so a preloaded library that defines them is called. A NumPy that
bundles its LAPACK under other names would leave the trace empty: the
test then fails and says so rather than passing on NumPy's own answers.

usage: numpy_check.py DROPIN.so     (exit 0 ok, 1 failed, 77 no NumPy)
"""
import os
import re
import subprocess
import sys

# (name, expected traced calls as (routine, n, nrhs) tuples)
CASES = [
    ("solve n=1", [("dgesv_", 1, 1)]),
    ("solve n=7 nrhs=3", [("dgesv_", 7, 3)]),
    ("solve n=200 vector b", [("dgesv_", 200, 1)]),
    ("solve float32 n=60", [("dgesv_", 60, 1)]),
    ("solve stack 3 x n=10", [("dgesv_", 10, 2)] * 3),
    ("inv n=50", [("dgesv_", 50, 50)]),
    ("inv n=150", [("dgesv_", 150, 150)]),
    ("det n=40", [("dgetrf_", 40, 0)]),
    ("solve singular n=5", [("dgesv_", 5, 1)]),
]


def compute():
    """Runs every case; prints one repr'd dict of results (lists)."""
    import numpy as np

    rng = np.random.default_rng(20240613)

    def mat(n, dtype=np.float64):
        return (rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(dtype)

    out = {}
    out["solve n=1"] = np.linalg.solve(mat(1), rng.standard_normal(1))
    out["solve n=7 nrhs=3"] = np.linalg.solve(mat(7), rng.standard_normal((7, 3)))
    out["solve n=200 vector b"] = np.linalg.solve(mat(200), rng.standard_normal(200))
    a32 = mat(60, np.float32)
    out["solve float32 n=60"] = np.linalg.solve(a32, rng.standard_normal(60).astype(np.float32))
    stack = np.stack([mat(10) for _ in range(3)])
    out["solve stack 3 x n=10"] = np.linalg.solve(stack, rng.standard_normal((3, 10, 2)))
    out["inv n=50"] = np.linalg.inv(mat(50))
    out["inv n=150"] = np.linalg.inv(mat(150))
    out["det n=40"] = np.array([np.linalg.det(mat(40))])
    sing = mat(5)
    sing[:, 2] = 0
    try:
        np.linalg.solve(sing, np.ones(5))
        out["solve singular n=5"] = np.array([0.0])
    except np.linalg.LinAlgError:
        out["solve singular n=5"] = np.array([1.0])  # raised, as it must
    print({k: (v.dtype.str, v.ravel().astype(np.float64).tolist()) for k, v in out.items()})


def run(env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    p = subprocess.run([sys.executable, __file__, "--compute"], env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        sys.exit("child Python failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    import ast
    return ast.literal_eval(p.stdout.strip().splitlines()[-1]), p.stderr


def describe_numpy():
    import numpy
    import numpy.linalg._umath_linalg as um
    print("NumPy %s from %s" % (numpy.__version__, os.path.dirname(numpy.__file__)))
    try:
        nm = subprocess.run(["nm", "-D", "--undefined-only", um.__file__],
                            capture_output=True, text=True).stdout
        used = sorted(set(re.findall(r"\b([ds]ge(?:sv|trf|trs)_)\b", nm)))
        print("%s imports %s" % (os.path.basename(um.__file__), " ".join(used) or "none of them"))
    except OSError:
        pass


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--compute":
        compute()
        return 0
    dropin = sys.argv[1]
    try:
        describe_numpy()
    except ImportError as e:
        print("skipped: this Python (%s) has no NumPy (%s): Debian package python3-numpy"
              % (sys.executable, e))
        return 77
    ref, _ = run({"LD_PRELOAD": ""})
    got, trace = run({"LD_PRELOAD": dropin, "LS_LAPACK_BACKEND": "cpu",
                      "LS_LAPACK_TRACE": "1", "OMP_NUM_THREADS": "1"})
    fails = 0
    eps = 2.0 ** -52
    print("%-24s %12s  %s" % ("case", "max rel diff", "ok|failed"))
    for name, _ in CASES:
        (dt_r, r), (dt_g, g) = ref[name], got[name]
        scale = max(max(abs(v) for v in r), 1e-300)
        diff = max(abs(a - b) for a, b in zip(r, g)) / scale if len(r) == len(g) else float("inf")
        # to rounding: a few hundred ulps of the largest entry (the matrices
        # are well conditioned; float32 results are rounded from double)
        tol = (2.0 ** -23 if dt_r == "<f4" else 1e3 * eps)
        ok = dt_r == dt_g and diff <= tol
        fails += not ok
        print("%-24s %12.3e  %s" % (name, diff, "ok" if ok else "failed"))
    calls = [(m.group(1), int(m.group(3)), int(m.group(4)), m.group(5))
             for m in re.finditer(r"^liblinsolve_lapack: (\w+)( m=\d+)? n=(\d+) nrhs=(\d+)"
                                  r"(?: trans=.)? path=(\w+)", trace, re.M)]
    want = [c for _, cs in CASES for c in cs]
    print("trace: %d intercepted call(s), %d expected; paths: %s"
          % (len(calls), len(want), ", ".join(sorted({c[3] for c in calls})) or "none"))
    if [c[:3] for c in calls] != want or any(c[3] != "cpu" for c in calls):
        fails += 1
        print("FAILED: the trace does not show linsolve handling exactly NumPy's calls:")
        print("  expected %s\n  traced   %s" % (want, calls))
        if not calls:
            print("  (this NumPy does not call the process's dgesv_/dgetrf_: nothing to intercept)")
    print("numpy_check: %s" % ("ok" if not fails else "%d failure(s)" % fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
