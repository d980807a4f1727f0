#!/usr/bin/env bash
# One command, on a bare GPU machine: build linsolve with the CUDA backend and
# run the whole GPU measurement suite: the metrics, the roofline, the peer
# comparison (cuSOLVER, OpenBLAS), the timing tables of the published GPU
# methods (docs/references.md), every CUDA method and every OpenCL variant.
# About 11 minutes on an H100 (run 4: build 13 s, metrics + roofline 35 s,
# peers 161 s, seed003 98 s, seed002 ~10 s; cudatable ~180 s, opencl ~80 s).
# Every step runs under its own `timeout` (and BUDGET_S bounds the whole),
# sizes whose predicted time passes --time-limit are skipped (and the output
# says so), and a step that fails or runs out of time leaves the others
# standing.
#
# usage: scripts/bench-gpu-suite.sh [OUTDIR]
#   OUTDIR   default: $OUT if set, else /tmp/ls-bench-gpu-suite (bench/results/ keeps
#            only the curated current tables: copy what a run supersedes there by hand)
#   STEPS    env, steps to run (default: machine metrics roofline peers seed003 seed002
#            cudatable opencl). The table steps keep the names of their committed
#            result files: seed000 = Gaussian elimination naive/blocked/coalesced
#            (Li 2025; the ge-* part of cudatable, off by default), seed003 =
#            Gauss-Jordan with and without transfers (Quispe Ccapacca), seed002 =
#            the unblocked LU, lu-seed (Pattam). Under a 10-minute limit per
#            call run it as two calls, each into its own OUTDIR: STEPS="machine
#            metrics roofline peers seed003 seed002" (about 5.5 minutes) and
#            STEPS="machine cudatable opencl".
#   JOBS     env, build parallelism (default: nproc)
#   BUDGET_S env, seconds for the whole script: a step never runs past it and
#            one with under 15 s left is skipped (and the log says so)
#   LIMIT_PCT env, scales every step's time limit in percent (default 100)
#   LS_CUDA_ARCH env, CUDA architectures to build (default 90)
#
# Results: OUTDIR/bench-gpu-suite.tar.gz (everything) and OUTDIR/summary.txt
# (the short tables, also printed at the end). A caller that can take back
# only a few files gets everything from the tarball.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${1:-${OUT:-/tmp/ls-bench-gpu-suite}}
RES=$(mktemp -d /tmp/bench-gpu-suite.XXXXXX)
BUILD=${BUILD:-/tmp/build-bench-gpu-suite}
JOBS=${JOBS:-$(nproc)}
# seed000 (ge-* only) is a subset of cudatable and is off by default.
STEPS=${STEPS:-"machine metrics roofline peers seed003 seed002 cudatable opencl"}
mkdir -p "$OUTDIR"
START=$(date +%s)
log() { echo "[bench-gpu-suite +$(( $(date +%s) - START ))s] $*" | tee -a "$RES/log.txt"; }

# ------------------------------------------------------------------ deps
# OpenBLAS/LAPACKE from carried .debs when the machine lacks them (the CPU
# baselines need them): unpacked under /tmp, never into /.
if { ! echo '#include <lapacke.h>' | cc -E -x c - >/dev/null 2>&1 ||
     ! echo '#include <CL/cl.h>' | cc -E -x c - >/dev/null 2>&1; } &&
   ls "$ROOT"/.debs/*.deb >/dev/null 2>&1; then
  DEB=/tmp/lsdebs
  mkdir -p "$DEB"
  for f in "$ROOT"/.debs/*.deb; do dpkg -x "$f" "$DEB"; done
  LIBS="$DEB/usr/lib/x86_64-linux-gnu"
  export CMAKE_INCLUDE_PATH="$DEB/usr/include:$DEB/usr/include/x86_64-linux-gnu${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}"
  export CMAKE_LIBRARY_PATH="$LIBS/openblas-pthread:$LIBS${CMAKE_LIBRARY_PATH:+:$CMAKE_LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$LIBS/openblas-pthread:$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LIBRARY_PATH="$LIBS/openblas-pthread:$LIBS${LIBRARY_PATH:+:$LIBRARY_PATH}"
  log "using OpenBLAS/LAPACKE unpacked from .debs into $DEB"
fi
MATDIR=()
[ -d "$ROOT/.matrices/real" ] && MATDIR=(-DLS_MATRICES_DIR="$ROOT/.matrices")

# ------------------------------------------------------------------ build
log "configure + build ($JOBS jobs)"
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLS_WITH_CUDA=ON \
     -DLS_WITH_OPENCL="${LS_WITH_OPENCL:-ON}" -DLS_BUILD_TESTS=OFF -DLS_WERROR=OFF \
     -DLS_CUDA_ARCHITECTURES="${LS_CUDA_ARCH:-90}" "${MATDIR[@]}" >"$RES/build.txt" 2>&1 ||
   ! cmake --build "$BUILD" -j "$JOBS" >>"$RES/build.txt" 2>&1; then
  log "BUILD FAILED (tail of build.txt follows)"
  tail -40 "$RES/build.txt" | tee -a "$RES/log.txt"
  tar -C "$RES" -czf "$OUTDIR/bench-gpu-suite.tar.gz" . && cp "$RES/log.txt" "$OUTDIR/summary.txt"
  exit 1
fi
LS="$BUILD/bin/linsolve"
export OMP_WAIT_POLICY=passive   # idle OpenMP threads must not steal OpenBLAS's cores
. "$ROOT/scripts/openblas-coretype.sh"   # OpenBLAS at its best (see there)
log "built: $LS"

step() { # name timeout_s command...   (LIMIT_PCT scales every limit, default 100)
  local name=$1 limit=$(( $2 * ${LIMIT_PCT:-100} / 100 )); shift 2
  if [ -n "${BUDGET_S:-}" ]; then # never past START + BUDGET_S
    local left=$(( START + BUDGET_S - $(date +%s) ))
    [ "$limit" -gt "$left" ] && limit=$left
    if [ "$limit" -lt 15 ]; then log "step $name: SKIPPED (BUDGET_S=$BUDGET_S spent)"; return 0; fi
  fi
  log "step $name (limit ${limit}s): $*"
  timeout --signal=TERM --kill-after=10 "$limit" "$@" >"$RES/$name.txt" 2>"$RES/$name.err"
  local rc=$?
  [ $rc -eq 124 ] && log "step $name: TIME LIMIT reached, partial output kept"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && log "step $name: exit $rc (see $name.err)"
  return 0
}
want() { [[ " $STEPS " == *" $1 "* ]]; }

if want machine; then
  { nvidia-smi -q 2>&1 | head -80; lscpu 2>&1 | head -25; } >"$RES/machine.txt"
  "$LS" info >>"$RES/machine.txt" 2>&1
fi
# Occupancy (formula vs CUDA) for every kernel, transactions, CGMA, breakdown.
if want metrics; then
  step metrics_fp64 30 "$LS" metrics --backend cuda --precision double --n 4096 \
    --cgma-sizes 50,80,100,200,500,1000,2048,4096 --breakdown-sizes 50,100,200,500,1000,2048,4096 \
    --gemm-sizes 1024,2048,4096
  step metrics_fp32 20 "$LS" metrics --backend cuda --precision single --n 4096 \
    --cgma-sizes 50 --breakdown-sizes 500 --gemm-sizes 2048,4096
fi
# The roofline of Li (2025): ceilings, intensity sweep 1..50000, methods placed.
if want roofline; then
  step roofline_fp32 40 "$LS" roofline --backend cuda --precision single --n 4096 \
    --method-n 2048 --dir "$RES/roofline_fp32"
  step roofline_fp64 35 "$LS" roofline --backend cuda --precision double --n 4096 \
    --method-n 2048 --dir "$RES/roofline_fp64"
fi
# Peers: our best dense method (lu) vs cuSOLVER getrf/getrs, IRS, OpenBLAS.
if want peers; then
  step peers 170 "$LS" bench --backends cuda --methods lu --sizes 1024,4096,16384 \
    --precision double,single --repeat 2 --rotate 2 --time-limit 35 --baseline-time-limit 3 \
    --format csv
fi
# Li (2025)'s table: Gaussian elimination naive / blocked / coalesced, n = 512 .. 8192.
if want seed000; then
  step seed000 130 "$LS" bench --backends cuda --methods ge-naive,ge-blocked,ge-coalesced \
    --sizes 512,1024,2048,4096,8192 --precision single,double --repeat 3 --time-limit 12 \
    --baseline-time-limit 3 --no-peers --format csv
fi
# Quispe Ccapacca's Gauss-Jordan tables, with and without transfers: gj1, gj2,
# n = 1000 .. 10000, float.
if want seed003; then
  step seed003 130 "$LS" bench --backends cuda --methods gj1,gj2 \
    --sizes 1000,2000,3000,4000,5000,6000,7000,8000,10000 --precision single --repeat 2 \
    --rotate 1 --time-limit 10 --baseline-time-limit 3 --no-peers --format csv
fi
# Pattam's unblocked LU (lu-seed) times; its CGMA and breakdown are in metrics.
if want seed002; then
  step seed002 30 "$LS" bench --backends cuda --methods lu-seed \
    --sizes 50,80,100,200,500,1000,2048,4096 --precision double --repeat 3 --time-limit 8 \
    --no-peers --format csv
fi

# Every CUDA method, FP32 and FP64, n = 512..8192
# (bicgstab on a diagonally dominant matrix; it is judged by its residual).
if want cudatable; then
  step cudatable 200 "$LS" bench --backends cuda \
    --methods ge-naive,ge-blocked,ge-coalesced,lu-seed,gj1,gj2,lu,bicgstab \
    --sizes 512,1024,2048,4096,8192 --precision single,double --repeat 1 --rotate 1 \
    --time-limit 6 --baseline-time-limit 2 --no-peers --format csv
fi
# OpenCL on NVIDIA's driver: register its ICD, pick the NVIDIA device, time
# every variant (FP32; image ping-pong is float only).
if want opencl && [ -x "$ROOT/scripts/opencl-nvidia-icd.sh" -o -f "$ROOT/scripts/opencl-nvidia-icd.sh" ]; then
  eval "$(sh "$ROOT/scripts/opencl-nvidia-icd.sh" 2>>"$RES/log.txt")"
  for i in 0 1 2 3; do
    if LS_OPENCL_DEVICE=$i "$LS" solve "$ROOT/.matrices/real/full.mtx" --backend opencl --json \
        2>/dev/null | grep -q '"device": "opencl:[0-9]* NVIDIA'; then
      export LS_OPENCL_DEVICE=$i; break
    fi
  done
  log "opencl: NVIDIA device index ${LS_OPENCL_DEVICE:-not found}"
  step opencl 110 "$LS" bench --backends opencl \
    --methods ge-naive,ge-blocked,ge-coalesced,ge-buffer,ge-image,gj1,gj2,lu \
    --sizes 1024,2048,4096,8192 --precision single --repeat 1 --rotate 1 --time-limit 4 \
    --baseline-time-limit 1 --no-peers --format csv
fi

# ------------------------------------------------------------------ plots
# gnuplot when present (roofline already drew it); else matplotlib from CSV.
for d in "$RES"/roofline_fp32 "$RES"/roofline_fp64; do
  [ -d "$d" ] || continue
  [ -s "$d/roofline.png" ] && continue
  python3 - "$d" <<'PY' >>"$RES/log.txt" 2>&1 || log "no plot for $d (CSV and roofline.gp are there)"
import csv, re, sys
d = sys.argv[1]
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
gp = open(d + "/roofline.gp").read()
val = lambda k: float(re.search(r"^%s = (\S+)" % k, gp, re.M).group(1))
bw, peak, ridge = val("bw"), val("peak"), val("ridge")
sw = list(csv.DictReader(open(d + "/roofline_sweep.csv")))
me = list(csv.DictReader(open(d + "/roofline_methods.csv")))
xs = [10 ** (e / 20) for e in range(-40, 81)]
plt.figure(figsize=(10, 7))
plt.loglog(xs, [min(x * bw, peak) for x in xs], label="measured roof (ridge %.2f flop/B)" % ridge)
plt.loglog([float(r["intensity"]) for r in sw], [float(r["gflops"]) for r in sw], "x-", label="intensity sweep")
for r in me:
    plt.loglog(float(r["intensity"]), float(r["gflops"]), "o")
    plt.annotate(r["method"], (float(r["intensity"]), float(r["gflops"])))
plt.axvline(ridge, ls="--")
plt.xlabel("operational intensity (flop/byte)"); plt.ylabel("GFLOP/s"); plt.legend()
plt.title(re.search(r"set title '(.*)'", gp).group(1))
plt.savefig(d + "/roofline.png", dpi=100)
print("matplotlib plot:", d + "/roofline.png")
PY
done

# ------------------------------------------------------------------ summary
{
  echo "# bench-gpu-suite summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(( $(date +%s) - START )) s)"
  for f in machine metrics_fp64 roofline_fp32 roofline_fp64 peers seed000 seed003 seed002 \
           cudatable opencl metrics_fp32; do
    [ -f "$RES/$f.txt" ] || continue
    echo; echo "==================== $f"
    if [ "$f" = machine ]; then grep -E "Product Name|Driver Version|CUDA Version|Model name" "$RES/$f.txt" | head -6
    else cat "$RES/$f.txt"; [ -s "$RES/$f.err" ] && { echo "-- stderr:"; tail -5 "$RES/$f.err"; }; fi
  done
  echo; echo "==================== log"; cat "$RES/log.txt"
} >"$RES/summary.txt"
cp "$RES/summary.txt" "$OUTDIR/summary.txt"
for d in roofline_fp32 roofline_fp64; do
  [ -s "$RES/$d/roofline.png" ] && cp "$RES/$d/roofline.png" "$OUTDIR/$d.png"
done
tar -C "$RES" -czf "$OUTDIR/bench-gpu-suite.tar.gz" .
log "done: $OUTDIR/bench-gpu-suite.tar.gz, $OUTDIR/summary.txt"
tail -c 9000 "$RES/summary.txt"
