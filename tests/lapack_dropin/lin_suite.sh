#!/usr/bin/env bash
# LAPACK's own LIN test programs (Debian's liblapack-test) on the GE path,
# run with the drop-in preloaded and one path forced:
#     lin_suite.sh d|s cpu|cuda|opencl|system DROPIN.so LAPACK_TEST_DIR
# Passes when the program's summary reports every GE routine and driver
# test under the threshold (30) and every error exit detected, and the
# trace shows that getrf, getrs (N, T and C), gesv and the error exits all
# went through the drop-in on the forced path. Exit 77 (skipped) without
# liblapack-test, or for cuda without a GPU.
set -uo pipefail
prec=$1 backend=$2 dropin=$3 testdir=$4
P=$(echo "$prec" | tr a-z A-Z)
prog=$testdir/xlintst$prec input=$testdir/${prec}test.in
if [ ! -x "$prog" ] || [ ! -f "$input" ]; then
  echo "skipped: $prog or $input missing (Debian package liblapack-test)"
  exit 77
fi
if [ "$backend" = cuda ] && ! { [ -e /dev/nvidiactl ] && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "skipped: no NVIDIA GPU here (the cuda path is tested on a GPU machine)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The shipped input up to its last setting (the error-exit switch), with the
# threshold checked, then the GE path alone with all 11 matrix types.
awk '{ print } /test the error exits/ { exit }' "$input" > "$work/ge.in"
if ! grep -q '^30.0 .*Threshold' "$work/ge.in"; then
  echo "FAILED: $input no longer sets threshold 30.0:"; cat "$work/ge.in"; exit 1
fi
echo "${P}GE   11" >> "$work/ge.in"

LD_PRELOAD=$dropin LS_LAPACK_BACKEND=$backend LS_LAPACK_TRACE=1 LS_LAPACK_VERBOSE=1 \
  "$prog" < "$work/ge.in" > "$work/out" 2> "$work/trace"
rc=$?

echo "== $(basename "$prog") < GE path of $(basename "$input"), LD_PRELOAD=$(basename "$dropin"), LS_LAPACK_BACKEND=$backend"
grep -E 'test ratio is less than|error exits|threshold|tests run|[Ff]ail|\*\*\*|End of tests' "$work/out"
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
[ "$rc" -eq 0 ] || fail "$(basename "$prog") exited with status $rc"
for what in "${P}GE routines passed the tests of the error exits" \
            "All tests for ${P}GE routines passed the threshold" \
            "${P}GE drivers passed the tests of the error exits" \
            "All tests for ${P}GE drivers  passed the threshold" \
            "End of tests"; do
  grep -qF "$what" "$work/out" || fail "no line '$what'"
done
grep -qiE 'fail|\*\*\*' "$work/out" && fail "the summary reports failures"

echo "== trace: intercepted calls by routine and path"
grep -v '^liblinsolve_lapack: warning' "$work/trace" |
  awk '{ r = $2; p = ""; t = ""
         for (i = 3; i <= NF; i++) { if ($i ~ /^path=/) p = $i; if ($i ~ /^trans=/) t = " " $i }
         n[r t " " p]++ }
       END { for (k in n) printf "  %7d  %s\n", n[k], k }' | sort -k2
grep '^liblinsolve_lapack: warning' "$work/trace"
other=$(grep -v '^liblinsolve_lapack: warning' "$work/trace" |
        grep -vcE "path=($backend|illegal) ")
[ "$other" -eq 0 ] || fail "$other call(s) took another path than $backend"
for want in "${prec}getrf_ .*path=$backend" "${prec}getrs_ .*trans=N path=$backend" \
            "${prec}getrs_ .*trans=T path=$backend" "${prec}getrs_ .*trans=C path=$backend" \
            "${prec}gesv_ .*path=$backend" "${prec}getrf_ .*path=illegal" \
            "${prec}getrs_ .*path=illegal" "${prec}gesv_ .*path=illegal"; do
  grep -qE "^liblinsolve_lapack: $want " "$work/trace" || fail "no traced call matching '$want'"
done
# LAPACK's error-exit tests give getrf 3, getrs 5 and gesv 4 illegal calls.
illegal=$(grep -c 'path=illegal' "$work/trace")
[ "$illegal" -ge 12 ] || fail "only $illegal error-exit calls intercepted (12 expected)"
[ "$fails" -eq 0 ] && echo "lin_suite: ok"
exit $((fails > 0))
