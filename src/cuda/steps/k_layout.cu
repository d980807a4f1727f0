/* Layout kernels: the seed methods work on a row-major augmented matrix
 * [A | B] (as seeds 000 and 003 do), built on the device from the
 * column-major input, and hand X back column-major.
 * Defines: lsk_build_augmented_d, lsk_build_augmented_s, lsk_extract_rhs_d,
 *   lsk_extract_rhs_s, lsk_reg_layout_d, lsk_reg_layout_s */
#include "cuda/common/k_common.cuh"
#include "cuda/steps/k_steps.h"

/* One thread per element of M; reads of the column-major source are
 * strided, writes to M coalesced (a 2-D tile transpose is not worth it for
 * a once-per-solve copy). */
template <typename T>
__global__ void lsk_build_augmented_kernel(int n, int nrhs, const T *A, int lda, const T *B,
                                           int ldb, T *M, long long ldm)
{
    long long w = (long long)n + nrhs;
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)n * w)
        return;
    int i = (int)(idx / w);
    int j = (int)(idx % w);
    M[(long long)i * ldm + j] =
        j < n ? A[i + (long long)j * lda] : B[i + (long long)(j - n) * ldb];
}

template <typename T>
__global__ void lsk_extract_rhs_kernel(int n, int nrhs, const T *M, long long ldm, int divide,
                                       T *X, int ldx)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)n * nrhs)
        return;
    int i = (int)(idx % n);
    int r = (int)(idx / n);
    T v = M[(long long)i * ldm + n + r];
    if (divide)
        v /= M[(long long)i * ldm + i];
    X[i + (long long)r * ldx] = v;
}

template <typename T>
static cudaError_t build_augmented(int n, int nrhs, const T *dA, int lda, const T *dB, int ldb,
                                   T *dM, long long ldm, cudaStream_t s)
{
    long long work = (long long)n * (n + nrhs);
    if (work == 0)
        return cudaSuccess;
    lsk_build_augmented_kernel<T><<<lsk_blocks(work, LSK_ROWOP_THREADS), LSK_ROWOP_THREADS, 0, s>>>(
        n, nrhs, dA, lda, dB, ldb, dM, ldm);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BUILD_AUGMENTED_SIG, build_augmented, (n, nrhs, dA, lda, dB, ldb, dM, ldm, s))

template <typename T>
static cudaError_t extract_rhs(int n, int nrhs, const T *dM, long long ldm, int divide_by_diag,
                               T *dX, int ldx, cudaStream_t s)
{
    long long work = (long long)n * nrhs;
    if (work == 0)
        return cudaSuccess;
    lsk_extract_rhs_kernel<T><<<lsk_blocks(work, LSK_ROWOP_THREADS), LSK_ROWOP_THREADS, 0, s>>>(
        n, nrhs, dM, ldm, divide_by_diag, dX, ldx);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_EXTRACT_RHS_SIG, extract_rhs, (n, nrhs, dM, ldm, divide_by_diag, dX, ldx, s))

template <typename T>
static int reg_layout(ls_cuda_kernel_desc *out)
{
    int count = 0;
    const char *m = "ge-naive,ge-blocked,ge-coalesced,gj1,gj2";
    LSK_REG("build_augmented", m, lsk_build_augmented_kernel<T>, LSK_ROWOP_THREADS, 0);
    LSK_REG("extract_rhs", m, lsk_extract_rhs_kernel<T>, LSK_ROWOP_THREADS, 0);
    return count;
}
LSK_DEFINE(LSK_REG_LAYOUT_SIG, reg_layout, (out))
