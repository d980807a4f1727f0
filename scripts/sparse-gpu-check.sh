#!/usr/bin/env bash
# The sparse solvers on the GPU machine, after scripts/device-session.sh has
# built into /tmp/ls-session-build: the cuda_sparse_* tests, then linsolve's
# CUDA Krylov methods (and the CPU's) on generated grids, one line each,
# and CuPy's CG on the same Poisson systems for a first comparison.
# usage: scripts/sparse-gpu-check.sh OUTDIR   (env SIZES="1000 2000" grid sides)
set -u
OUTD=${1:-/tmp/ls-sparse-check}
B=/tmp/ls-session-build/bin
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON_GPU:-/opt/torch/.venv/bin/python3}
mkdir -p "$OUTD"
for t in "$B"/test_cuda_sparse_*; do
  [ -x "$t" ] || continue
  timeout 300 "$t" --matrices "$ROOT/.matrices" >"$OUTD/$(basename "$t").txt" 2>&1
  echo "$(basename "$t"): rc $? $(tail -1 "$OUTD/$(basename "$t").txt")" | tee -a "$OUTD/check.txt"
done
one() { # file backend method precond
  timeout 200 "$B/linsolve" solve "$1" --format sparse --backend "$2" --method "$3" \
    --precond "$4" --max-iter 40000 --json >/tmp/ls-check.json 2>/tmp/ls-check.err
  local rc=$?
  "$PY" -c "import json,sys
try: d=json.load(open('/tmp/ls-check.json'))
except Exception: print('$1 $2 $3 $4 rc $rc', open('/tmp/ls-check.err').read()[:200].strip()); sys.exit()
print('%s %s %s %s rc %d its %d solve %.3f s residual %.3g' % ('$(basename "$1")', '$2', '$3', '$4', $rc, d['iterations'], d['time_solve'], d['residual']))" |
    tee -a "$OUTD/check.txt"
}
for k in ${SIZES:-1000 2000}; do
  P=/tmp/poisson$k.mtx C=/tmp/convdiff$k.mtx
  [ -f $P ] || "$B/linsolve" gen poisson2d -n $((k * k)) -o $P >/dev/null
  [ -f $C ] || "$B/linsolve" gen convdiff -n $((k * k)) -o $C >/dev/null
  for c in "cuda cg jacobi" "cuda cg ilu0" "cuda bicgstab jacobi"; do one $P $c; done
  for c in "cuda gmres jacobi" "cuda bicgstab jacobi" "cuda bicgstab ilu0" "cuda gmres ilu0" \
    "cpu bicgstab ilu0" "cpu gmres ilu0"; do one $C $c; done
  "$PY" - $P <<'PY' 2>&1 | tee -a "$OUTD/check.txt"
import sys, time, numpy as np, scipy.io, cupy as cp, cupyx.scipy.sparse as cs
import cupyx.scipy.sparse.linalg as cl
A = scipy.io.mmread(sys.argv[1]).tocsr(); n = A.shape[0]
b = A @ np.ones(n); rtol = 10 * np.sqrt(n) * np.finfo(float).eps
for rep in range(2):
    cp.cuda.Device().synchronize(); t = time.perf_counter()
    Ad = cs.csr_matrix(A); bd = cp.asarray(b); its = [0]
    cb = lambda xk: its.__setitem__(0, its[0] + 1)
    try:
        x, info = cl.cg(Ad, bd, rtol=rtol, atol=0, maxiter=40000, callback=cb)
    except TypeError:
        x, info = cl.cg(Ad, bd, tol=rtol, atol=0, maxiter=40000, callback=cb)
    xh = cp.asnumpy(x); t = time.perf_counter() - t
r = np.linalg.norm(b - A @ xh) / np.linalg.norm(b)
print('%s cupy cg none info %d its %d solve %.3f s rel %.3g' % (sys.argv[1].split('/')[-1], info, its[0], t, r))
PY
done
