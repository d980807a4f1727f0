#!/usr/bin/env bash
# README command 2 (and CI): install missing packages, build everything with
# warnings as errors, and run every test. CUDA tests skip without a GPU;
# OpenCL tests run for real on PoCL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# OpenMP threads that spin while idle starve OpenBLAS and each other on 2 cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DLS_WERROR=ON ${LS_CMAKE_ARGS:-}
cmake --build build-test -j "$(nproc)"
ctest --test-dir build-test --output-on-failure -j "$(nproc)" --timeout 600
