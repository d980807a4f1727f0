#!/usr/bin/env bash
# README command 2 (and CI): install missing packages, build everything with
# warnings as errors, and run every test. CUDA tests skip without a GPU;
# OpenCL tests run for real on PoCL, Debian's and, in a chroot where this
# machine can make one, Ubuntu 24.04's (PoCL 5.0: src/opencl/kernels/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# OpenMP threads that spin while idle starve OpenBLAS and each other on 2 cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DLS_WERROR=ON ${LS_CMAKE_ARGS:-}
cmake --build build-test -j "$(nproc)"
ctest --test-dir build-test --output-on-failure -j "$(nproc)" --timeout 600
# LS_POCL_DISTRO=0 leaves it out (it downloads a minimal Ubuntu root once,
# into /var/tmp/ls-pocl-noble)
rc=77
if [ "${LS_POCL_DISTRO:-1}" != 0 ]; then
  rc=0
  bash scripts/opencl-pocl-distro.sh build-test noble build-test/opencl-pocl-noble.txt || rc=$?
fi
case $rc in
0) echo "OpenCL tests on Ubuntu 24.04's PoCL 5.0: passed" ;;
77) echo "OpenCL tests on Ubuntu 24.04's PoCL 5.0: skipped" ;;
*) cat build-test/opencl-pocl-noble.txt; echo "OpenCL tests on Ubuntu 24.04's PoCL 5.0: FAILED"; exit 1 ;;
esac
