#!/usr/bin/env bash
# Under the preload, linsolve's own `lapack` method (the system-LAPACK
# baseline) must still reach the real LAPACK, not the drop-in: with the
# trace on and every call routed to linsolve, a solve with --method lapack
# must leave no trace line, and `linsolve info` must name the real library.
#     own_lapack.sh LINSOLVE_CLI DROPIN.so
set -uo pipefail
cli=$1 dropin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
"$cli" gen random -n 300 -o "$work/A.mtx" >/dev/null || fail "linsolve gen"
for prec in double single; do
  LD_PRELOAD=$dropin LS_LAPACK_BACKEND=cpu LS_LAPACK_MIN_N=0 LS_LAPACK_TRACE=1 \
    "$cli" solve "$work/A.mtx" --method lapack --backend cpu --precision $prec \
    > "$work/out" 2> "$work/err"
  rc=$?
  grep -E 'status|method|message' "$work/out"
  [ "$rc" -eq 0 ] || { cat "$work/err"; fail "$prec solve exited with $rc"; }
  if grep -q '^liblinsolve_lapack:' "$work/err"; then
    grep '^liblinsolve_lapack:' "$work/err"
    fail "--method lapack ($prec) went through the drop-in"
  fi
done
LD_PRELOAD=$dropin "$cli" info > "$work/info" 2>&1
grep 'LAPACK (lapack)' "$work/info"
grep 'LAPACK (lapack):.*dgetrf_ from ' "$work/info" | grep -qv liblinsolve_lapack ||
  fail "linsolve info does not name a real LAPACK under the preload"
[ "$fails" -eq 0 ] && echo "own_lapack: ok"
exit $((fails > 0))
