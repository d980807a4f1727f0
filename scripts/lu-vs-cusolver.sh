#!/usr/bin/env bash
# The lu-against-cuSOLVER table on a bare GPU machine: build linsolve with CUDA, then
# `linsolve bench --lu-vs-cusolver` over n = 256 ... 32768 in FP64 and FP32:
# our lu (gesv on device memory: the small-n kernel or getrf + getrs) against cuSOLVER's Xgetrf + Xgetrs,
# nrhs 1, the matrix already on the device, medians of REPEAT runs after a
# warm-up, both timed in one process (docs/benchmarks.md). Build ~1-2 min,
# sweep ~2 min on an H100; the sweep runs under BUDGET_S.
#
# usage: scripts/lu-vs-cusolver.sh [OUTDIR]
#   OUTDIR      default: $OUT if set, else /tmp/ls-lu-vs-cusolver
#   REPEAT      env, timed runs of each side (default 9; bench refuses < 5)
#   SIZES       env, default 256,512,1024,2048,4096,8192,16384,32768
#   PRECISIONS  env, default double,single
#   BUDGET_S    env, seconds the sweep may take (default 420)
#   JOBS, BUILD, LS_CUDA_ARCH (default 90) env, as in bench-gpu-suite.sh
#
# Writes OUTDIR/lu-vs-cusolver.csv (n,precision,lu_ms,cusolver_ms,ratio),
# OUTDIR/lu-vs-cusolver.txt (machine header, the table with residuals and
# TFLOP/s, notes) and OUTDIR/lu-vs-cusolver-build.txt. Exit status: the
# bench's (0 every row ok, 1 a row skipped or refused, 5 no CUDA backend),
# or 9 when the build fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${1:-${OUT:-/tmp/ls-lu-vs-cusolver}}
BUILD=${BUILD:-/tmp/build-lvc}
JOBS=${JOBS:-$(nproc)}
REPEAT=${REPEAT:-9}
SIZES=${SIZES:-256,512,1024,2048,4096,8192,16384,32768}
PRECISIONS=${PRECISIONS:-double,single}
mkdir -p "$OUTDIR"
START=$(date +%s)
log() { echo "[lu-vs-cusolver +$(($(date +%s) - START))s] $*"; }

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export PATH="$(dirname "$NVCC"):$PATH"
BLOG="$OUTDIR/lu-vs-cusolver-build.txt"
log "configure + build ($JOBS jobs) in $BUILD"
# Only the CUDA plugin and the tool: no tests, no OpenCL (the sweep needs neither).
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLS_WITH_CUDA=ON \
     -DLS_WITH_OPENCL=OFF -DLS_BUILD_TESTS=OFF -DLS_WERROR=OFF \
     -DLS_CUDA_ARCHITECTURES="${LS_CUDA_ARCH:-90}" -DCMAKE_CUDA_COMPILER="$NVCC" >"$BLOG" 2>&1 ||
   ! cmake --build "$BUILD" -j "$JOBS" >>"$BLOG" 2>&1; then
  log "BUILD FAILED"
  tail -30 "$BLOG"
  exit 9
fi
log "built"

TXT="$OUTDIR/lu-vs-cusolver.txt"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv 2>&1; echo; } >"$TXT"
CMD=("$BUILD/bin/linsolve" bench --lu-vs-cusolver --sizes "$SIZES" --precision "$PRECISIONS"
     --repeat "$REPEAT" --csv "$OUTDIR/lu-vs-cusolver.csv")
echo "# command: linsolve bench --lu-vs-cusolver --sizes $SIZES --precision $PRECISIONS" \
  "--repeat $REPEAT --csv lu-vs-cusolver.csv" >>"$TXT"
log "sweep (limit ${BUDGET_S:-420}s): ${CMD[*]}"
timeout --kill-after=10 "${BUDGET_S:-420}" "${CMD[@]}" >>"$TXT" 2>&1
rc=$?
[ $rc -eq 124 ] && log "TIME LIMIT reached: the CSV holds the rows finished so far"
log "sweep exit $rc"
cat "$TXT"
echo
cat "$OUTDIR/lu-vs-cusolver.csv"
exit $rc
