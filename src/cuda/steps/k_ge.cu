/* Elimination steps of seeds 000 and 003 on the row-major augmented matrix
 * M = [A | B] (n x w, w = n + nrhs). Column k below (or above) the pivot is
 * left as it is: the substitution reads only the upper triangle, so zeroing
 * it would be traffic for nothing. A zero pivot (singular column, recorded
 * by the pivot search) skips the step, as LAPACK skips the scaling.
 * Defines: lsk_ge_naive_step_d, lsk_ge_naive_step_s, lsk_ge_blocked_step_d,
 *   lsk_ge_blocked_step_s, lsk_elim_elements_d, lsk_elim_elements_s,
 *   lsk_reg_ge_d, lsk_reg_ge_s */
#include "cuda/common/k_common.cuh"
#include "cuda/steps/k_steps.h"

/* ge-naive: thread = row. Consecutive threads walk different rows of a
 * row-major matrix, so their accesses are uncoalesced: that is the point of
 * the seed's comparison. */
template <typename T>
__global__ void lsk_ge_naive_kernel(int n, int w, T *M, long long ldm, int k)
{
    int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    /* restrict: rows i != k never overlap, and it lets the compiler keep
     * several loads of the row in flight */
    const T *__restrict__ prow = M + (long long)k * ldm;
    T pivot = prow[k];
    if (pivot == (T)0)
        return;
    T *__restrict__ row = M + (long long)i * ldm;
    T f = row[k] / pivot;
    for (int j = k + 1; j < w; j++)
        row[j] -= f * prow[j];
}

/* ge-blocked: same thread = row mapping, but the block stages the pivot row
 * in shared memory, LSK_BLOCKED_CHUNK elements at a time, so each pivot
 * element is read from global memory once per block, not once per thread. */
template <typename T>
__global__ void lsk_ge_blocked_kernel(int n, int w, T *M, long long ldm, int k)
{
    __shared__ T pivot_chunk[LSK_BLOCKED_CHUNK];
    int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const T *prow = M + (long long)k * ldm;
    T pivot = prow[k];
    if (pivot == (T)0)
        return; /* uniform across the block: no barrier is skipped by a subset */
    T *__restrict__ row = M + (long long)(i < n ? i : k) * ldm;
    T f = i < n ? row[k] / pivot : (T)0;
    for (int c0 = k + 1; c0 < w; c0 += LSK_BLOCKED_CHUNK) {
        int len = min(LSK_BLOCKED_CHUNK, w - c0);
        __syncthreads();
        for (int t = threadIdx.x; t < len; t += blockDim.x)
            pivot_chunk[t] = prow[c0 + t];
        __syncthreads();
        if (i < n)
            for (int t = 0; t < len; t++)
                row[c0 + t] -= f * pivot_chunk[t];
    }
}

/* One thread per element: threadIdx.x runs along a row, so a warp reads and
 * writes 32 consecutive elements (coalesced). Rows [r0, r1) except the pivot
 * row, columns [c0, w). Row k and column k are only read. */
template <typename T>
__global__ void lsk_elim_elements_kernel(int n, int w, T *M, long long ldm, int k, int r0, int r1,
                                         int c0)
{
    int j = c0 + blockIdx.x * blockDim.x + threadIdx.x;
    int i = r0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= w || i >= r1 || i == k)
        return;
    T pivot = M[(long long)k * ldm + k];
    if (pivot == (T)0)
        return;
    T f = M[(long long)i * ldm + k] / pivot;
    M[(long long)i * ldm + j] -= f * M[(long long)k * ldm + j];
}

template <typename T>
static cudaError_t ge_naive_step(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
{
    int rows = n - k - 1;
    if (rows <= 0)
        return cudaSuccess;
    lsk_ge_naive_kernel<T><<<lsk_blocks(rows, LSK_NAIVE_THREADS), LSK_NAIVE_THREADS, 0, s>>>(
        n, w, dM, ldm, k);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_GE_NAIVE_STEP_SIG, ge_naive_step, (n, w, dM, ldm, k, s))

template <typename T>
static cudaError_t ge_blocked_step(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
{
    int rows = n - k - 1;
    if (rows <= 0)
        return cudaSuccess;
    lsk_ge_blocked_kernel<T><<<lsk_blocks(rows, LSK_BLOCKED_THREADS), LSK_BLOCKED_THREADS, 0, s>>>(
        n, w, dM, ldm, k);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_GE_BLOCKED_STEP_SIG, ge_blocked_step, (n, w, dM, ldm, k, s))

template <typename T>
static cudaError_t elim_elements(int n, int w, T *dM, long long ldm, int k, int r0, int r1,
                                 int c0, cudaStream_t s)
{
    if (r1 <= r0 || w <= c0)
        return cudaSuccess;
    dim3 block(LSK_ELEM_X, LSK_ELEM_Y);
    dim3 grid(lsk_blocks(w - c0, LSK_ELEM_X), lsk_blocks(r1 - r0, LSK_ELEM_Y));
    if (grid.y > 65535u)
        return cudaErrorInvalidConfiguration;
    lsk_elim_elements_kernel<T><<<grid, block, 0, s>>>(n, w, dM, ldm, k, r0, r1, c0);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_ELIM_ELEMENTS_SIG, elim_elements, (n, w, dM, ldm, k, r0, r1, c0, s))

template <typename T>
static int reg_ge(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("ge_naive", "ge-naive", lsk_ge_naive_kernel<T>, LSK_NAIVE_THREADS, 0);
    LSK_REG("ge_blocked", "ge-blocked", lsk_ge_blocked_kernel<T>, LSK_BLOCKED_THREADS,
            LSK_BLOCKED_CHUNK * sizeof(T));
    LSK_REG("elim_elements", "ge-coalesced,gj1,gj2", lsk_elim_elements_kernel<T>,
            LSK_ELEM_X * LSK_ELEM_Y, 0);
    return count;
}
LSK_DEFINE(LSK_REG_GE_SIG, reg_ge, (out))
