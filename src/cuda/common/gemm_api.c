/* The tiled GEMM of Panchatcharam et al. (2013) as a C entry point, for tests and metrics. */
#include "cuda/common/cuda_backend.h"
#include "cuda/common/kernels.h"

LS_API int ls_cuda_gemm_tiled(int prec, int tile, int m, int n, int k, const void *dA, int lda,
                       const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream)
{
    if (m < 0 || n < 0 || k < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1) ||
        ldc < (m > 1 ? m : 1) || (tile != 8 && tile != 16 && tile != 32))
        return LS_EINVAL;
    cudaError_t e =
        prec == LS_DOUBLE
            ? lsk_gemm_tiled_d(tile, m, n, k, (const double *)dA, lda, (const double *)dB, ldb,
                               (double *)dC, ldc, stream)
            : lsk_gemm_tiled_s(tile, m, n, k, (const float *)dA, lda, (const float *)dB, ldb,
                               (float *)dC, ldc, stream);
    return e == cudaSuccess ? 0 : (e == cudaErrorMemoryAllocation ? LS_EDEVMEM : LS_EDEVICE);
}
