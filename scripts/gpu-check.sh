#!/usr/bin/env bash
# Build the CUDA backend on a GPU machine with nothing prepared and check it:
# the cuda_* ctest suite, then compute-sanitizer memcheck and racecheck over
# a small sweep (test_cuda_solve --sanitize, test_cuda_gemm), then lu timings.
# Logs go to $OUT (if set) or /tmp/ls-gpu-check. Exit status: 0 if every
# verdict is PASS.
#
# Environment: BUILD (build folder, default /tmp/ls-gpu-build),
#   LS_WITH_OPENCL (default OFF), LS_CUDA_ARCH (default 90),
#   LS_TIME_LU_SIZES (default "1024 4096 8192 16384"; empty skips timing),
#   SAN_TOOLS (default "memcheck racecheck"), SAN_TIMEOUT (seconds per run, 300),
#   LS_WERROR (default OFF: this checks the GPU, CI checks the warnings).
# At most 8 files are written to $OUT (the GPU machine's runner brings back no more).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG=${OUT:-/tmp/ls-gpu-check}
BUILD=${BUILD:-/tmp/ls-gpu-build}
JOBS=$(nproc 2>/dev/null || echo 4)
mkdir -p "$LOG"
declare -a VERDICTS=()
verdict() { VERDICTS+=("$1: $2"); echo "== $1: $2"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$LOG/verdicts.txt"

# OpenBLAS/LAPACKE from the carried .debs when the machine lacks them.
CMAKE_EXTRA=()
if ! echo '#include <lapacke.h>' | cc -E -x c - >/dev/null 2>&1; then
  if ls "$ROOT"/.debs/*.deb >/dev/null 2>&1; then
    echo "lapacke.h not found: unpacking $ROOT/.debs into /tmp/ls-deps"
    for f in "$ROOT"/.debs/*.deb; do dpkg -x "$f" /tmp/ls-deps; done
    P=/tmp/ls-deps/usr
    L=$P/lib/x86_64-linux-gnu
    CMAKE_EXTRA+=("-DCMAKE_PREFIX_PATH=$P" "-DCMAKE_C_FLAGS=-I$P/include"
                  "-DCMAKE_LIBRARY_PATH=$L;$L/openblas-pthread"
                  "-DCMAKE_INCLUDE_PATH=$P/include")
    export LD_LIBRARY_PATH="$L:$L/openblas-pthread:${LD_LIBRARY_PATH:-}"
    export LIBRARY_PATH="$L:$L/openblas-pthread:${LIBRARY_PATH:-}"
  else
    echo "lapacke.h not found and no .debs: building without LAPACKE"
  fi
fi
MATRICES=${LS_MATRICES_DIR:-$ROOT/.matrices}
# cuBLAS for the dlopen'd plugin, wherever the toolkit lives.
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export PATH="$(dirname "$NVCC"):$PATH"
CUDA_HOME_DIR=$(cd "$(dirname "$NVCC")/.." && pwd)
export LD_LIBRARY_PATH="$CUDA_HOME_DIR/lib64:$CUDA_HOME_DIR/lib:${LD_LIBRARY_PATH:-}"

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DLS_WITH_CUDA=ON -DLS_WITH_OPENCL="${LS_WITH_OPENCL:-OFF}" \
  -DLS_CUDA_ARCHITECTURES="${LS_CUDA_ARCH:-90}" -DLS_MATRICES_DIR="$MATRICES" \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DLS_WERROR="${LS_WERROR:-OFF}" \
  "${CMAKE_EXTRA[@]}" >"$LOG/configure.log" 2>&1
rc=$?
[ $rc -eq 0 ] && verdict configure PASS || { verdict configure "FAIL (see configure.log)"; tail -30 "$LOG/configure.log"; }

# Others' tools may be mid-edit: fall back to the CUDA targets alone.
if cmake --build "$BUILD" -j"$JOBS" >"$LOG/build.log" 2>&1; then
  verdict build PASS
else
  echo "full build failed (tail below); building the CUDA targets only"
  grep -E "error" "$LOG/build.log" | head -20
  if cmake --build "$BUILD" -j"$JOBS" --target linsolve_cuda linsolve_cuda_perf test_cuda_solve test_cuda_gemm \
      >>"$LOG/build.log" 2>&1; then
    verdict build "PASS (CUDA targets only)"
  else
    verdict build FAIL
    tail -40 "$LOG/build.log"
  fi
fi

ctest --test-dir "$BUILD" -R '^cuda_' -V --timeout "${CTEST_TIMEOUT:-300}" -j"${CTEST_JOBS:-4}" \
  >"$LOG/ctest.log" 2>&1
rc=$?
grep -E "tests passed|Test +#|Skipped|Failed|\*\*\*" "$LOG/ctest.log" | grep -v "^[0-9]*: " | tail -25
[ $rc -eq 0 ] && verdict ctest PASS || verdict ctest "FAIL (rc $rc, see ctest.log)"
grep -q "Skipped" "$LOG/ctest.log" && verdict ctest-skips "WARNING: some cuda_ tests skipped"

SIZES=${LS_TIME_LU_SIZES-1024 4096 8192 16384}
if [ -n "$SIZES" ]; then
  timeout 240 "$BUILD/bin/test_cuda_solve" --time-lu $SIZES 2>&1 | tee "$LOG/time_lu.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] && verdict lu-timing PASS || verdict lu-timing FAIL
fi

SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$SAN" ]; then
  : >"$LOG/sanitizer.log"
  for tool in ${SAN_TOOLS:-memcheck racecheck}; do
    ok=1
    for cmd in "$BUILD/bin/test_cuda_solve --sanitize" "$BUILD/bin/test_cuda_gemm --sanitize"; do
      name=$(basename "${cmd%% *}")
      echo "######## $tool $cmd" >>"$LOG/sanitizer.log"
      timeout "${SAN_TIMEOUT:-300}" "$SAN" --tool "$tool" --error-exitcode 99 $cmd \
        >/tmp/ls-san.log 2>&1
      r=$?
      cat /tmp/ls-san.log >>"$LOG/sanitizer.log"
      echo "$tool $name: rc $r; $(tail -1 /tmp/ls-san.log)"
      found=$(grep -c -E "^========= +(Invalid|Error|Race|.*[Hh]azard)" /tmp/ls-san.log)
      if [ $r -eq 124 ] && [ "$found" -eq 0 ]; then
        # racecheck is slow (about 10 ms a launch): say how far it got
        [ $ok -eq 1 ] && ok=2
        echo "$tool $name: timed out after ${SAN_TIMEOUT:-300} s, no report in the part that ran"
      elif [ $r -ne 0 ]; then
        ok=0
        grep -m5 -E "=====.*(Error|Invalid|hazard)" /tmp/ls-san.log
      fi
    done
    case $ok in
      1) verdict "$tool" PASS ;;
      2) verdict "$tool" "INCOMPLETE (timed out, no error reported before that)" ;;
      *) verdict "$tool" FAIL ;;
    esac
  done
else
  verdict sanitizer "NOT RUN (no compute-sanitizer)"
fi

echo "---- verdicts ----" | tee -a "$LOG/verdicts.txt"
fail=0
for v in "${VERDICTS[@]}"; do
  echo "$v" | tee -a "$LOG/verdicts.txt"
  case "$v" in *FAIL*) fail=1 ;; esac
done
exit $fail
