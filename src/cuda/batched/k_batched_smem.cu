/* Batched LU for 32 < n <= 256: one block a matrix, the matrix and its
 * right-hand sides in shared memory for the whole factorization, so A and B
 * cross device memory once each way. Right-looking, one column a step:
 * warp 0 finds the pivot (LAPACK's idamax order and NaN rule), the block
 * exchanges the two rows over all columns, then every row below scales its
 * multiplier and updates its part of the trailing matrix and of B (the
 * forward substitution rides along). The back substitution follows in
 * shared memory. Threads own rows: thread t updates row t % RT, columns
 * t / RT, t / RT + G, ... with RT = n rounded up to 32 and G = threads / RT
 * (256 threads up to n = 64, 512 above: one FP64 block fills an SM's
 * shared memory from n = 100, so its own warps must hide the latency).
 *
 * The leading dimension in shared memory is odd (n | 1): the row exchange
 * has a thread per column, and with ld = n a power of two all 32 threads of
 * a warp hit the same bank (a 32-way conflict on every access, the larger
 * part of the kernel's shared-memory traffic at n = 64 and 128). The
 * update loads four columns ahead of its stores so the loads overlap.
 * Defines: lsk_bsmem_bytes_d, lsk_bsmem_bytes_s, lsk_bsmem_lu_d, lsk_bsmem_lu_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/batched/k_batched_pivot.cuh"
#include "cuda/common/k_common.cuh"

template <typename T>
__global__ void __launch_bounds__(LSK_BSMEM_THREADS)
k_bsmem_lu(lsk_bstack st, int nrhs)
{
    extern __shared__ unsigned char bs_raw[];
    const int ld = st.n | 1;
    T *M = (T *)bs_raw;                    /* n x n, column-major, ld */
    T *X = M + (long long)ld * st.n;       /* n x nrhs, ld */
    __shared__ int s_piv, s_info;
    __shared__ T s_pval;
    const int n = st.n, tid = threadIdx.x, nt = blockDim.x;
    const int RT = (n + 31) / 32 * 32, G = nt / RT, row = tid % RT, grp = tid / RT;
    const long long sys = blockIdx.x;
    T *A = (T *)st.A + sys * st.sA;
    T *B = st.B ? (T *)st.B + sys * st.sB : NULL;
    const bool rowmajor = st.a_rs != 1;

    /* load, walking the unit stride of the global layout */
    for (int e = tid; e < n * n; e += nt) {
        int i = rowmajor ? e / n : e % n, j = rowmajor ? e % n : e / n;
        M[i + j * ld] = A[i * st.a_rs + j * st.a_cs];
    }
    for (int e = tid; e < n * nrhs; e += nt) {
        int i = st.b_rs != 1 ? e / nrhs : e % n, c = st.b_rs != 1 ? e % nrhs : e / n;
        X[i + c * ld] = B[i * st.b_rs + c * st.b_cs];
    }
    if (tid == 0)
        s_info = 0;
    int my_ipiv = 0;
    T pending = 0; /* this row's multiplier, stored in the next step */
    int pending_col = -1;
    __syncthreads();

    for (int k = 0; k < n; k++) {
        if (pending_col >= 0 && grp == 0)
            M[row + pending_col * ld] = pending;
        pending_col = -1;
        if (tid < 32) {
            int p = lsk_warp_pivot_row(M + (long long)k * ld, k, n);
            if (tid == 0) {
                s_piv = p;
                s_pval = M[p + k * ld];
                if (s_pval == (T)0 && s_info == 0)
                    s_info = k + 1;
            }
        }
        __syncthreads();
        const int p = s_piv;
        const T piv = s_pval;
        if (tid == k)
            my_ipiv = p + 1;
        if (p != k && piv != (T)0) { /* LAPACK exchanges only for a nonzero pivot */
            for (int j = tid; j < n + nrhs; j += nt) {
                T *col = j < n ? M + j * ld : X + (j - n) * ld;
                T t = col[k];
                col[k] = col[p];
                col[p] = t;
            }
        }
        __syncthreads();
        if (row > k && row < n && grp < G) {
            T l = M[row + k * ld];
            if (piv != (T)0)
                l = lsk_abs(piv) >= lsk_safe_min<T>() ? l * ((T)1 / piv) : l / piv;
            int j = k + 1 + grp;
            for (; j + 3 * G < n; j += 4 * G) {
                T *c0 = M + j * ld, *c1 = c0 + G * ld, *c2 = c1 + G * ld, *c3 = c2 + G * ld;
                T u0 = c0[k], u1 = c1[k], u2 = c2[k], u3 = c3[k];
                T m0 = c0[row], m1 = c1[row], m2 = c2[row], m3 = c3[row];
                c0[row] = m0 - l * u0;
                c1[row] = m1 - l * u1;
                c2[row] = m2 - l * u2;
                c3[row] = m3 - l * u3;
            }
            for (; j < n; j += G)
                M[row + j * ld] -= l * M[k + j * ld];
            for (int c = grp; c < nrhs; c += G)
                X[row + c * ld] -= l * X[k + c * ld];
            pending = l;
            pending_col = k;
        }
        __syncthreads();
    }
    if (pending_col >= 0 && grp == 0)
        M[row + pending_col * ld] = pending;
    const int info = s_info;

    /* U X = Y, one column of U a step */
    for (int k = n - 1; k >= 0 && nrhs > 0 && info == 0; k--) {
        __syncthreads();
        for (int c = tid; c < nrhs; c += nt)
            X[k + c * ld] /= M[k + k * ld];
        __syncthreads();
        for (int e = tid; e < k * nrhs; e += nt) {
            int i = e % k, c = e / k;
            X[i + c * ld] -= M[i + k * ld] * X[k + c * ld];
        }
    }
    __syncthreads();

    for (int e = tid; e < n * n; e += nt) {
        int i = rowmajor ? e / n : e % n, j = rowmajor ? e % n : e / n;
        A[i * st.a_rs + j * st.a_cs] = M[i + j * ld];
    }
    if (st.ipiv && tid < n)
        st.ipiv[sys * n + tid] = my_ipiv;
    if (tid == 0)
        st.info[sys] = info;
    if (info == 0)
        for (int e = tid; e < n * nrhs; e += nt) {
            int i = st.b_rs != 1 ? e / nrhs : e % n, c = st.b_rs != 1 ? e % nrhs : e / n;
            B[i * st.b_rs + c * st.b_cs] = X[i + c * ld];
        }
}

template <typename T>
static size_t bsmem_bytes(int n, int nrhs)
{
    return (size_t)(n | 1) * (size_t)(n + nrhs) * sizeof(T);
}
LSK_DEFINE(LSK_BSMEM_BYTES_SIG, bsmem_bytes, (n, nrhs))

template <typename T>
static cudaError_t launch(const lsk_bstack *st, int nrhs, size_t bytes, cudaStream_t s)
{
    cudaError_t e = cudaFuncSetAttribute(k_bsmem_lu<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)bytes);
    if (e != cudaSuccess)
        return e;
    int threads = st->n <= 64 ? LSK_BSMEM_THREADS / 2 : LSK_BSMEM_THREADS;
    k_bsmem_lu<T><<<(unsigned)st->batch, threads, bytes, s>>>(*st, nrhs);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t bsmem_lu(const lsk_bstack *st, int nrhs, size_t max_smem, cudaStream_t s)
{
    size_t bytes = bsmem_bytes<T>(st->n, nrhs);
    if (st->n < 1 || st->n > LSK_BSMEM_MAXN || nrhs < 0 || bytes > max_smem)
        return cudaErrorInvalidValue;
    return launch<T>(st, nrhs, bytes, s);
}
LSK_DEFINE(LSK_BSMEM_LU_SIG, bsmem_lu, (st, nrhs, max_smem, s))
