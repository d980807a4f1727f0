#!/usr/bin/env bash
# The drop-in's GPU-side checks on a machine with an NVIDIA GPU, from a
# build that has the CUDA plugin:
#     gpu_check.sh BUILD_DIR LIBDIR
# LIBDIR holds Debian's liblapack-test (LIBDIR/lapack/xlintst*) and the
# reference LAPACK and BLAS (LIBDIR/lapack, LIBDIR/blas): /usr/lib/<triplet>,
# or where a GPU machine without network access unpacked the packages. Runs LAPACK's LIN GE suite
# through CUDA (both precisions), the NaN/Inf comparison through CUDA, and
# the threads program with every call routed to the GPU.
set -uo pipefail
build=$1 libdir=$2
here=$(cd "$(dirname "$0")" && pwd)
dropin=$build/lib/liblinsolve_lapack.so
fails=0
for prec in d s; do
  bash "$here/lin_suite.sh" $prec cuda "$dropin" "$libdir/lapack" || fails=$((fails + 1))
done
bash "$here/nan_inf.sh" "$build/bin/test_lapack_nan_inf" "$dropin" cuda "$libdir" ||
  fails=$((fails + 1))
OPENBLAS_NUM_THREADS=1 LS_LAPACK_MIN_N=0 bash "$here/threads.sh" plain \
  "$build/bin/test_lapack_threads" "$dropin" || fails=$((fails + 1))
echo "gpu_check: $fails failure(s)"
exit $((fails > 0))
