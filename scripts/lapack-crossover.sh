#!/usr/bin/env bash
# Where the LAPACK drop-in should start sending dgesv_/sgesv_ to the GPU:
# the same unmodified program (lapack_crossover, linked to the system
# LAPACK) under LD_PRELOAD=liblinsolve_lapack.so with LS_LAPACK_BACKEND=system
# and =cuda, wall time per call with host<->device transfers, median of
# REPEAT (default 5) after a warm-up.
#   scripts/lapack-crossover.sh BUILD_DIR OUT.csv [N...]
# CROSS_BACKEND=cpu|opencl compares another backend. Writes
# n,precision,system_ms,cuda_ms,speedup and prints, per precision,
# the smallest n from which the GPU wins at every larger n of the sweep.
set -euo pipefail
build=$1 out=$2
shift 2
sizes=${*:-"16 32 64 128 192 256 384 512 768 1024 1536 2048 4096 8192"}
prog=$build/bin/lapack_crossover dropin=$build/lib/liblinsolve_lapack.so
[ -x "$prog" ] && [ -f "$dropin" ] || { echo "lapack-crossover: build $build lacks $prog or $dropin" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in d s; do
  for b in system ${CROSS_BACKEND:-cuda}; do
    LD_PRELOAD=$dropin LS_LAPACK_BACKEND=$b LS_LAPACK_MIN_N=0 "$prog" $p "${REPEAT:-5}" $sizes >"$tmp/$p-$b.csv"
  done
done
echo "n,precision,system_ms,${CROSS_BACKEND:-cuda}_ms,speedup" >"$out"
for p in d s; do
  paste -d, "$tmp/$p-system.csv" "$tmp/$p-${CROSS_BACKEND:-cuda}.csv" |
    awk -F, '{printf "%d,%s,%.4f,%.4f,%.2f\n", $2, $1, $3, $7, $3 / $7}' >>"$out"
done
cat "$out"
for prec in double single; do
  awk -F, -v p=$prec 'NR > 1 && $2 == p {n[++k] = $1; s[k] = $5}
    END {c = ""; for (i = k; i >= 1 && s[i] > 1; i--) c = n[i];
         print p ": the GPU wins from n = " (c == "" ? "(never in this sweep)" : c)}' "$out"
done
