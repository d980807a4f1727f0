#!/bin/sh
# Soak: 10 000 mixed solves in one process (tests/hardening/soak.c):
# orders 16..512; lu, ge-coalesced, gj2, lu-seed, bicgstab where the
# backend has them; FP32 and FP64; every backend that opens. Each scaled
# residual is checked (<= 30); host RSS and CUDA device memory in use are
# compared between the end of the warm-up and the end of the run.
#
#   scripts/soak.sh [SOLVES] [BACKENDS]     # defaults: 10000 cpu,cuda,opencl
#
# LS_BUILD: the build directory (default build/). Extra test_soak options
# go in LS_SOAK_ARGS (e.g. "--max-n 256 --rss-slack 32"). Exit status:
# test_soak's: 0, or 1 on any wrong answer, failed solve or memory growth.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${LS_BUILD:-$root/build}
solves=${1:-10000}
backends=${2:-cpu,cuda,opencl}
bin=$build/bin/test_soak
if [ ! -x "$bin" ]; then
    echo "soak: $bin is not built (cmake --build $build --target test_soak)" >&2
    exit 2
fi
# shellcheck disable=SC2086 # LS_SOAK_ARGS is a list of options
exec "$bin" --solves "$solves" --backends "$backends" ${LS_SOAK_ARGS:-}
