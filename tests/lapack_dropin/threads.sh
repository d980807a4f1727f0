#!/usr/bin/env bash
# Runs threads.c (16 threads x 100 solves, then a fork):
#     threads.sh plain BINARY DROPIN.so   the shipped library via LD_PRELOAD,
#                                         on the cpu path and on the default one
#     threads.sh tsan BINARY -            the ThreadSanitizer build, on the path
#                                         the environment sets, without the fork
# With LS_LAPACK_TRACE=1 every call must appear as one whole trace line.
set -uo pipefail
kind=$1 bin=$2 dropin=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 args=
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }

# run LABEL ENV... : one run, stdout and stderr kept apart
run() {
  local label=$1; shift
  env "$@" "$bin" $args > "$work/out" 2> "$work/err"
  local rc=$?
  echo "== $label: exit status $rc"
  cat "$work/out"
  grep -v '^liblinsolve_lapack: [ds]ge' "$work/err" | head -n 60
  if grep -q 'FATAL: ThreadSanitizer' "$work/err"; then
    echo "skipped: ThreadSanitizer cannot run on this machine (its message is above;"
    echo "typically a kernel whose address-space randomisation exceeds what this libtsan maps)"
    exit 77
  fi
  grep -q 'WARNING: ThreadSanitizer' "$work/err" && fail "$label: ThreadSanitizer report"
  [ "$rc" -eq 0 ] || fail "$label: exit status $rc"
  if [ "${LS_LAPACK_TRACE:-}" = 1 ] || printf '%s\n' "$@" | grep -qx 'LS_LAPACK_TRACE=1'; then
    local want traced whole
    want=$(awk '/^(child )?calls:/ { s += $NF } END { print s + 0 }' "$work/out")
    traced=$(grep -c '^liblinsolve_lapack: [ds]ge' "$work/err")
    whole=$(grep -cE '^liblinsolve_lapack: [ds]ge(sv|trf|trs)_( m=[0-9]+)? n=[0-9]+ nrhs=[0-9]+( trans=[NTC])? path=[a-z]+ time=[-+.e0-9]+ info=-?[0-9]+$' "$work/err")
    echo "trace: $traced line(s) for $want call(s), $whole well-formed; paths:" \
         $(grep -o 'path=[a-z]*' "$work/err" | sort | uniq -c | tr '\n' ' ')
    [ "$traced" -eq "$want" ] && [ "$whole" -eq "$want" ] || fail "$label: trace lines do not match the calls"
  fi
}

if [ "$kind" = plain ]; then
  run "preloaded, LS_LAPACK_BACKEND=cpu" LD_PRELOAD="$dropin" LS_LAPACK_BACKEND=cpu LS_LAPACK_TRACE=1
  grep -q 'path=cpu' "$work/err" || fail "the cpu path never ran"
  run "preloaded, default routing" LD_PRELOAD="$dropin" LS_LAPACK_TRACE=1 LS_LAPACK_VERBOSE=1
else
  # no fork under ThreadSanitizer (threads.c says why); the plain run forks
  args=--no-fork
  run "ThreadSanitizer, LS_LAPACK_BACKEND=${LS_LAPACK_BACKEND:-auto}" \
    TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}"
fi
[ "$fails" -eq 0 ] && echo "threads: ok"
exit $((fails > 0))
