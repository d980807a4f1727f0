/* The two triangular solves of a blocked LU (L11^-1 A12 and A21 U11^-1)
 * in diagonal blocks, each followed by a GEMM update of what lies beyond
 * it, so most of the work runs in GEMM rather than in cuBLAS trsm, whose
 * kernels take a large share of the look-ahead LU and the no-pivoting LU
 * (bench/results/h100/lu-profile-8192.txt, mixed-rbt-profile.txt). The
 * distributed engine does the same for its U12 (src/dist/cuda/
 * engine_cuda_blas.c, LS_DIST_CUDA_TRSM_BLOCK). */
#include "cuda/common/cuda_backend.h"
#include "cuda/common/typed.h"

#define LS_REAL_IMPL "cuda/common/trsm_blocked_impl.h"
#include "common/instantiate_real.h"
